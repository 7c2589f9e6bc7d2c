/**
 * Signing out: first locally, under the credential lock that sign-in and refresh take (`agentstack-refresh.lock`),
 * so a refresh in flight finishes first and its rotated token is the one removed; then, with the tokens held only
 * in memory, revocation at the server (RFC 7009). The local part is what must not fail: the `agentstack` entry
 * loses its credentials, the refresh token, the identity cache and the capability snapshot are removed, and the
 * signed-out record is written. A server that cannot revoke only changes what we tell the person.
 */
import { withLock } from '../../platform/fs/fileLock.js';
import { PluginError, quoteShort } from '../../platform/errors.js';
import { removeIfExists } from '../../platform/fs/secureFile.js';
import { baseUrlFromMcpUrl, mcpUrlFor } from '../server/baseUrl.js';
import { baseUrlIn } from '../settings/keys.js';
import { settingFromEnv } from '../settings/variables.js';
import type { EffectiveSettings } from '../settings/effective.js';
import { cursorPaths, type CursorPaths } from '../server/paths.js';
import { chooseBaseUrl, credentialsBelongTo } from '../mcpJson/entry.js';
import { agentstackEntry, bearerOf, headerValue, type McpConfig } from '../mcpJson/credential.js';
import { updateMcpConfigFile } from '../mcpJson/file.js';
import { withoutCredentials } from '../mcpJson/withoutCredentials.js';
import { issuedFor, readRefreshFile, refreshBelongsTo, type StoredRefresh } from '../auth/refreshStore.js';
import { deleteRefreshSecrets, loadRefreshToken } from '../credentials/credentialStore.js';
import { markSignedOut } from '../auth/signedOut.js';
import { jwtExpiryMs } from '../auth/jwt.js';
import { isStaleDeviceLock, readDeviceLock } from './lock.js';
import { publicClientAccepted } from '../auth/clientAuth.js';
import { DEFAULT_CLIENT_ID } from '../settings/keys.js';

/** Why the grant was not revoked at the server (null when it was). */
export type NotRevokedReason =
  | 'not_signed_in'
  | 'no_revocation_endpoint'
  | 'refused'
  /** The revocation endpoint refused a public client (401 or invalid_client): it revokes only for clients that authenticate. */
  | 'needs_client_auth'
  /** RFC 7009 §2.2.1: the server does not revoke this type of token (a JWT access token, typically); its answer, not a failure. */
  | 'unsupported_token_type'
  | 'server'
  | 'network'
  | 'timeout'
  | 'aborted';

export interface SignOutResult {
  server_url: string;
  /** Whether there was a credential to remove. */
  was_signed_in: boolean;
  /** Whether the server revoked the grant (the refresh token, or the access token when there was no refresh token). */
  revoked: boolean;
  access_token_revoked: boolean;
  reason: NotRevokedReason | null;
  /** Why, in words, when not revoked. */
  message: string | null;
  /** Until when the last access token works where the server does not check revocation (ISO), or null. */
  access_token_expires_at: string | null;
  /** Where the person can revoke the sign-in themselves: the MCP server's base URL, or the authorization server (its issuer) when that is on another origin. */
  revoke_at: string;
  /** The OAuth client the sign-in was issued to (what the person looks for among their authorized apps). */
  client_id: string;
  /** The RFC 7009 endpoint the tokens were sent to (the authorization server's `revocation_endpoint`); null when none was used. */
  revocation_endpoint: string | null;
  mcp_json: string;
  warnings: string[];
  /** The keychain that still holds the refresh token (its entry could not be removed), or null when none does. */
  refresh_kept_in: string | null;
}

export interface SignOutOptions {
  env: NodeJS.ProcessEnv;
  /** The settings in effect, as the caller read them once (where the refresh token is kept); read again when absent. */
  settings?: Pick<EffectiveSettings, 'rows'>;
  signal?: AbortSignal;
  now?: () => number;
  /** Deadline of each request to the server. */
  timeoutMs?: number;
  /** Deadline of everything asked of the server. */
  totalTimeoutMs?: number;
}

const SERVER_DEADLINE_MS = 12_000;

interface Removed {
  baseUrl: string;
  bearer: string | null;
  /** Whether the Bearer was issued for `baseUrl` (only then is it sent there). */
  bearerBelongs: boolean;
  refresh: StoredRefresh | null;
  hadApiKey: boolean;
  warnings: string[];
  keptIn: string | null;
}

