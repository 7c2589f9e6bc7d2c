/**
 * What happens once the device code is approved: the Bearer goes into mcp.json through the manager, the refresh
 * token into `agentstack-refresh`, the server's tool cache is cleared, the capability snapshot is written, and we
 * learn who signed in. Only the mcp.json write is essential; the rest is best effort and reported as warnings.
 */
import { decodeJwtClaims, jwtExpiryMs } from '../auth/jwt.js';
import { grantedScopes, uncoveredActions } from '../auth/scopes.js';
import { readSnapshot } from '../snapshot/store.js';
import { notAgentStackText } from '../snapshot/layout.js';
import { applyBearer } from '../mcpJson/entry.js';
import { tokenFingerprint } from '../mcpJson/credential.js';
import { unwritableReason, withLock } from '../../platform/fs/fileLock.js';
import { symlinkNotice, updateMcpConfigFile } from '../mcpJson/file.js';
import { clientAuthMethod } from '../auth/clientAuth.js';
import { expiresAtOf, type OAuthClient, type OAuthEndpoints, type TokenSet } from '../auth/oauth.js';
import type { CursorPaths } from '../server/paths.js';
import { clearRefreshFile, readRefreshFile, type StoredRefresh } from '../auth/refreshStore.js';
import { deleteRefreshSecrets, saveRefresh } from '../credentials/credentialStore.js';
import { clearTokenFacts, writeTokenFacts } from '../auth/tokenFacts.js';
import { PluginError, quoteShort } from '../../platform/errors.js';
import { mcpUrlFor } from '../server/baseUrl.js';
import { clearSignedOut, isSignedOut, signedOutAt } from '../auth/signedOut.js';
import { removeIfExists } from '../../platform/fs/secureFile.js';
import type { EffectiveSettings } from '../settings/effective.js';

export interface FinishArgs {
  tokens: TokenSet;
  baseUrl: string;
  endpoints: OAuthEndpoints;
  client: OAuthClient;
  paths: CursorPaths;
  projectId: number | null;
  signal?: AbortSignal;
  now?: () => number;
  /** Deadline of each best-effort request. */
  bestEffortTimeoutMs?: number;
  /** When the code was approved (epoch ms; default: now): a sign-out after it wins over this sign-in. */
  approvedAt?: number;
  /** The settings in effect (credential-store: where the refresh token is kept); process.env when absent. */
  env?: NodeJS.ProcessEnv;
  /** The settings in effect, as the caller read them once (credential-store and who set it); read again when absent. */
  settings?: Pick<EffectiveSettings, 'rows'>;
}

export interface FinishResult {
  server_url: string;
  /** The mcp.json written. */
  mcp_json: string;
  project_id: number | null;
  expires_at: string | null;
  capabilities: number | null;
  /** Catalog entries left out of the snapshot as malformed (null: none). */
  skipped?: { count: number; reason: string | null } | null;
  who: string | null;
  /** The scopes granted (null: neither the token nor the token response lists them). */
  scopes: string[] | null;
  /** Actions of the snapshot that need a scope the grant lacks (null: no snapshot). */
  uncovered_actions: number | null;
  refresh_stored: boolean;
  /** Where the refresh token is kept: `keychain` or `file` (null: none was issued). */
  refresh_store?: 'keychain' | 'file' | null;
  warnings: string[];
}

/** A refresh holds the lock for one bounded request; a holder older than `staleMs` is broken, so this wait ends. */
const CREDENTIAL_LOCK = { timeoutMs: 25_000, staleMs: 20_000 };

/** A file error while saving the credential, as the person must read it (the folder, the reason, what to do). */
function unsaved(error: unknown, dir: string): unknown {
  if (error instanceof PluginError) return error;
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.code !== 'string') return error;
  const where = typeof errno.path === 'string' ? errno.path : dir;
  return new PluginError('io', `Could not save the sign-in to ${where} (${unwritableReason(errno.code)}); check that ${dir} is writable, then sign in again.`, { cause: error, details: { path: where, errno: errno.code } });
}

