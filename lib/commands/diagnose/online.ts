/**
 * diagnose-local --online: who the server says the token belongs to (GET /api/auth/me) and the MCP surface probe.
 * The HTTP layer and the MCP SDK are loaded only here, so an offline diagnosis stays fast.
 */
import { baseUrlFromMcpUrl, mcpUrlFor, resolveBaseUrl } from '../../agentstack/server/baseUrl.js';
import { isPluginError } from '../../platform/errors.js';
import { TLS_FIX, tlsVerificationCode } from '../../platform/net/tlsError.js';
import { credentialsBelongTo } from '../../agentstack/mcpJson/entry.js';
import { issuedFor } from '../../agentstack/auth/refreshStore.js';
import { fail, pass, warn, type Check } from '../../platform/report.js';
import { notChecked } from './gatesConfig.js';
import { stepFor } from '../../agentstack/state/story.js';
import { refusedState } from '../../agentstack/state/account.js';
import type { LocalState } from './state.js';
import { recordRefusal } from '../../agentstack/snapshot/refusal.js';

/** The server diagnosed: the one Cursor uses (the entry's URL), else AGENTSTACK_BASE_URL or the default. */
export function serverFor(state: Pick<LocalState, 'mcp'>, env: NodeJS.ProcessEnv): string {
  return baseUrlFromMcpUrl(state.mcp.entry?.url) ?? resolveBaseUrl(env);
}

/** Told when an answer refused the Bearer itself (401 `invalid_token` or no error code): the caller records it. */
export type OnRefused = (message: string) => void;

/** The fix for a Bearer the server refused: the renewal when a refresh token renews it, else a new sign-in. */
const refusedFix = (refreshable: boolean) => stepFor(refusedState({ refreshable }))!;

export async function authMeCheck(baseUrl: string, bearer: string | null, timeoutMs = 10_000, onRefused?: OnRefused, refreshable = false): Promise<Check> {
  const id = 'online.auth-me';
  if (!bearer) return notChecked(id, 'no Bearer token in mcp.json');
  const { fetchIdentity } = await import('../../agentstack/auth/identity.js');
  try {
    const { who, me } = await fetchIdentity({ baseUrl, token: bearer, timeoutMs });
    return pass(id, `signed in as ${who}${me.role ? ` (${me.role})` : ''} on ${baseUrl}`, { user_id: me.user_id, role: me.role ?? null });
  } catch (error) {
    const tls = tlsVerificationCode(error);
    if (tls) return fail(id, `TLS certificate verification failed for ${new URL(baseUrl).host} (${tls}): Node does not trust the certificate it was shown`, TLS_FIX, { tls });
    const status = isPluginError(error, 'server') ? error.details?.status : undefined;
    if (status === 401 || status === 403) {
      if ((error as { details?: { refused?: unknown } }).details?.refused === true) onRefused?.(`GET /api/auth/me refused the token (HTTP ${status})`);
      return fail(id, (error as Error).message, refusedFix(refreshable));
    }
    if (typeof status === 'number') return fail(id, (error as Error).message, 'Try again later; if it persists, run verify-mcp-surface-e2e');
    const why = isPluginError(error) ? error.message : 'request failed';
    // Nothing listens at a server on this machine: no network or proxy is involved; the server is not running.
    if (refusedConnection(error) && isLoopbackHost(new URL(baseUrl).hostname)) {
      return fail(id, `${why} (the server at ${baseUrl} is not running: the connection was refused)`, `Start the server at ${baseUrl}, or point AGENTSTACK_BASE_URL (or the agentstack entry's url) at one that runs`);
    }
    return fail(id, why, 'Check your network or proxy (HTTPS_PROXY), then try again');
  }
}

/** The connection was refused (ECONNREFUSED anywhere in the error's causes or message). */
function refusedConnection(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i += 1) {
    if (e.code === 'ECONNREFUSED' || (typeof e.message === 'string' && e.message.includes('ECONNREFUSED'))) return true;
  }
  return false;
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host);
}