function hasApiKey(entry: unknown): boolean {
  return headerValue((entry as { headers?: unknown } | undefined)?.headers, 'x-api-key') !== undefined;
}

/** The local sign-out, under the credential lock; returns what was removed (the tokens stay in memory only). */
async function signOutLocally(paths: CursorPaths, envBaseUrl: string | null, now: () => number, store: Pick<SignOutOptions, 'env' | 'settings'>): Promise<Removed> {
  const { env, settings } = store;
  return withLock(paths.refreshLock, async () => {
    const warnings: string[] = [];
    let refresh: StoredRefresh | null = null;
    try {
      refresh = readRefreshFile(paths.refresh);
    } catch {
      warnings.push(`${paths.refresh} could not be read; it was removed without being revoked.`);
    }
    // A token kept in the keychain is read (bounded) so it can be revoked; the entry is removed below either way.
    if (refresh && !refresh.refresh_token) {
      try {
        refresh = { ...refresh, refresh_token: await loadRefreshToken(refresh, { env, settings }) };
      } catch (error) {
        warnings.push(`${(error as Error).message.replace(/;.*$/, '')}; so it was not revoked.`);
      }
    }
    // mcp.json first (a file we cannot edit stops here with nothing changed), then the record, then the rest. The
    // credential to revoke is the one read under mcp.json's own lock, i.e. exactly the one removed.
    let before: McpConfig = {};
    await updateMcpConfigFile(paths.mcpJson, (config) => {
      before = config;
      return withoutCredentials(config);
    });
    const entry = agentstackEntry(before);
    const baseUrl = chooseBaseUrl(entry, envBaseUrl);
    try {
      markSignedOut(paths.signedOut, { serverUrl: mcpUrlFor(baseUrl), now: new Date(now()) });
    } catch (error) {
      warnings.push(`${paths.signedOut} could not be written (${(error as NodeJS.ErrnoException).code ?? 'error'}); a session start may offer a sign-in by itself.`);
    }
    for (const path of [paths.refresh, paths.token, paths.identity, paths.capabilities]) {
      try {
        removeIfExists(path);
      } catch (error) {
        warnings.push(`${path} could not be removed (${(error as NodeJS.ErrnoException).code ?? 'error'}); remove it by hand.`);
      }
    }
    const kept = await deleteRefreshSecrets(refresh, mcpUrlFor(baseUrl), { env, settings, paths });
    warnings.push(...kept);
    // Only the entry the record named is reported: that one held this sign-in's refresh token.
    const keptIn = kept.length > 0 && refresh?.store === 'keychain' ? refresh.keychain ?? 'system keychain' : null;
    let running = null;
    try { running = readDeviceLock(paths.deviceLock); } catch { /* unreadable: no flow to name */ }
    if (running && !isStaleDeviceLock(running, now())) {
      warnings.push(running.approved_at
        ? `A sign-in approved before this sign-out (pid ${running.pid}) was finishing; it keeps nothing: the sign-out stands.`
        : `A sign-in is still waiting for approval (pid ${running.pid}); approving its code signs this machine in again. Stop it with Ctrl-C in its window, or let it expire.`);
    }
    const bearer = bearerOf(before);
    return { baseUrl, bearer, bearerBelongs: bearer !== null && credentialsBelongTo(entry, baseUrl, issuedFor(refresh)), refresh, hadApiKey: hasApiKey(entry), warnings, keptIn };
  }, { timeoutMs: 10_000, staleMs: 20_000 });
}

function reasonOf(error: unknown): NotRevokedReason {
  if (!(error instanceof PluginError)) return 'server';
  if (error.code === 'network' || error.code === 'timeout' || error.code === 'aborted') return error.code;
  if (error.code !== 'server') return 'refused';
  // oauth4webapi reads an OAuth error only from a 4xx answer: one that names it (unsupported_token_type,
  // invalid_client, ...) is the server refusing the token; a 5xx or an answer that is not OAuth's is the server failing.
  return typeof error.details?.oauth_error === 'string' ? 'refused' : 'server';
}

