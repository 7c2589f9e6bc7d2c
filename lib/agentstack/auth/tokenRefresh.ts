/**
 * Refreshing the access token at session start, single-flight across processes: under a lock next to
 * `agentstack-refresh`, the state is read again and the refresh runs only if it is still needed, so when many
 * sessions start at once exactly one refresh request reaches the server and the others pick up its result. The
 * rotated refresh token is stored before the new Bearer is written (a crash in between never loses the grant), and
 * `invalid_grant` clears the stored token: the caller moves to sign-in and never retries.
 *
 * Every writer of the credential (sign-in, this refresh, diagnose --fix) holds the same lock, and the answer is
 * written only if the credential is still the one the refresh started from (compare and swap): a sign-in that
 * lands while the request is in flight is never undone, and an `invalid_grant` for a credential that is no longer
 * current changes nothing.
 */
import { withLock } from '../../platform/fs/fileLock.js';
import { PluginError, isPluginError, quoteShort } from '../../platform/errors.js';
import { bearerOf, classifyCredential, needsRefresh, refusedView, tokenFingerprint } from '../mcpJson/credential.js';
import { jwtExpiryMs } from './jwt.js';
import { mcpUrlFor } from '../server/baseUrl.js';
import { applyBearer } from '../mcpJson/entry.js';
import { readMcpConfigFile, updateMcpConfigFile } from '../mcpJson/file.js';
import type { CursorPaths } from '../server/paths.js';
import { clearRefreshFile, readRefreshFile, refreshBelongsTo, refreshIdentity, type StoredRefresh } from './refreshStore.js';
import { deleteRefreshSecrets, loadRefreshToken, saveRefresh, storeChoice, type StoreOptions } from '../credentials/credentialStore.js';
import { fileTokenRefusal } from '../credentials/storeFacts.js';
import { clientAuthMethod, type ClientAuthMethod } from './clientAuth.js';
import { recordRefusal } from '../snapshot/refusal.js';

export type RefreshOutcome =
  | { kind: 'not_needed' }
  | { kind: 'no_refresh_token' }
  | { kind: 'refreshed'; token: string; byThisProcess: boolean }
  | { kind: 'invalid_grant'; message: string }
  /** The credential changed while the request was in flight (a new sign-in): the answer was dropped. */
  | { kind: 'superseded' }
  | { kind: 'failed'; message: string };

export interface TokenRefreshArgs {
  paths: CursorPaths;
  env: NodeJS.ProcessEnv;
  /** The settings in effect with their origins (settings/effective.ts): where the refresh token is kept. */
  settings?: StoreOptions['settings'];
  baseUrl: string;
  deadline: number;
  /** The Bearer this process saw when it decided to refresh (null: none). */
  seenToken: string | null;
  /** The server refused `seenToken` (401) or it expired: refresh it even when its own expiry is unknown. */
  refused?: boolean;
  now?: () => number;
}

function readStored(path: string): StoredRefresh | null {
  try {
    return readRefreshFile(path);
  } catch {
    return null;
  }
}

/** Lets only a credential still current be replaced: the refresh file holds the refresh token we sent, the entry the Bearer we saw. */
function stillCurrent(path: string, stored: StoredRefresh, config: Parameters<typeof bearerOf>[0], startToken: string | null): boolean {
  return refreshIdentity(readStored(path)) === refreshIdentity(stored) && bearerOf(config) === startToken;
}

class Superseded extends Error {}

/** The stored method, when it is one this plugin sends; null otherwise (the way a record without one was obtained). */
function authMethodOf(value: string | null | undefined): ClientAuthMethod | null {
  return value === 'none' || value === 'client_secret_basic' || value === 'client_secret_post' ? value : null;
}

