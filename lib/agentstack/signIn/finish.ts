/**
 * What happens once the device code is approved: the Bearer goes into mcp.json through the manager, the refresh
 * token into `agentstack-refresh`, the server's tool cache is cleared, the capability snapshot is written, and we
 * learn who signed in. Only the mcp.json write is essential; the rest is best effort and reported as warnings.
 */
import { jwtExpiryMs } from '../auth/jwt.js';
import { applyBearer } from '../mcpJson/entry.js';
import { symlinkNotice, updateMcpConfigFile } from '../mcpJson/file.js';
import { expiresAtOf, type OAuthClient, type OAuthEndpoints, type TokenSet } from '../auth/oauth.js';
import type { CursorPaths } from '../server/paths.js';
import { clearRefreshFile, writeRefreshFile } from '../auth/refreshStore.js';
import { MeSchema } from '../../schemas/server.js';
import { quoteShort } from '../../platform/errors.js';
import { rememberIdentity } from '../auth/identity.js';
import { clearSignedOut } from '../auth/signedOut.js';

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
}

export interface FinishResult {
  server_url: string;
  /** The mcp.json written. */
  mcp_json: string;
  project_id: number | null;
  expires_at: string | null;
  capabilities: number | null;
  who: string | null;
  refresh_stored: boolean;
  warnings: string[];
}

export async function finishSignIn(args: FinishArgs): Promise<FinishResult> {
  const now = args.now ?? Date.now;
  const { tokens, baseUrl, paths } = args;
  const expiryMs = jwtExpiryMs(tokens.access_token);
  const expiresAt = expiresAtOf(tokens, now()) ?? (expiryMs ? new Date(expiryMs).toISOString() : null);
  // The refresh token is written before the access token is used, so a crash in between never loses the grant.
  if (tokens.refresh_token) {
    writeRefreshFile(paths.refresh, {
      refresh_token: tokens.refresh_token,
      scope: tokens.scope ?? null,
      token_type: tokens.token_type,
      obtained_at: new Date(now()).toISOString(),
      expires_at: expiresAt,
      token_endpoint: args.endpoints.tokenEndpoint,
      client_id: args.client.clientId,
      resource: args.endpoints.resource,
    });
  } else {
    clearRefreshFile(paths.refresh);
  }
  const written = await updateMcpConfigFile(paths.mcpJson, (config) => applyBearer(config, { token: tokens.access_token, baseUrl, projectId: args.projectId }));
  clearSignedOut(paths.signedOut);

  const warnings: string[] = [];
  const notice = symlinkNotice(written);
  if (notice) warnings.push(notice);
  const timeoutMs = args.bestEffortTimeoutMs ?? 5_000;
  const { httpRequest, parseJson } = await import('../../platform/http.js');
  const auth = { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' };
  const attempt = async <T>(what: string, fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (error) {
      if (args.signal?.aborted) throw error;
      warnings.push(`${what}: ${quoteShort((error as Error).message, 160)}`);
      return null;
    }
  };

  await attempt('Clearing the server tool cache', async () => {
    const res = await httpRequest({ url: `${baseUrl}/mcp/cache/clear`, method: 'POST', headers: auth, timeoutMs, signal: args.signal });
    if (res.status >= 400) throw new Error(`HTTP ${res.status}`);
  });
  const capabilities = await attempt('Saving the capability snapshot', async () => {
    const { fetchCatalog, flattenCatalog, readSnapshot, writeSnapshot } = await import('../snapshot/catalog.js');
    const { applySnapshotDiff } = await import('../snapshot/diff.js');
    const fetched = await fetchCatalog({ baseUrl, token: tokens.access_token, signal: args.signal, timeoutMs });
    if (fetched.status !== 'ok') throw new Error('the server answered 304 to a request without an etag');
    const current = flattenCatalog(fetched.catalog, { fetchedAt: new Date(now()), serverUrl: `${baseUrl}/mcp` });
    // Signing in again must not approve what the server added meanwhile: the diff against the previous snapshot
    // keeps unapproved actions unapproved (a first snapshot, or one from another server, starts approved).
    let previous = null;
    try { previous = readSnapshot(paths.capabilities); } catch { /* unreadable: start afresh */ }
    const { snapshot } = applySnapshotDiff(previous, { ...current, catalog_etag: fetched.etag ?? current.catalog_etag }, new Date(now()));
    writeSnapshot(paths.capabilities, snapshot);
    return snapshot.total_actions;
  });
  const who = await attempt('Looking up who signed in', async () => {
    const res = await httpRequest({ url: `${baseUrl}/api/auth/me`, headers: auth, timeoutMs, signal: args.signal });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    const me = parseJson(res, MeSchema, 'The account').data;
    const name = quoteShort(me.email || me.display_name || String(me.user_id), 120);
    rememberIdentity(paths.identity, { who: name, token: tokens.access_token, serverUrl: `${baseUrl}/mcp`, now: new Date(now()) });
    return name;
  });
  return {
    server_url: `${baseUrl}/mcp`,
    mcp_json: paths.mcpJson,
    project_id: args.projectId,
    expires_at: expiresAt,
    capabilities,
    who,
    refresh_stored: Boolean(tokens.refresh_token),
    warnings,
  };
}
