/**
 * The step of Cursor's Connect that metadata cannot prove: dynamic client registration (RFC 7591) as Connect and the
 * MCP SDK's OAuth client send it, a public client with a loopback redirect asking for the scopes the resource
 * advertises (RFC 9728 `scopes_supported`). It registers one client on the server (what every Connect click does);
 * when the server offers RFC 7592 management, the client is deleted again. The browser sign-in that follows needs a
 * person and is not run here; the test suite runs it against the reference core with the SDK's own client.
 */
import { mayRequestFor } from '../../agentstack/server/baseUrl.js';
import { quoteShort } from '../../platform/errors.js';
import { fail, pass, type Check } from '../../platform/report.js';
import { requestJson, statusLine, type VerifyContext } from './fetchJson.js';

const ID = 'oauth.connect_ready';

/** The registration request Connect-like clients send (public client, code + refresh, loopback redirect). */
export function connectRegistrationRequest(scopes: readonly string[] | undefined): Record<string, unknown> {
  return {
    client_name: 'AgentStack verify (Connect check)',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(scopes && scopes.length ? { scope: scopes.join(' ') } : {}),
  };
}

/** RFC 7592 clean-up; the registration access token goes only to the origin that issued it. */
async function deleteRegistration(ctx: VerifyContext, registrationEndpoint: string, body: Record<string, unknown>): Promise<void> {
  const uri = body.registration_client_uri;
  const token = body.registration_access_token;
  if (typeof uri !== 'string' || typeof token !== 'string' || !mayRequestFor(uri, ctx.mcpUrl)) return;
  if (new URL(uri).origin !== new URL(registrationEndpoint).origin) return;
  await requestJson({ ...ctx, bearer: token }, uri, { method: 'DELETE', auth: true });
}

/** Runs the registration; `registrationEndpoint` is an https (or loopback http) URL already checked by the caller. */
export async function connectRegistrationCheck(ctx: VerifyContext, registrationEndpoint: string, scopes: readonly string[] | undefined): Promise<Check> {
  const request = connectRegistrationRequest(scopes);
  const asked = scopes?.length ? `the advertised scopes (${scopes.length})` : 'no scope (none advertised)';
  const answer = await requestJson({ ...ctx, bearer: undefined }, registrationEndpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
  if (answer.kind !== 'ok') return fail(ID, `not ready for Cursor's Connect: dynamic client registration failed (${answer.error})`, 'make the registration_endpoint reachable');
  const body = (answer.json && typeof answer.json === 'object' ? answer.json : {}) as Record<string, unknown>;
  if (answer.res.status !== 201 && answer.res.status !== 200) {
    return fail(ID, `not ready for Cursor's Connect: registering a public client with ${asked} answered ${statusLine(answer.res, answer.json)}`,
      'accept dynamic registration of public clients (token_endpoint_auth_method none) asking for any scope you advertise', { request });
  }
  if (typeof body.client_id !== 'string' || !body.client_id) {
    return fail(ID, `not ready for Cursor's Connect: the registration answered HTTP ${answer.res.status} without a client_id`, 'answer RFC 7591 registration with the new client_id');
  }
  await deleteRegistration(ctx, registrationEndpoint, body);
  return pass(ID, `ready for Cursor's Connect: metadata offers authorization code + PKCE S256, and registered a public client with ${asked} (client ${quoteShort(body.client_id, 12)}); the browser sign-in is not run here`);
}