async function refreshNow(args: TokenRefreshArgs, stored: StoredRefresh, startToken: string | null): Promise<string> {
  const now = args.now ?? Date.now;
  // An organization that requires the keychain: a token the file holds is never sent.
  const refusal = fileTokenRefusal(storeChoice({ env: args.env, settings: args.settings }), stored);
  if (refusal) throw new PluginError('keychain', refusal);
  // A token in the keychain is asked for while the OAuth code loads (a keychain call is a process of its own).
  const loading = loadRefreshToken(stored, { env: args.env, settings: args.settings });
  loading.catch(() => { /* awaited below */ });
  const oauth = await import('./oauth.js');
  const timeoutMs = Math.max(500, Math.min(5_000, args.deadline - now() - 300));
  const client = oauth.clientFromEnv(args.env);
  const discovered = stored.token_endpoint ? null : await oauth.discoverServer(args.baseUrl, { timeoutMs });
  const tokenEndpoint = stored.token_endpoint ?? discovered!.tokenEndpoint;
  const clientId = stored.client_id ?? client.clientId;
  const clientSecret = clientId === client.clientId ? client.clientSecret : undefined;
  // The method chosen from the metadata at sign-in; a record without one was obtained with the secret in the body.
  const authMethod = discovered ? clientAuthMethod(discovered.tokenAuthMethods, Boolean(clientSecret)) : authMethodOf(stored.token_endpoint_auth_method);
  const resource = stored.resource ?? mcpUrlFor(args.baseUrl);
  const refreshToken = await loading;
  const tokens = await oauth.refreshAccessToken({
    tokenEndpoint,
    clientId,
    clientSecret,
    refreshToken,
    resource,
    mcpUrl: mcpUrlFor(args.baseUrl),
    authMethod,
    timeoutMs,
  });
  const expiry = jwtExpiryMs(tokens.access_token);
  // The rotated token is saved (in the keychain, or the file) before the new Bearer is written, and only while the
  // credential is still the one this refresh started from (checked again under mcp.json's lock below).
  if (!stillCurrent(args.paths.refresh, stored, readMcpConfigFile(args.paths.mcpJson).config, startToken)) throw new Superseded();
  const { refresh_token: _old, ...record } = stored;
  const saved = await saveRefresh({ env: args.env, settings: args.settings, paths: args.paths, previous: stored, record: {
      ...record,
      refresh_token: tokens.refresh_token ?? refreshToken,
      scope: tokens.scope ?? stored.scope ?? null,
      token_type: tokens.token_type,
      obtained_at: new Date(now()).toISOString(),
      expires_at: oauth.expiresAtOf(tokens, now()) ?? (expiry ? new Date(expiry).toISOString() : null),
      token_endpoint: tokenEndpoint,
      client_id: clientId,
      token_endpoint_auth_method: authMethod,
      resource,
      access_token_sha256: tokenFingerprint(tokens.access_token),
  } });
  // The grant is spent and the old refresh token gone: the new Bearer waits for mcp.json's other writers as long as
  // this refresh's own deadline allows, not the lock's usual 5 s (on a busy machine they can hold it longer).
  await updateMcpConfigFile(args.paths.mcpJson, (config) => {
    if (!stillCurrent(args.paths.refresh, saved, config, startToken)) throw new Superseded();
    return applyBearer(config, { token: tokens.access_token, baseUrl: args.baseUrl });
  }, { timeoutMs: Math.max(5_000, args.deadline - now() - 100) });
  return tokens.access_token;
}

export async function refreshSingleFlight(args: TokenRefreshArgs): Promise<RefreshOutcome> {
  const now = args.now ?? Date.now;
  const first = readStored(args.paths.refresh);
  if (!first) return { kind: 'no_refresh_token' };
  if (!refreshBelongsTo(first, args.baseUrl)) {
    return { kind: 'failed', message: `the stored refresh token is for ${quoteShort(first.resource ?? first.token_endpoint ?? 'another server', 120)}, not ${mcpUrlFor(args.baseUrl)}; sign in to this server with /agentstack-authorize` };
  }
  try {
    return await withLock(args.paths.refreshLock, async () => {
      // Another process may have refreshed while we waited: a Bearer other than the one we saw, still valid, is its
      // result (comparing tokens, not expiry: a short-lived grant's new token may itself be inside the window).
      const stored = readStored(args.paths.refresh);
      const config = readMcpConfigFile(args.paths.mcpJson).config;
      const gate = refusedView(classifyCredential({ config, storedExpiresAt: stored?.expires_at, now: now() }), args.refused === true && bearerOf(config) === args.seenToken, now());
      if (gate.token && gate.state !== 'expired' && (gate.token !== args.seenToken || !needsRefresh(gate, now()))) {
        return { kind: 'refreshed', token: gate.token, byThisProcess: false } as const;
      }
      if (!stored) return { kind: 'no_refresh_token' } as const;
      try {
        return { kind: 'refreshed', token: await refreshNow(args, stored, gate.token), byThisProcess: true } as const;
      } catch (error) {
        if (error instanceof Superseded) return { kind: 'superseded' } as const;
        if (isPluginError(error, 'invalid_grant')) {
          if (!stillCurrent(args.paths.refresh, stored, readMcpConfigFile(args.paths.mcpJson).config, gate.token)) return { kind: 'superseded' } as const;
          clearRefreshFile(args.paths.refresh);
          await deleteRefreshSecrets(stored, null, { env: args.env, settings: args.settings, paths: args.paths });
          // The token the renewal was for is dead too: every view calls it a refused renewal, not an expiry.
          if (gate.token) {
            try {
              recordRefusal({ failurePath: args.paths.capabilitiesFailure, serverUrl: mcpUrlFor(args.baseUrl), token: gate.token, message: 'the server refused to renew the token (invalid_grant)', now: now(), renewalRefused: true });
            } catch { /* the views then call it expired */ }
          }
          return { kind: 'invalid_grant', message: quoteShort((error as Error).message, 200) } as const;
        }
        throw error;
      }
    }, { timeoutMs: Math.max(0, args.deadline - now() - 500), staleMs: 20_000 });
  } catch (error) {
    const message = isPluginError(error, 'locked') ? 'another session is refreshing the token right now' : quoteShort((error as Error)?.message ?? 'unexpected failure', 200);
    return { kind: 'failed', message };
  }
}