interface Revocation {
  /** The endpoint asked, when there was one. */
  endpoint?: string;
  /** The authorization server that issued the tokens, when discovery named one. */
  issuer?: string;
  clientId?: string;
  revoked: boolean;
  accessRevoked: boolean;
  reason: NotRevokedReason | null;
  message: string | null;
}

/** Revokes what was removed at the server that issued it; never throws. */
async function revokeAtServer(removed: Removed, options: SignOutOptions): Promise<Revocation> {
  const { refresh, bearer } = removed;
  if (!refresh?.refresh_token && !bearer) return { revoked: false, accessRevoked: false, reason: 'not_signed_in', message: 'there was no token to revoke' };
  // The refresh token goes back only to the server it was issued for (its recorded resource), never elsewhere.
  const server = (refresh && !refreshBelongsTo(refresh, removed.baseUrl) && refresh.resource ? baseUrlFromMcpUrl(refresh.resource) : null) ?? removed.baseUrl;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const request = { signal: options.signal, timeoutMs };
  const found: { issuer?: string; clientId?: string } = {};
  let hasSecret = false;
  /** The revocation endpoint's methods when they do not include `none` and this client is public; else null. */
  let methods: string[] | null = null;
  try {
    const { clientFromEnv, discoverServer } = await import('../auth/oauth.js');
    const { revokeToken } = await import('../auth/revoke.js');
    const endpoints = await discoverServer(server, request);
    const env = clientFromEnv(options.env);
    const client = refresh?.client_id && refresh.client_id !== env.clientId ? { clientId: refresh.client_id } : env;
    Object.assign(found, { issuer: endpoints.source === 'discovery' ? endpoints.issuer : undefined, clientId: client.clientId });
    hasSecret = Boolean(client.clientSecret);
    if (!endpoints.revocationEndpoint) {
      const where = endpoints.source === 'builtin' ? 'the server publishes no OAuth metadata' : `the authorization server ${quoteShort(endpoints.issuer, 120)} names no revocation_endpoint (RFC 7009) in its metadata`;
      return { ...found, revoked: false, accessRevoked: false, reason: 'no_revocation_endpoint', message: `${where}: there is no endpoint to revoke at` };
    }
    const endpoint = endpoints.revocationEndpoint;
    const issuedBy = refresh?.token_endpoint ? new URL(refresh.token_endpoint).origin : new URL(endpoints.tokenEndpoint).origin;
    if (new URL(endpoints.revocationEndpoint).origin !== issuedBy) {
      return { ...found, revoked: false, accessRevoked: false, reason: 'refused', message: `the revocation endpoint ${quoteShort(endpoints.revocationEndpoint, 120)} is not on the server that issued the token` };
    }
    // A public client is still sent where the metadata names no `none` (some servers that list only secret methods
    // revoke a public client's tokens anyway); a refusal is then explained from the metadata, not as a bad secret.
    methods = client.clientSecret || publicClientAccepted(endpoints.revocationAuthMethods) ? null : endpoints.revocationAuthMethods ?? null;
    let revoked = false;
    if (refresh?.refresh_token) {
      await revokeToken({ endpoints, client, token: refresh.refresh_token, tokenTypeHint: 'refresh_token', mcpUrl: mcpUrlFor(server), ...request });
      revoked = true;
    }
    let accessRevoked = false;
    if (bearer && removed.bearerBelongs && server === removed.baseUrl) {
      // Many servers cannot revoke a JWT access token (RFC 7009 lets them refuse with unsupported_token_type).
      try {
        await revokeToken({ endpoints, client, token: bearer, tokenTypeHint: 'access_token', mcpUrl: mcpUrlFor(server), ...request });
        accessRevoked = true;
      } catch (error) {
        if (!refresh?.refresh_token) {
          if (oauthErrorOf(error) !== 'unsupported_token_type') throw error;
          return { ...found, endpoint, revoked: false, accessRevoked: false, reason: 'unsupported_token_type', message: `the server does not revoke access tokens (it answered unsupported_token_type, RFC 7009 §2.2.1)` };
        }
      }
    }
    return { ...found, endpoint, revoked: revoked || accessRevoked, accessRevoked, reason: revoked || accessRevoked ? null : 'refused', message: revoked || accessRevoked ? null : 'the server did not accept the access token for revocation' };
  } catch (error) {
    const reason = options.signal?.aborted ? 'aborted' : reasonOf(error);
    const refused = refusedText(error, found, hasSecret, methods);
    return { ...found, revoked: false, accessRevoked: false, reason: refused && !hasSecret ? 'needs_client_auth' : reason, message: refused ?? quoteShort((error as Error)?.message ?? 'unexpected failure', 200) };
  }
}

