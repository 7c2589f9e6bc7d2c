/**
 * The capability snapshot at session start. The fast path reads only its top level (a full per-entry parse of
 * 5,000 actions costs more than the hook's whole budget); the refresh (missing or older than 24 h) fetches with
 * `If-None-Match`: 304 only moves `fetched_at`, 200 is diffed against the previous snapshot (snapshotDiff.ts).
 */
import * as z from 'zod/mini';
import { quoteShort } from '../errors.js';
import type { SnapshotDiff } from '../snapshotDiff.js';
import { readTextIfExists } from '../secureFile.js';

export const SNAPSHOT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const SnapshotMetaSchema = z.looseObject({
  fetched_at: z.string(),
  audience: z.literal('tenant'),
  server_url: z.optional(z.nullable(z.string())),
  total_actions: z.number(),
  actions: z.unknown(),
  unapproved: z.optional(z.nullable(z.array(z.string()))),
  last_diff: z.optional(z.nullable(z.looseObject({ at: z.string(), added: z.array(z.string()), removed: z.array(z.string()) }))),
});
export interface SnapshotMeta {
  fetched_at: string;
  server_url?: string | null;
  total_actions: number;
  unapproved?: string[] | null;
  last_diff?: { at: string; added: string[]; removed: string[] } | null;
  /** How many actions the file lists. */
  count: number;
}

/** The snapshot's top level, or null when missing or not a snapshot. */
export function readSnapshotMeta(path: string): SnapshotMeta | null {
  try {
    const text = readTextIfExists(path);
    if (!text) return null;
    const parsed = SnapshotMetaSchema.safeParse(JSON.parse(text));
    if (!parsed.success || !Array.isArray(parsed.data.actions)) return null;
    const d = parsed.data;
    return { fetched_at: d.fetched_at, server_url: d.server_url, total_actions: d.total_actions, unapproved: d.unapproved, last_diff: d.last_diff, count: (d.actions as unknown[]).length };
  } catch {
    return null;
  }
}

export function snapshotIsStale(meta: SnapshotMeta | null, serverUrl: string, now: number): boolean {
  if (!meta) return true;
  if (meta.server_url && meta.server_url !== serverUrl) return true;
  const fetched = Date.parse(meta.fetched_at);
  return !Number.isFinite(fetched) || now - fetched > SNAPSHOT_MAX_AGE_MS || fetched > now + 60_000;
}

export type SnapshotRefresh =
  | { kind: 'not_modified'; count: number }
  | { kind: 'updated'; count: number; diff: SnapshotDiff }
  | { kind: 'failed'; message: string; unauthorized: boolean };

export async function refreshSnapshot(args: { path: string; baseUrl: string; token: string; timeoutMs: number; now: () => number }): Promise<SnapshotRefresh> {
  const { fetchCatalog, flattenCatalog, readSnapshot, writeSnapshot } = await import('../capabilities.js');
  const { applySnapshotDiff } = await import('../snapshotDiff.js');
  const serverUrl = `${args.baseUrl}/mcp`;
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
