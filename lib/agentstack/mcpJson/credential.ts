/**
 * The credential view of mcp.json's agentstack entry, pure: how its headers are read (names case-insensitive), what
 * a real Bearer or API key is, and what state the credential is in. JWT claims are decoded without verification and
 * used only as hints (expiry, the `user_api_key` + `service_caps: null` shape); the server verifies the token on
 * every request.
 */
import { jwtExpiryMs, decodeJwtClaims } from '../auth/jwt.js';
import { MCP_SERVER_KEY } from '../server/toolNames.js';
import { isObject } from '../../platform/text/isObject.js';
import { builtin } from '../../platform/builtin.js';

/** Cursor's mcp.json as parsed JSON. */
export type McpConfig = Record<string, unknown>;

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

/** A token this close to expiry is refreshed at session start (and diagnose says so). */
export const REFRESH_WINDOW_MS = 120_000;

/** A header of `headers` by name, case-insensitively (HTTP header names are); undefined when absent. */
export function headerValue(headers: unknown, name: string): unknown {
  if (!isObject(headers)) return undefined;
  const wanted = name.toLowerCase();
  const key = Object.keys(headers).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : headers[key];
}

/** The agentstack entry of mcp.json, or undefined when there is none (or it is not an object). */
export function agentstackEntry(config: McpConfig): Record<string, unknown> | undefined {
  const servers = config.mcpServers;
  const entry = isObject(servers) ? servers[MCP_SERVER_KEY] : undefined;
  return isObject(entry) ? entry : undefined;
}

/** The token of `Bearer <token>` when it is a real one: not empty, not `${...}`, not a placeholder; else null. */
export function bearerToken(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^Bearer\s+(\S+)$/i.exec(value.trim());
  if (!match) return null;
  const token = match[1]!;
  return token.includes('${') || token.includes('AGENTSTACK_ACCESS_TOKEN') || /^<.*>$/.test(token) ? null : token;
}

/** `Bearer <token>` with a real token: not empty, not `${...}` interpolation, not the AGENTSTACK_ACCESS_TOKEN placeholder. */
export function isRealBearer(value: unknown): value is string {
  return bearerToken(value) !== null;
}

/** An `X-API-Key` value that is a key, not an empty string or a `${...}` interpolation. */
export function isRealApiKey(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '' && !value.includes('${');
}

/** The agentstack entry's Bearer token (without `Bearer `), or null when it has no real one. */
export function bearerOf(config: McpConfig): string | null {
  return bearerToken(headerValue(agentstackEntry(config)?.headers, 'Authorization'));
}

/** A one-way fingerprint of a token (SHA-256, base64url): recorded to recognise the token later, never to use it. */
export function tokenFingerprint(token: string): string {
  // Loaded on first use: a session start with a fresh credential never needs it.
  const { createHash } = builtin<typeof import('node:crypto')>('node:crypto');
  return createHash('sha256').update(token).digest('base64url');
}

export interface CredentialInput {
  config: McpConfig;
  /** `expires_at` of the refresh file (ISO), used when the token is not a JWT with `exp`. */
  storedExpiresAt?: string | null;
  now: number;
}

export function classifyCredential({ config, storedExpiresAt, now }: CredentialInput): CredentialView {
  const entry = agentstackEntry(config);
  const none: CredentialView = { state: 'unsigned', token: null, claims: null, expiresAtMs: null, apiKey: false };
  if (!entry) return none;
  const authorization = headerValue(entry.headers, 'Authorization');
  if (authorization === undefined) return isRealApiKey(headerValue(entry.headers, 'X-API-Key')) ? { ...none, state: 'ok', apiKey: true } : none;
  const token = bearerToken(authorization);
  if (token === null) return { ...none, state: 'placeholder' };
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

/**
 * A Bearer the server answered 401 to (RFC 6750 `invalid_token`) is expired, whatever its own expiry said or when
 * it said nothing: it is renewed, or a sign-in starts when nothing can renew it.
 */
export function refusedView(view: CredentialView, refused: boolean, now: number): CredentialView {
  if (!refused || view.token === null || view.apiKey) return view;
  return { ...view, state: 'expired', expiresAtMs: view.expiresAtMs === null ? now : Math.min(view.expiresAtMs, now) };
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
