/**
 * Refreshing the access token at session start, single-flight across processes: under a lock next to
 * `agentstack-refresh`, the state is read again and the refresh runs only if it is still needed, so when many
 * sessions start at once exactly one refresh request reaches the server and the others pick up its result. The
 * rotated refresh token is stored before the new Bearer is written (a crash in between never loses the grant), and
 * `invalid_grant` clears the stored token: the caller moves to sign-in and never retries.
 */
import { withLock } from '../../platform/fs/fileLock.js';
import { isPluginError, quoteShort } from '../../platform/errors.js';
import { classifyCredential, needsRefresh } from '../mcpJson/credential.js';
import { jwtExpiryMs } from './jwt.js';
import { mcpUrlFor } from '../server/baseUrl.js';
import { applyBearer } from '../mcpJson/entry.js';
import { readMcpConfigFile, updateMcpConfigFile } from '../mcpJson/file.js';
import type { CursorPaths } from '../server/paths.js';
import { clearRefreshFile, readRefreshFile, writeRefreshFile, type StoredRefresh } from './refreshStore.js';

export type RefreshOutcome =
  | { kind: 'not_needed' }
  | { kind: 'no_refresh_token' }
  | { kind: 'refreshed'; token: string; byThisProcess: boolean }
  | { kind: 'invalid_grant'; message: string }
  | { kind: 'failed'; message: string };

export interface TokenRefreshArgs {
  paths: CursorPaths;
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  deadline: number;
  /** The Bearer this process saw when it decided to refresh (null: none). */
  seenToken: string | null;
  now?: () => number;
}

function readStored(path: string): StoredRefresh | null {
  try {
    return readRefreshFile(path);
  } catch {
    return null;
  }
}

async function refreshNow(args: TokenRefreshArgs, stored: StoredRefresh): Promise<string> {
  const now = args.now ?? Date.now;
  const oauth = await import('./oauth.js');
  const timeoutMs = Math.max(500, Math.min(5_000, args.deadline - now() - 300));
  const client = oauth.clientFromEnv(args.env);
  const tokenEndpoint = stored.token_endpoint ?? (await oauth.discoverEndpoints(args.baseUrl, { timeoutMs })).tokenEndpoint;
  const clientId = stored.client_id ?? client.clientId;
  const resource = stored.resource ?? mcpUrlFor(args.baseUrl);
  const tokens = await oauth.refreshAccessToken({
    tokenEndpoint,
    clientId,
    clientSecret: clientId === client.clientId ? client.clientSecret : undefined,
    refreshToken: stored.refresh_token,
    resource,
    timeoutMs,
  });
  const expiry = jwtExpiryMs(tokens.access_token);
  writeRefreshFile(args.paths.refresh, {
    ...stored,
    refresh_token: tokens.refresh_token ?? stored.refresh_token,
    scope: tokens.scope ?? stored.scope ?? null,
    token_type: tokens.token_type,
    obtained_at: new Date(now()).toISOString(),
    expires_at: oauth.expiresAtOf(tokens, now()) ?? (expiry ? new Date(expiry).toISOString() : null),
    token_endpoint: tokenEndpoint,
    client_id: clientId,
    resource,
  });
  await updateMcpConfigFile(args.paths.mcpJson, (config) => applyBearer(config, { token: tokens.access_token, baseUrl: args.baseUrl }));
  return tokens.access_token;
}

/**
 * Whether a stored refresh token belongs to `baseUrl`'s server: its recorded resource (or token endpoint) must name
 * it. A refresh token for another server is never sent anywhere from here, and never cleared by this server's
 * `invalid_grant`. The old plain-text form records nothing; only the Bearer check vouches for it.
 */
export function refreshBelongsTo(stored: StoredRefresh, baseUrl: string): boolean {
  if (stored.resource) return stored.resource === mcpUrlFor(baseUrl);
  if (stored.token_endpoint) {
    try { return new URL(stored.token_endpoint).origin === new URL(baseUrl).origin; } catch { return false; }
  }
  return true;
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
      const gate = classifyCredential({ config: readMcpConfigFile(args.paths.mcpJson).config, storedExpiresAt: stored?.expires_at, now: now() });
      if (gate.token && gate.state !== 'expired' && (gate.token !== args.seenToken || !needsRefresh(gate, now()))) {
        return { kind: 'refreshed', token: gate.token, byThisProcess: false } as const;
      }
      if (!stored) return { kind: 'no_refresh_token' } as const;
      try {
        return { kind: 'refreshed', token: await refreshNow(args, stored), byThisProcess: true } as const;
      } catch (error) {
        if (isPluginError(error, 'invalid_grant')) {
          clearRefreshFile(args.paths.refresh);
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
