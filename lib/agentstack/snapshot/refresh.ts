/**
 * Refreshing the capability snapshot (missing or older than 24 h) with `If-None-Match`: 304 only moves
 * `fetched_at`; 200 is diffed against the previous snapshot (snapshotDiff.ts) and the diff recorded.
 */
import { fetchCatalog, flattenCatalog, readSnapshot, writeSnapshot } from './catalog.js';
import { quoteShort } from '../../platform/errors.js';
import { mcpUrlFor } from '../server/baseUrl.js';
import { applySnapshotDiff, type SnapshotDiff } from './diff.js';

export type SnapshotRefresh =
  | { kind: 'not_modified'; count: number }
  | { kind: 'updated'; count: number; diff: SnapshotDiff }
  | { kind: 'failed'; message: string; unauthorized: boolean };

export async function refreshSnapshot(args: { path: string; baseUrl: string; token: string; timeoutMs: number; now: () => number }): Promise<SnapshotRefresh> {
  const serverUrl = mcpUrlFor(args.baseUrl);
  const previous = readSnapshot(args.path);
  const usable = previous && (!previous.server_url || previous.server_url === serverUrl) ? previous : null;
  try {
    const fetched = await fetchCatalog({ baseUrl: args.baseUrl, token: args.token, etag: usable?.catalog_etag ?? null, timeoutMs: args.timeoutMs });
    const at = new Date(args.now());
    if (fetched.status === 'not_modified' && usable) {
      writeSnapshot(args.path, { ...usable, fetched_at: at.toISOString() });
      return { kind: 'not_modified', count: usable.actions.length };
    }
    if (fetched.status === 'not_modified') return { kind: 'failed', message: 'the server answered 304 without a snapshot to keep', unauthorized: false };
    const current = flattenCatalog(fetched.catalog, { fetchedAt: at, serverUrl });
    const { snapshot, diff } = applySnapshotDiff(previous, { ...current, catalog_etag: fetched.etag ?? current.catalog_etag }, at);
    writeSnapshot(args.path, snapshot);
    return { kind: 'updated', count: snapshot.actions.length, diff };
  } catch (error) {
    const code = (error as { code?: string })?.code;
    return { kind: 'failed', message: quoteShort((error as Error)?.message ?? 'unexpected failure', 200), unauthorized: code === 'invalid_grant' };
  }
}