export async function finishSignIn(args: FinishArgs): Promise<FinishResult> {
  const now = args.now ?? Date.now;
  const { tokens, baseUrl, paths } = args;
  const expiryMs = jwtExpiryMs(tokens.access_token);
  const expiresAt = expiresAtOf(tokens, now()) ?? (expiryMs ? new Date(expiryMs).toISOString() : null);
  // Under the lock every writer of the credential holds: a refresh in flight finishes (or gives up) first and then
  // finds the credential changed, so it never writes the old grant back over this one.
  const approvedAt = args.approvedAt ?? now();
  const written = await withLock(paths.refreshLock, async () => {
    // A sign-out after the approval is the person's last word: nothing of this sign-in is kept.
    const signedOut = signedOutAt(paths.signedOut);
    if (signedOut !== null && signedOut >= approvedAt) {
      throw new PluginError('aborted', 'You signed out while this sign-in was finishing, so nothing was saved. Sign in again with /agentstack-login when you want to.');
    }
    // The refresh token is written before the access token is used, so a crash in between never loses the grant.
    let previous: StoredRefresh | null = null;
    try { previous = readRefreshFile(paths.refresh); } catch { /* replaced below */ }
    const env = args.env ?? process.env;
    let store: 'keychain' | 'file' | null = null;
    let fellBack: string | null = null;
    if (tokens.refresh_token) {
      const saved = await saveRefresh({ env, settings: args.settings, paths, previous, onFallback: (reason) => { fellBack = reason; }, record: {
        refresh_token: tokens.refresh_token,
        scope: tokens.scope ?? null,
        token_type: tokens.token_type,
        obtained_at: new Date(now()).toISOString(),
        expires_at: expiresAt,
        token_endpoint: args.endpoints.tokenEndpoint,
        client_id: args.client.clientId,
        token_endpoint_auth_method: clientAuthMethod(args.endpoints.tokenAuthMethods, Boolean(args.client.clientSecret)),
        resource: args.endpoints.resource,
        access_token_sha256: tokenFingerprint(tokens.access_token),
      } });
      store = saved.store === 'keychain' ? 'keychain' : 'file';
      clearTokenFacts(paths.token);
    } else {
      clearRefreshFile(paths.refresh);
      await deleteRefreshSecrets(previous, null, { env, settings: args.settings, paths });
      // The token's end is kept even without a refresh token (`expires_in`, else the JWT's `exp`).
      writeTokenFacts(paths.token, { expires_at: expiresAt, access_token_sha256: tokenFingerprint(tokens.access_token), resource: args.endpoints.resource });
    }
    const result = await updateMcpConfigFile(paths.mcpJson, (config) => applyBearer(config, { token: tokens.access_token, baseUrl, projectId: args.projectId }));
    clearSignedOut(paths.signedOut);
    return { ...result, store, fellBack };
  }, CREDENTIAL_LOCK).catch((error: unknown) => { throw unsaved(error, paths.dir); });

  const warnings: string[] = [];
  const notice = symlinkNotice(written);
  if (notice) warnings.push(notice);
  if (written.fellBack) warnings.push(`The refresh token is kept in ${paths.refresh} (readable only by you), not in the system keychain: ${written.fellBack}.`);
  const timeoutMs = args.bestEffortTimeoutMs ?? 5_000;
  const { httpRequest } = await import('../../platform/net/http.js');
  const auth = { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' };
  // From here on the person is signed in: a Ctrl-C skips the remaining best-effort steps and the result still says
  // signed in, because that is what the files now hold.
  const cancelled = (what: string) => { warnings.push(`${what}: skipped, the sign-in was cancelled after it was saved`); return null; };
  const attempt = async <T>(what: string, fn: () => Promise<T>): Promise<T | null> => {
    if (args.signal?.aborted) return cancelled(what);
    try {
      return await fn();
    } catch (error) {
      if (args.signal?.aborted) return cancelled(what);
      warnings.push(`${what}: ${quoteShort((error as Error).message, 160)}`);
      return null;
    }
  };

  // The tool cache first (the catalog read next may depend on it); its words wait until we know the server serves it.
  const cacheWarnings: string[] = [];
  const kept = warnings.length;
  await attempt('Clearing the server tool cache', async () => {
    const res = await httpRequest({ url: `${baseUrl}/mcp/cache/clear`, method: 'POST', headers: auth, timeoutMs, signal: args.signal });
    if (res.status >= 400) throw new Error(`HTTP ${res.status}`);
  });
  cacheWarnings.push(...warnings.splice(kept));
  const { refreshSnapshot } = await import('../snapshot/refresh.js');
  // A snapshot failure is already a result (reported below); only a cancel throws, and `attempt` turns that into null.
  const saved = await attempt('Saving the capability snapshot', () => refreshSnapshot({
    path: paths.capabilities, failurePath: paths.capabilitiesFailure, baseUrl, token: tokens.access_token, timeoutMs,
    revalidate: false, signal: args.signal, now,
  }));
  // AgentStack's own endpoints (the catalog, the tool cache, who signed in) mean something only on a server that
  // serves them: one without the catalog is not AgentStack, which is said once instead of one failure per endpoint.
  const agentstack = !(saved?.kind === 'failed' && saved.notServed);
  if (!agentstack) {
    warnings.splice(kept, warnings.length - kept, notAgentStackText(baseUrl));
  } else {
    warnings.splice(kept, 0, ...cacheWarnings);
    if (saved?.kind === 'failed') warnings.push(`Saving the capability snapshot: ${saved.message}`);
  }
  const capabilities = !saved || saved.kind === 'failed' ? null : saved.count;
  const skipped = !saved || saved.kind === 'failed' || !saved.skipped ? null : { count: saved.skipped, reason: saved.skippedReason };
  const who = !agentstack ? null : await attempt('Looking up who signed in', async () => {
    const { lookUpIdentity } = await import('../auth/identity.js');
    return lookUpIdentity({ baseUrl, token: tokens.access_token, identityPath: paths.identity, timeoutMs, signal: args.signal, now: new Date(now()) });
  });
  // A sign-out that came while these were fetched removed the credential; what they wrote for it goes too (this
  // sign-in cleared the record under the lock, so a record now is a later sign-out).
  const signedOutSince = await withLock(paths.refreshLock, async () => {
    if (!isSignedOut(paths.signedOut)) return false;
    for (const path of [paths.capabilities, paths.identity]) {
      try { removeIfExists(path); } catch { /* best effort */ }
    }
    return true;
  }, CREDENTIAL_LOCK);
  if (signedOutSince) warnings.push('You signed out while this sign-in was finishing; the sign-out stands and nothing of this sign-in was kept.');
  const scopes = grantedScopes(decodeJwtClaims(tokens.access_token), tokens.scope);
  let uncovered: number | null = null;
  if (capabilities !== null) {
    try { uncovered = uncoveredActions(readSnapshot(paths.capabilities)?.actions ?? [], scopes); } catch { /* reported as unknown */ }
  }
  return {
    server_url: mcpUrlFor(baseUrl),
    mcp_json: paths.mcpJson,
    project_id: args.projectId,
    expires_at: expiresAt,
    capabilities,
    skipped,
    who,
    scopes,
    uncovered_actions: uncovered,
    refresh_stored: Boolean(tokens.refresh_token),
    refresh_store: written.store,
    warnings,
  };
}
