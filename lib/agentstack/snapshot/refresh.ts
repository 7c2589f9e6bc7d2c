/**
 * Fetch + diff + write, the one way the capability snapshot is renewed (sign-in and session start both use it).
 * With `revalidate`, the previous snapshot's etag is sent: 304 only moves `fetched_at`. A 200 is diffed against the
 * previous snapshot (diff.ts) and the diff recorded. A failure is recorded beside the snapshot (store.ts) so
 * session start can say so and wait before trying again; a success removes that record.
 */
import { quoteShort } from '../../platform/errors.js';
import { mcpUrlFor } from '../server/baseUrl.js';
import { recordRefusal } from './refusal.js';
import { flattenCatalog } from './catalog.js';
import { applySnapshotDiff, type SnapshotDiff } from './diff.js';
import { fetchCatalog } from './fetch.js';
import { clearSnapshotFailure, readSnapshot, writeSnapshot, writeSnapshotFailure } from './store.js';

export interface SnapshotCounts {
  /** Actions in the snapshot now. */
  count: number;
  /** Catalog entries left out as malformed, and why the first was. */
  skipped: number;
  skippedReason: string | null;
}

export type SnapshotRefresh =
  | ({ kind: 'not_modified' } & SnapshotCounts)
  | ({ kind: 'updated'; diff: SnapshotDiff } & SnapshotCounts)
  /** `notServed`: the server answered 404, so it serves no capability list (it is not AgentStack). */
  | { kind: 'failed'; message: string; unauthorized: boolean; notServed?: boolean };

export interface RefreshSnapshotArgs {
  path: string;
  /** Where a failure is recorded. */
  failurePath: string;
  baseUrl: string;
  token: string;
  timeoutMs: number;
  /** Send the previous snapshot's etag (session start); a sign-in fetches the whole catalog. */
  revalidate: boolean;
  signal?: AbortSignal;
  now: () => number;
}

function previousSnapshot(path: string) {
  try {
    return readSnapshot(path);
  } catch {
    return null; // unreadable (a folder, no permission): the write below reports what is wrong
  }
}

export async function refreshSnapshot(args: RefreshSnapshotArgs): Promise<SnapshotRefresh> {
  const serverUrl = mcpUrlFor(args.baseUrl);
  try {
    const previous = previousSnapshot(args.path);
    const usable = previous && (!previous.server_url || previous.server_url === serverUrl) ? previous : null;
    const etag = args.revalidate ? usable?.catalog_etag ?? null : null;
    const fetched = await fetchCatalog({ baseUrl: args.baseUrl, token: args.token, etag, signal: args.signal, timeoutMs: args.timeoutMs });
    const at = new Date(args.now());
    let result: SnapshotRefresh;
    if (fetched.kind === 'not_modified') {
      if (!usable) throw new Error(etag ? 'the server answered 304 without a snapshot to keep' : 'the server answered 304 to a request without an etag');
      writeSnapshot(args.path, { ...usable, fetched_at: at.toISOString() });
      result = { kind: 'not_modified', count: usable.actions.length, skipped: usable.skipped_entries ?? 0, skippedReason: usable.skipped_reason ?? null };
    } else {
      const current = flattenCatalog(fetched.catalog, { fetchedAt: at, serverUrl });
      // The diff keeps actions the person has not approved unapproved, also across a new sign-in; a first snapshot,
      // or one from another server, starts approved.
      const { snapshot, diff } = applySnapshotDiff(previous, { ...current, catalog_etag: fetched.etag ?? current.catalog_etag }, at);
      writeSnapshot(args.path, snapshot);
      result = { kind: 'updated', count: snapshot.actions.length, diff, skipped: fetched.catalog.skipped, skippedReason: fetched.catalog.skippedReason };
    }
    try { clearSnapshotFailure(args.failurePath); } catch { /* a stale record only delays the next retry */ }
    return result;
  } catch (error) {
    if (args.signal?.aborted) throw error;
    const code = (error as { code?: string })?.code;
    const status = (error as { details?: { status?: unknown } })?.details?.status;
    const failed = { kind: 'failed' as const, message: failureMessage(error, args.path), unauthorized: code === 'invalid_grant', ...(status === 404 ? { notServed: true } : {}) };
    try {
      if (failed.unauthorized) recordRefusal({ failurePath: args.failurePath, serverUrl, token: args.token, message: failed.message, now: args.now() });
      else writeSnapshotFailure(args.failurePath, {
        at: new Date(args.now()).toISOString(), server_url: serverUrl, message: failed.message, unauthorized: false,
        ...(failed.notServed ? { not_served: true } : {}),
      });
    } catch { /* without the record, the next session start simply tries again */ }
    return failed;
  }
}

function failureMessage(error: unknown, path: string): string {
  const errno = (error as NodeJS.ErrnoException)?.code;
  if (errno === 'EISDIR') return `${path} is a folder, not a file`;
  return quoteShort((error as Error)?.message ?? 'unexpected failure', 200);
}
