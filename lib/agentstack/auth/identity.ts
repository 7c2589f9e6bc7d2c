/**
 * Who holds a token: the one call to `GET /api/auth/me`, the one rule for the name shown (email, else display
 * name, else the user id), and the one writer of the identity cache (identityCache.ts reads it).
 */
import { decodeJwtClaims } from './jwt.js';
import { httpRequest, parseJson } from '../../platform/net/http.js';
import { bearerVerdict } from '../../platform/net/bearerChallenge.js';
import { PluginError, quoteShort } from '../../platform/errors.js';
import { MeSchema, type Me } from '../../schemas/server.js';
import { SECRET_FILE_MODE, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { mcpUrlFor } from '../server/baseUrl.js';

export interface WhoAmI {
  /** The name to show: email, else display name, else `user <id>`; quoted short. */
  who: string;
  me: Me;
}

/** The name shown for an account. */
export function displayName(me: Pick<Me, 'email' | 'display_name' | 'user_id'>): string {
  return quoteShort(me.email || me.display_name || `user ${me.user_id}`, 120);
}

/**
 * `GET /api/auth/me` with `token`. A non-200 answer is `server` with the HTTP status in `details.status` (401 and
 * 403: the token was refused); a body without the fields we read is `invalid_response`.
 */
export async function fetchIdentity(args: { baseUrl: string; token: string; timeoutMs: number; signal?: AbortSignal }): Promise<WhoAmI> {
  const res = await httpRequest({ url: `${args.baseUrl}/api/auth/me`, headers: { authorization: `Bearer ${args.token}`, accept: 'application/json' }, timeoutMs: args.timeoutMs, signal: args.signal });
  if (res.status === 401 || res.status === 403) {
    // `refused`: the answer says the token itself is no good (refusal.ts records it); a 403 may be about scope only.
    const refused = bearerVerdict(res.status, res.headers.get('www-authenticate'))?.kind === 'refused';
    throw new PluginError('server', `${args.baseUrl} rejected the token (HTTP ${res.status})`, { details: { status: res.status, refused } });
  }
  if (res.status !== 200) throw new PluginError('server', `GET /api/auth/me answered HTTP ${res.status}`, { details: { status: res.status } });
  const me = parseJson(res, MeSchema, 'The account').data;
  return { who: displayName(me), me };
}

/** Caches who holds `token` on `baseUrl`'s server, keyed by the token's `sub`. */
export function rememberIdentity(path: string, args: { who: string; token: string; baseUrl: string; now?: Date }): void {
  const sub = decodeJwtClaims(args.token)?.sub;
  const identity = { who: args.who, sub: typeof sub === 'string' ? sub : null, server_url: mcpUrlFor(args.baseUrl), fetched_at: (args.now ?? new Date()).toISOString() };
  writeFileAtomic(path, `${JSON.stringify(identity)}\n`, { mode: SECRET_FILE_MODE });
}

/** Asks the server who holds `token` and caches the answer; the name shown. */
export async function lookUpIdentity(args: { baseUrl: string; token: string; identityPath: string; timeoutMs: number; signal?: AbortSignal; now?: Date }): Promise<string> {
  const { who } = await fetchIdentity(args);
  rememberIdentity(args.identityPath, { who, token: args.token, baseUrl: args.baseUrl, now: args.now });
  return who;
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * Whether the MCP endpoint refuses `token` as invalid: a 401 whose challenge says `error="invalid_token"` (RFC 6750
 * §3.1: expired, revoked or malformed). A `ping` without a session: the server checks the Bearer before anything
 * else and no session is created. Any other answer, or none, is not a refusal.
 */
export async function mcpRefusesToken(args: { baseUrl: string; token: string; timeoutMs: number; signal?: AbortSignal }): Promise<boolean> {
  try {
    const res = await httpRequest({
      url: mcpUrlFor(args.baseUrl), method: 'POST', headers: { authorization: `Bearer ${args.token}`, ...MCP_HEADERS },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), timeoutMs: args.timeoutMs, maxBytes: 16_384, signal: args.signal,
    });
    const verdict = bearerVerdict(res.status, res.headers.get('www-authenticate'));
    return verdict?.kind === 'refused' && verdict.error === 'invalid_token';
  } catch {
    return false;
  }
}

/**
 * Whether the MCP endpoint accepts `token`, judged by an MCP `initialize`: for a server that has no
 * `/api/auth/me` (not AgentStack). The HTTP status, and whether the answer refused the token (401 `invalid_token`
 * or with no error code); a session it opened is closed again.
 */
export async function mcpInitializeStatus(args: { baseUrl: string; token: string; timeoutMs: number }): Promise<{ status: number; refused: boolean }> {
  const url = mcpUrlFor(args.baseUrl);
  const authorization = `Bearer ${args.token}`;
  const res = await httpRequest({
    url, method: 'POST', headers: { authorization, ...MCP_HEADERS }, timeoutMs: args.timeoutMs, maxBytes: 65_536,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agentstack-cursor-plugin', version: '0' } } }),
  });
  const session = res.headers.get('mcp-session-id');
  if (session) await httpRequest({ url, method: 'DELETE', headers: { authorization, 'mcp-session-id': session }, timeoutMs: args.timeoutMs }).catch(() => {});
  return { status: res.status, refused: bearerVerdict(res.status, res.headers.get('www-authenticate'))?.kind === 'refused' };
}
