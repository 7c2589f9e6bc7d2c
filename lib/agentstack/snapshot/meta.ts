/**
 * The capability snapshot's top level, as session start reads it on every start. The fast path reads only the
 * file's first and last bytes (layout.ts): a full per-entry parse of 5,000 actions costs more than the hook's
 * whole budget. The refresh itself is refresh.ts.
 */
import { closeSync, readSync } from 'node:fs';
import { openStateFile, readOpenStateFile, type OpenStateFile } from '../../platform/fs/stateFile.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';
import { SnapshotMetaSchema, type SnapshotHead } from '../../schemas/state.js';
import { SNAPSHOT_MAX_AGE_MS, withoutActions } from './layout.js';

export type SnapshotMeta = Pick<SnapshotHead, 'fetched_at' | 'server_url' | 'total_actions' | 'skipped_entries' | 'skipped_reason' | 'unapproved' | 'last_diff'> & {
  /** How many actions the file lists. */
  count: number;
};

export type SnapshotMetaRead =
  | { kind: 'missing' }
  /** The file cannot be used; `folder` when a folder stands where the file should be (no write can replace it). */
  | { kind: 'unreadable'; reason: string; folder: boolean }
  | { kind: 'ok'; meta: SnapshotMeta };

function metaOf(value: unknown, count?: number): SnapshotMeta | null {
  const parsed = SnapshotMetaSchema.safeParse(value);
  if (!parsed.success || !Array.isArray(parsed.data.actions)) return null;
  const d = parsed.data;
  return {
    fetched_at: d.fetched_at, server_url: d.server_url, total_actions: d.total_actions, skipped_entries: d.skipped_entries,
    skipped_reason: d.skipped_reason, unapproved: d.unapproved, last_diff: d.last_diff, count: count ?? (d.actions as unknown[]).length,
  };
}

const HEAD_BYTES = 4096;
const TAIL_BYTES = 256 * 1024;

/** The top level of a laid-out snapshot from its first and last bytes; null when the file has another layout. */
function readLayoutMeta(fd: number, size: number): SnapshotMeta | null {
  const head = Buffer.alloc(Math.min(HEAD_BYTES, size));
  readSync(fd, head, 0, head.length, 0);
  const tailLength = Math.min(TAIL_BYTES, size);
  const tail = Buffer.alloc(tailLength);
  readSync(fd, tail, 0, tailLength, size - tailLength);
  const top = withoutActions(head.toString('utf8'), tail.toString('utf8'), size - tailLength);
  if (top === null) return null;
  try {
    const value = JSON.parse(top) as { total_actions?: unknown };
    return typeof value.total_actions === 'number' ? metaOf(value, value.total_actions) : null;
  } catch {
    return null;
  }
}

const NOT_A_SNAPSHOT = { kind: 'unreadable', reason: 'is not a capability snapshot', folder: false } as const;

/** Reads the snapshot's top level; never throws. */
export function readSnapshotMeta(path: string): SnapshotMetaRead {
  const limit = { maxBytes: STATE_FILE_MAX_BYTES.capabilities };
  let opened: OpenStateFile;
  try {
    opened = openStateFile(path, limit);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'EISDIR') return { kind: 'unreadable', reason: 'is a folder', folder: true };
    if (code === 'ENOTREGULAR') return { kind: 'unreadable', reason: 'is not a regular file', folder: false };
    if (code === 'EFBIG') return { kind: 'unreadable', reason: `is larger than ${limit.maxBytes} bytes`, folder: false };
    return { kind: 'unreadable', reason: `cannot be read (${code ?? 'error'})`, folder: false };
  }
  const { fd, stat } = opened;
  try {
    if (stat.size > HEAD_BYTES + TAIL_BYTES) {
      const meta = readLayoutMeta(fd, stat.size);
      if (meta) return { kind: 'ok', meta };
    }
    const text = readOpenStateFile(path, opened, limit).toString('utf8');
    const meta = text ? metaOf(JSON.parse(text)) : null;
    return meta ? { kind: 'ok', meta } : NOT_A_SNAPSHOT;
  } catch {
    return NOT_A_SNAPSHOT;
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
