/**
 * The capability snapshot at session start. The fast path reads only its top level (a full per-entry parse of
 * 5,000 actions costs more than the hook's whole budget). The refresh itself is in snapshotRefresh.ts.
 */
import * as z from 'zod/mini';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { SnapshotHeadSchema, type SnapshotHead } from '../../schemas/state.js';

export const SNAPSHOT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const { fetched_at, audience, server_url, total_actions, actions, unapproved, last_diff } = SnapshotHeadSchema.shape;
const SnapshotMetaSchema = z.looseObject({ fetched_at, audience, server_url, total_actions, actions, unapproved, last_diff });
export type SnapshotMeta = Pick<SnapshotHead, 'fetched_at' | 'server_url' | 'total_actions' | 'unapproved' | 'last_diff'> & {
  /** How many actions the file lists. */
  count: number;
};

function metaOf(value: unknown, count?: number): SnapshotMeta | null {
  const parsed = SnapshotMetaSchema.safeParse(value);
  if (!parsed.success || !Array.isArray(parsed.data.actions)) return null;
  const d = parsed.data;
  return { fetched_at: d.fetched_at, server_url: d.server_url, total_actions: d.total_actions, unapproved: d.unapproved, last_diff: d.last_diff, count: count ?? (d.actions as unknown[]).length };
}

const HEAD_BYTES = 4096;
const TAIL_BYTES = 256 * 1024;
/** How the `actions` array ends in the file writeSnapshot writes (2-space JSON): its last object, then `]`. */
const ACTIONS_END = '\n    }\n  ]';

/**
 * The top level of a snapshot written by writeSnapshot (2-space JSON, `actions` between the scalar fields and the
 * approval fields), read from its first and last bytes: parsing 5,000 actions costs ~12 ms (read, parse, GC) of
 * the hook's ~30 ms budget. Null when the file does not have that layout; the caller then parses it whole.
 */
function readLayoutMeta(fd: number, size: number): SnapshotMeta | null {
  const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
  readSync(fd, head, 0, head.length, 0);
  const headText = head.toString('utf8');
  const start = headText.indexOf('\n  "actions": [');
  if (start < 0) return null;
  const tailLength = Math.min(TAIL_BYTES, size);
  const tail = Buffer.alloc(tailLength);
  readSync(fd, tail, 0, tailLength, size - tailLength);
  const tailText = tail.toString('utf8');
  const end = tailText.lastIndexOf(ACTIONS_END);
  if (end < 0 || size - tailLength + end < start) return null;
  try {
    const top = JSON.parse(`${headText.slice(0, start)}\n  "actions": []${tailText.slice(end + ACTIONS_END.length)}`) as { total_actions?: unknown };
    return typeof top.total_actions === 'number' ? metaOf(top, top.total_actions) : null;
  } catch {
    return null;
  }
}

/** The snapshot's top level, or null when missing or not a snapshot. */
export function readSnapshotMeta(path: string): SnapshotMeta | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    if (size > HEAD_BYTES + TAIL_BYTES) {
      const meta = readLayoutMeta(fd, size);
      if (meta) return meta;
    }
    const text = readFileSync(fd, 'utf8');
    return text ? metaOf(JSON.parse(text)) : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

export function snapshotIsStale(meta: SnapshotMeta | null, serverUrl: string, now: number): boolean {
  if (!meta) return true;
  if (meta.server_url && meta.server_url !== serverUrl) return true;
  const fetched = Date.parse(meta.fetched_at);
  return !Number.isFinite(fetched) || now - fetched > SNAPSHOT_MAX_AGE_MS || fetched > now + 60_000;
}

