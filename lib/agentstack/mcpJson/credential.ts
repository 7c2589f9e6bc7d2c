/**
 * The credential gate of session start, pure: what state the agentstack entry's credential is in. JWT claims are
 * decoded without verification and used only as hints (expiry, the `user_api_key` + `service_caps: null` shape);
 * the server verifies the token on every request.
 */
import { jwtExpiryMs, decodeJwtClaims } from '../auth/jwt.js';
import { isRealBearer, type McpConfig } from './entry.js';
import { MCP_SERVER_KEY } from '../server/toolNames.js';
import { isObject } from '../../platform/text/isObject.js';

export type CredentialState = 'unsigned' | 'placeholder' | 'expired' | 'null_caps' | 'ok';

export interface CredentialView {
  state: CredentialState;
  /** The bare token, when the entry holds a real Bearer. */
  token: string | null;
  claims: Record<string, unknown> | null;
  /** When the token expires (epoch ms): the JWT's `exp`, else the stored `expires_at`; null when unknown. */
  expiresAtMs: number | null;
  /** True for an entry signed in with `X-API-Key` instead of a Bearer (no expiry, nothing to refresh). */
  apiKey: boolean;
}

/** A token this close to expiry is refreshed at session start. */
export const REFRESH_WINDOW_MS = 120_000;


function header(headers: unknown, name: string): unknown {
  if (!isObject(headers)) return undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : headers[key];
}

export interface CredentialInput {
  config: McpConfig;
  /** `expires_at` of the refresh file (ISO), used when the token is not a JWT with `exp`. */
  storedExpiresAt?: string | null;
  now: number;
}

export function classifyCredential({ config, storedExpiresAt, now }: CredentialInput): CredentialView {
  const servers = config.mcpServers;
  const entry = isObject(servers) ? servers[MCP_SERVER_KEY] : undefined;
  const none: CredentialView = { state: 'unsigned', token: null, claims: null, expiresAtMs: null, apiKey: false };
  if (!isObject(entry)) return none;
  const authorization = header(entry.headers, 'Authorization');
  if (authorization === undefined) {
    const apiKey = header(entry.headers, 'X-API-Key');
    const realKey = typeof apiKey === 'string' && apiKey.trim() !== '' && !apiKey.includes('${');
    return realKey ? { ...none, state: 'ok', apiKey: true } : none;
  }
  if (!isRealBearer(authorization)) return { ...none, state: 'placeholder' };
  const token = authorization.trim().replace(/^Bearer\s+/i, '');
  const claims = decodeJwtClaims(token);
  const stored = storedExpiresAt ? Date.parse(storedExpiresAt) : NaN;
  const expiresAtMs = jwtExpiryMs(token) ?? (Number.isFinite(stored) ? stored : null);
  const base = { token, claims, expiresAtMs, apiKey: false };
  if (expiresAtMs !== null && expiresAtMs <= now) return { ...base, state: 'expired' };
  if (claims && claims.token_type === 'user_api_key' && Object.hasOwn(claims, 'service_caps') && claims.service_caps === null) {
    return { ...base, state: 'null_caps' };
  }
  return { ...base, state: 'ok' };
}

/** True when the token should be refreshed now: expired, or expiring within REFRESH_WINDOW_MS. */
export function needsRefresh(gate: Pick<CredentialView, 'state' | 'expiresAtMs'>, now: number): boolean {
  if (gate.state !== 'ok' && gate.state !== 'expired') return false;
  return gate.expiresAtMs !== null && gate.expiresAtMs - now <= REFRESH_WINDOW_MS;
}

/** The states in which a sign-in is needed (when refresh cannot help). `unsigned` only gets a suggestion. */
export function needsSignIn(state: CredentialState): boolean {
  return state === 'placeholder' || state === 'expired' || state === 'null_caps';
}
