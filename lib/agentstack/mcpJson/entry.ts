/**
 * The lean `mcpServers.agentstack` entry of Cursor's mcp.json, as pure functions. Only that entry is ever touched:
 * every other server and top-level key keeps its value and its position. Each function returns `{config, changed}`
 * so the file layer writes nothing on a no-op.
 */
import { DEFAULT_BASE_URL, baseUrlFromMcpUrl, mcpUrlFor, resourceCovers } from '../server/baseUrl.js';
import { PluginError } from '../../platform/errors.js';
import { decodeJwtClaims } from '../auth/jwt.js';
import { MCP_SERVER_KEY } from '../server/toolNames.js';
import { isObject } from '../../platform/text/isObject.js';
import { httpOriginOf } from '../../platform/net/webUrl.js';
import { bearerToken, headerValue, isRealApiKey, isRealBearer, tokenFingerprint, type McpConfig } from './credential.js';

export type { McpConfig };
export interface McpConfigUpdate {
  config: McpConfig;
  changed: boolean;
}

type Json = Record<string, unknown>;


/** A project id the server accepts as a tenant pin: an integer > 1 (1 is the shared ecosystem project). */
export function parseProjectId(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,15}$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 1 ? n : null;
}

/**
 * Which server the entry points at: `AGENTSTACK_BASE_URL` when set (already validated by the caller); else the
 * entry's own URL when it is an AgentStack MCP URL (a hand-set staging server survives); else the default.
 */
export function chooseBaseUrl(entry: unknown, envBaseUrl?: string | null): string {
  if (envBaseUrl) return envBaseUrl;
  const fromEntry = isObject(entry) ? baseUrlFromMcpUrl(entry.url) : null;
  return fromEntry ?? DEFAULT_BASE_URL;
}

/** Orders `obj`'s keys like `reference` where both have them (existing files keep their shape), new keys last. */
function orderLike(obj: Json, reference: unknown): Json {
  if (!isObject(reference)) return obj;
  const refKeys = Object.keys(reference).map((k) => k.toLowerCase());
  const keys = Object.keys(obj).sort((a, b) => {
    const ia = refKeys.indexOf(a.toLowerCase());
    const ib = refKeys.indexOf(b.toLowerCase());
    return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  });
  return Object.fromEntries(keys.map((k) => [k, obj[k]]));
}

export interface LeanEntryOptions {
  baseUrl: string;
  /** A bare token (no `Bearer `); omitted = keep the existing real Bearer, if any. */
  token?: string;
  /** undefined = keep the existing valid pin; null = remove it. */
  projectId?: number | null;
  /** What we recorded when we issued the entry's Bearer (see credentialsBelongTo). */
  issued?: IssuedFor | null;
}

/**
 * What the plugin recorded when it issued a Bearer: the MCP URL it was issued for, and a fingerprint of the token
 * (absent in records written before the fingerprint existed: the record is then taken to describe the Bearer).
 */
export interface IssuedFor {
  serverUrl: string;
  fingerprint?: string | null;
}

/**
 * The origins a JWT says it is for: its `aud` values that are http(s) URLs. `aud` is a StringOrURI (RFC 7519
 * §4.1.3): `api://agentstack-mcp`, `urn:example:mcp` or `mcp:read mcp:write` is a plain string and names no server
 * (as URLs their origin is the string "null"). Empty for an opaque token, no `aud`, or no http(s) `aud`.
 */
function audienceOrigins(authorization: unknown): string[] {
  const token = bearerToken(authorization);
  const claims = token === null ? null : decodeJwtClaims(token);
  const aud = claims?.aud;
  const origins: string[] = [];
  for (const value of Array.isArray(aud) ? aud : [aud]) {
    const origin = httpOriginOf(value);
    if (origin !== null) origins.push(origin);
  }
  return origins;
}

/**
 * Whether credentials in `entry` were meant for `baseUrl`. A token is issued for one server: when the server
 * changes (AGENTSTACK_BASE_URL, or a hand-edited `url`), the old Bearer must not travel to the new one. The entry's
 * URL must name `baseUrl` (no URL means the default server); a JWT Bearer whose `aud` names URLs must name
 * `baseUrl`'s origin among them; and a Bearer we issued (its fingerprint matches our record) must have been issued
 * for `baseUrl`'s MCP URL: an opaque token carries no `aud`, and the entry's `url` alone can be edited by hand.
 */
export function credentialsBelongTo(entry: unknown, baseUrl: string, issued?: IssuedFor | null): boolean {
  if (!isObject(entry)) return true;
  const entryBase = entry.url === undefined ? DEFAULT_BASE_URL : baseUrlFromMcpUrl(entry.url);
  if (entryBase !== baseUrl) return false;
  const authorization = headerValue(entry.headers, 'Authorization');
  const token = bearerToken(authorization);
  if (token !== null && issued && !resourceCovers(issued.serverUrl, mcpUrlFor(baseUrl)) && (!issued.fingerprint || issued.fingerprint === tokenFingerprint(token))) return false;
  const origins = audienceOrigins(authorization);
  return origins.length === 0 || origins.includes(new URL(baseUrl).origin);
}