/** The OAuth `error` a step's PluginError carries, if any. */
function oauthErrorOf(error: unknown): string | null {
  const code = error instanceof PluginError ? error.details?.oauth_error : undefined;
  return typeof code === 'string' ? code : null;
}

/**
 * A revocation refused for want of client authentication, in words that fit the client: a public client is not
 * told to check a secret it does not have.
 */
function refusedText(error: unknown, found: { issuer?: string; clientId?: string }, hasSecret: boolean, methods: string[] | null): string | null {
  const status = error instanceof PluginError ? error.details?.status : undefined;
  if (status !== 401 && oauthErrorOf(error) !== 'invalid_client') return null;
  const who = `the client "${quoteShort(found.clientId ?? '', 60)}"`;
  const answered = `HTTP ${status ?? 401}${oauthErrorOf(error) ? `, ${oauthErrorOf(error)}` : ''}`;
  if (hasSecret) return `the server refused ${who} and its secret (${answered}); check AGENTSTACK_OAUTH_CLIENT_ID and AGENTSTACK_OAUTH_CLIENT_SECRET`;
  const server = found.issuer ? `the authorization server ${quoteShort(found.issuer, 120)}` : 'the server';
  const listed = methods ? `: its revocation_endpoint_auth_methods_supported names ${methods.slice(0, 6).map((m) => quoteShort(m, 40)).join(', ')}, not none` : '';
  return `${server} revokes only for clients that authenticate (${answered}${listed}), and ${who} is a public client with no secret`;
}

/** The MCP server's base URL, or the issuer when the authorization server is on another origin. */
function revokeAt(baseUrl: string, issuer: string | undefined): string {
  try {
    return issuer && new URL(issuer).origin !== new URL(baseUrl).origin ? issuer : baseUrl;
  } catch {
    return baseUrl;
  }
}

function clientFromEnvLite(env: NodeJS.ProcessEnv): string {
  return settingFromEnv(env, 'oauth-client-id') ?? DEFAULT_CLIENT_ID;
}

export async function signOut(options: SignOutOptions): Promise<SignOutResult> {
  const now = options.now ?? Date.now;
  const paths = cursorPaths(options.env);
  const envBaseUrl = baseUrlIn(options.env);
  const removed = await signOutLocally(paths, envBaseUrl, now, options);
  const wasSignedIn = removed.bearer !== null || removed.refresh !== null || removed.hadApiKey;
  // The server gets one overall deadline (discovery may try four documents): a hanging server cannot hold the
  // person's terminal, and the sign-out is already done.
  const controller = new AbortController();
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  if (options.signal?.aborted) abort();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; abort(); }, options.totalTimeoutMs ?? SERVER_DEADLINE_MS);
  let revocation: Revocation;
  try {
    revocation = await revokeAtServer(removed, { ...options, signal: controller.signal });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
  }
  if (timedOut && !revocation.revoked) revocation = { ...revocation, reason: 'timeout', message: `the server did not answer within ${Math.round((options.totalTimeoutMs ?? SERVER_DEADLINE_MS) / 1000)} s` };
  const expiryMs = removed.bearer ? jwtExpiryMs(removed.bearer) : null;
  const storedExpiry = removed.refresh?.expires_at ?? null;
  return {
    server_url: mcpUrlFor(removed.baseUrl),
    was_signed_in: wasSignedIn,
    revoked: revocation.revoked,
    access_token_revoked: revocation.accessRevoked,
    reason: revocation.reason,
    message: revocation.message,
    access_token_expires_at: revocation.accessRevoked || !removed.bearer ? null : expiryMs ? new Date(expiryMs).toISOString() : storedExpiry,
    revoke_at: revokeAt(removed.baseUrl, revocation.issuer),
    client_id: revocation.clientId ?? removed.refresh?.client_id ?? clientFromEnvLite(options.env),
    revocation_endpoint: revocation.endpoint ?? null,
    mcp_json: paths.mcpJson,
    warnings: removed.warnings,
    refresh_kept_in: removed.keptIn,
  };
}