export async function probeChecks(mcpUrl: string, bearer: string | null, onRefused?: OnRefused, refreshable = false): Promise<Check[]> {
  if (!bearer) return [notChecked('online.mcp', 'no Bearer token')];
  const { bearerRefused, probeMcpSurface } = await import('../../agentstack/probe/probe.js');
  try {
    const report = await probeMcpSurface({ mcpUrl, bearer });
    if (bearerRefused(report)) onRefused?.(`${mcpUrl} refused the token (HTTP 401 invalid_token)`);
    // The probe's fixes name verify-mcp-surface-e2e's flags; here the fix for a refused Bearer is the sign-in.
    return report.checks.map((c) => (c.fix?.includes('--token-env') ? { ...c, fix: refusedFix(refreshable) } : c));
  } catch (error) {
    return [fail('online.mcp', `the MCP probe stopped: ${isPluginError(error) ? error.message : 'unexpected error'}`, 'Run verify-mcp-surface-e2e for details')];
  }
}

/**
 * The online rows. `refused`: the server refused the Bearer as invalid; that is recorded as session start records
 * it (snapshot/refusal.ts), so the caller reads the state again and every view after says so.
 */
export async function onlineChecks(state: LocalState, env: NodeJS.ProcessEnv): Promise<{ checks: Check[]; refused: boolean }> {
  let baseUrl: string;
  try {
    baseUrl = serverFor(state, env);
  } catch (error) {
    return { checks: [fail('online.server', (error as Error).message, 'Fix AGENTSTACK_BASE_URL or the url of the agentstack entry')], refused: false };
  }
  let refused = false;
  const onRefused: OnRefused = (message) => {
    // A token past its known end is expired, as --status says; the server refusing it adds nothing to record.
    if (refused || !state.bearer || state.derived.account.state === 'expired') return;
    refused = true;
    try {
      recordRefusal({ failurePath: state.paths.capabilitiesFailure, serverUrl: mcpUrlFor(baseUrl), token: state.bearer, message, now: Date.now() });
    } catch { /* the row says it; the next check asks again */ }
  };
  const checks = await checksFor(state, baseUrl, onRefused);
  return { checks, refused };
}

async function checksFor(state: LocalState, baseUrl: string, onRefused: OnRefused): Promise<Check[]> {
  // The Bearer goes only to the server it was issued for: never to AGENTSTACK_BASE_URL or the default in its place.
  if (state.bearer && !credentialsBelongTo(state.mcp.entry, baseUrl, issuedFor(state.refresh.record))) {
    return [fail('online.server', `the Bearer in mcp.json is not for ${baseUrl}; it was not sent`, `Sign in to ${baseUrl} (/agentstack-authorize), or fix the url of the agentstack entry`)];
  }
  const { account, story } = state.derived;
  if (account.state === 'expired_renewable' || account.state === 'refused_renewable') {
    // The server refuses this token (it has expired, or said so already): asking would only say so. The renewal comes first.
    const why = `${account.state === 'expired_renewable' ? 'the token has expired' : 'the server refused the token'}. ${story.next}`;
    return [notChecked('online.auth-me', why), notChecked('online.mcp', why)];
  }
  if (account.state === 'renewal_refused' || account.state === 'expired') {
    // A token known dead (past its end, or its renewal refused) is not sent: the answer is known, and the step is the story's.
    const why = `${story.truth} ${story.next ?? ''}`.trim();
    return [notChecked('online.auth-me', `the token was not sent: ${why}`), notChecked('online.mcp', `the token was not sent: ${why}`)];
  }
  const refreshable = state.refresh.exists && !state.refresh.error;
  const me = await authMeCheck(baseUrl, state.bearer, undefined, onRefused, refreshable);
  // The probe would fail the same way, less clearly.
  if ((me.details as { tls?: string } | undefined)?.tls) return [me, warn('online.mcp', 'probe not run: the TLS certificate was not trusted', TLS_FIX)];
  return [me, ...(await probeChecks(mcpUrlFor(baseUrl), state.bearer, onRefused, refreshable))];
}
