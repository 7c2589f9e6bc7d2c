/** Login and consent pages of the provider's interactions (reached after the device confirm step). */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accountByEmail, accountById } from './accounts.js';
import { HttpError, readBody, sendHtml } from './http.js';
import { consentPage, errorPage, loginPage } from './pages.js';
import type { CoreState } from './state.js';

const FORM_LIMIT = 16 * 1024;

function passwordMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Handles /interaction/<uid>[/login|/confirm|/abort]. Returns false when the path is not an interaction path. */
export async function handleInteraction(state: CoreState, req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  const match = /^\/interaction\/([A-Za-z0-9_-]{1,100})(?:\/(login|confirm|abort))?$/.exec(path);
  if (!match) return false;
  const provider = state.provider!;
  const [, uid, step] = match;
  let details;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    sendHtml(res, 400, errorPage('Sign-in expired', 'This sign-in page has expired. Start again from Cursor.'));
    return true;
  }
  if (details.uid !== uid) {
    sendHtml(res, 400, errorPage('Sign-in error', 'This sign-in page does not match your session.'));
    return true;
  }
  const clientName = (await provider.Client.find(details.params.client_id))?.clientName ?? String(details.params.client_id);

  if (req.method === 'GET' && !step) {
    if (details.prompt.name === 'login') {
      sendHtml(res, 200, loginPage(uid!));
    } else {
      const account = accountById(details.session?.accountId ?? '');
      const scopes = String(details.params.scope ?? '').split(' ').filter(Boolean);
      sendHtml(res, 200, consentPage(uid!, account?.email ?? 'unknown', clientName, scopes));
    }
    return true;
  }
  if (req.method !== 'POST' || !step) throw new HttpError(405, 'method_not_allowed', 'use GET or POST');
  const form = new URLSearchParams(await readBody(req, FORM_LIMIT));

  if (step === 'abort') {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'End-User denied the sign-in' }, { mergeWithLastSubmission: false });
    return true;
  }
  if (step === 'login') {
    const email = form.get('email') ?? '';
    const account = accountByEmail(email);
    if (!account || !passwordMatches(form.get('password') ?? '', account.password)) {
      sendHtml(res, 401, loginPage(uid!, 'Wrong email or password.', email));
      return true;
    }
    await provider.interactionFinished(req, res, { login: { accountId: account.user_id, amr: ['pwd'] } }, { mergeWithLastSubmission: false });
    return true;
  }
  // step === 'confirm': grant what the client asked for
  if (details.prompt.name !== 'consent') throw new HttpError(400, 'invalid_request', 'nothing to confirm');
  const { Grant } = provider;
  const accountId = details.session.accountId;
  const grant = details.grantId ? await Grant.find(details.grantId) : new Grant({ accountId, clientId: details.params.client_id });
  const d = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (d.missingOIDCScope?.length) grant.addOIDCScope(d.missingOIDCScope.join(' '));
  if (d.missingOIDCClaims?.length) grant.addOIDCClaims(d.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  return true;
}