/**
 * The entry's `auth` when it is a static OAuth client as Cursor documents it (`CLIENT_ID`, optional `CLIENT_SECRET`
 * and `scopes`), else undefined. Kept whole: it is the person's own client registration, not ours to trim.
 */
export function staticOAuthClient(entry: Json): Json | undefined {
  const auth = entry.auth;
  return isObject(auth) && typeof auth.CLIENT_ID === 'string' && auth.CLIENT_ID.trim() !== '' ? auth : undefined;
}

/**
 * The lean entry `{type, url, headers: {Authorization?, X-API-Key?, X-Project-ID?}, auth?}` built from an existing
 * one. `auth` (a static OAuth client) stays only while the entry's credentials do: its secret belongs to one server.
 */
export function leanEntry(existing: unknown, options: LeanEntryOptions): Json {
  const old = isObject(existing) ? existing : {};
  const oldHeaders = isObject(old.headers) ? old.headers : {};
  const keepCredentials = credentialsBelongTo(old, options.baseUrl, options.issued);
  const authorization = options.token !== undefined ? `Bearer ${options.token}` : keepCredentials ? headerValue(oldHeaders, 'Authorization') : undefined;
  const headers: Json = {};
  if (isRealBearer(authorization)) headers.Authorization = authorization.trim();
  const apiKey = keepCredentials ? headerValue(oldHeaders, 'X-API-Key') : undefined;
  if (!headers.Authorization && isRealApiKey(apiKey)) headers['X-API-Key'] = apiKey;
  const project = options.projectId === undefined ? parseProjectId(headerValue(oldHeaders, 'X-Project-ID')) : options.projectId;
  if (project !== null && parseProjectId(project) !== null) headers['X-Project-ID'] = String(project);
  const entry: Json = {
    type: old.type === 'streamable-http' ? 'streamable-http' : 'http',
    url: mcpUrlFor(options.baseUrl),
  };
  if (Object.keys(headers).length) entry.headers = orderLike(headers, oldHeaders);
  const auth = keepCredentials ? staticOAuthClient(old) : undefined;
  if (auth) entry.auth = auth;
  return orderLike(entry, old);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A copy of `config` with `mcpServers.agentstack` replaced in place (same position), or appended when new. */
function withEntry(config: McpConfig, entry: Json): McpConfig {
  const servers = config.mcpServers;
  if (servers !== undefined && !isObject(servers)) {
    throw new PluginError('malformed_file', '"mcpServers" in mcp.json is not an object; fix it by hand, then try again');
  }
  const nextServers: Json = { ...(servers ?? {}) };
  nextServers[MCP_SERVER_KEY] = entry;
  return { ...config, mcpServers: nextServers };
}

export interface NormalizeOptions {
  /** The validated `AGENTSTACK_BASE_URL`, when set. */
  envBaseUrl?: string | null;
  /** What we recorded when we issued the Bearer (the refresh record), when there is a record. */
  issued?: IssuedFor | null;
}

/** Makes an existing agentstack entry lean. Adds nothing when there is none (signing in adds it). */
export function normalizeMcpConfig(config: McpConfig, options: NormalizeOptions = {}): McpConfigUpdate {
  const servers = config.mcpServers;
  if (!isObject(servers) || !Object.hasOwn(servers, MCP_SERVER_KEY) || !isObject(servers[MCP_SERVER_KEY])) {
    return { config, changed: false };
  }
  const existing = servers[MCP_SERVER_KEY];
  const entry = leanEntry(existing, { baseUrl: chooseBaseUrl(existing, options.envBaseUrl), issued: options.issued });
  if (sameJson(entry, existing)) return { config, changed: false };
  return { config: withEntry(config, entry), changed: true };
}

export interface ApplyBearerOptions {
  token: string;
  /** The server the token was issued by. */
  baseUrl: string;
  /** undefined = keep the existing valid pin; null = remove it. */
  projectId?: number | null;
}

/** Writes the Bearer (and pin) into the agentstack entry, creating it when absent; the result is lean. */
export function applyBearer(config: McpConfig, options: ApplyBearerOptions): McpConfigUpdate {
  if (!options.token || /\s/.test(options.token)) throw new PluginError('invalid_response', 'The issued access token is empty or malformed');
  const servers = isObject(config.mcpServers) ? config.mcpServers : undefined;
  const existing = servers?.[MCP_SERVER_KEY];
  const entry = leanEntry(existing, { baseUrl: options.baseUrl, token: options.token, projectId: options.projectId });
  if (servers && sameJson(entry, existing)) return { config, changed: false };
  return { config: withEntry(config, entry), changed: true };
}
