/**
 * The capability snapshot on disk: its one writer, the full reader (every entry checked: diagnose, approval, the
 * refresh), and the failure record beside it. The hooks' fast readers are meta.ts and actionIndex.ts.
 */
import { rmSync } from 'node:fs';
import { CapabilitySnapshotSchema, SnapshotFailureSchema, type CapabilitySnapshot, type SnapshotFailure } from '../../schemas/state.js';
import { SECRET_FILE_MODE, readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { serializeSnapshot } from './layout.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

export function writeSnapshot(path: string, snapshot: CapabilitySnapshot): void {
  writeFileAtomic(path, serializeSnapshot(snapshot), { mode: SECRET_FILE_MODE });
}

/** The snapshot on disk, or null when it is missing or not a snapshot (a stale cache is simply refetched). */
export function readSnapshot(path: string): CapabilitySnapshot | null {
  const text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.capabilities });
  if (text === null) return null;
  try {
    const parsed = CapabilitySnapshotSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The last failed fetch, or null when there is none (or it cannot be read: then it is as if there were none). */
export function readSnapshotFailure(path: string): SnapshotFailure | null {
  try {
    const text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.capabilitiesFailure });
    if (text === null) return null;
    const parsed = SnapshotFailureSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function writeSnapshotFailure(path: string, failure: SnapshotFailure): void {
  writeFileAtomic(path, `${JSON.stringify(failure, null, 2)}\n`, { mode: SECRET_FILE_MODE });
}

export function clearSnapshotFailure(path: string): void {
  rmSync(path, { force: true });
}
