/**
 * Leftovers of processes killed mid-write: `writeFileAtomic`'s temp file `.<name>.<pid>.<hex>.tmp` (killed between
 * create and rename), the lock's own temp file (killed between link and unlink) and `breakStaleLock`'s
 * `<name>.lock.<pid>.<hex>.stale` (killed between rename and unlink).
 * They never replace the real file (Cursor reads only `mcp.json`), but a temp file may hold a copy of the Bearer,
 * so the next writer removes those whose process is gone.
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isProcessAlive } from './fileLock.js';
import { lockPathFor } from './lockPath.js';

/** A live writer renames its temp file within milliseconds; past this age the pid may have been reused. */
const MAX_LIVE_AGE_MS = 10 * 60_000;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The names of `path`'s leftovers in its folder, with the pid that made each. */
export function leftoversOf(path: string, names: readonly string[]): Array<{ name: string; pid: number }> {
  const file = basename(path);
  const lock = escape(lockPathFor(file));
  // `.<name>.<pid>.<hex>.tmp` (the file), `.<name>.lock.<pid>.<hex>.tmp` (a lock being linked into place), and
  // `<name>.lock.<pid>.<hex>.stale` (a lock being broken).
  const pattern = new RegExp(`^(?:\\.(?:${escape(file)}|${lock})\\.(\\d+)\\.[0-9a-f]+\\.tmp|${lock}\\.(\\d+)\\.[0-9a-f]+\\.stale)$`);
  const out: Array<{ name: string; pid: number }> = [];
  for (const name of names) {
    const m = pattern.exec(name);
    if (m) out.push({ name, pid: Number(m[1] ?? m[2]) });
  }
  return out;
}

/** Removes `path`'s leftovers whose writer is dead (or that are too old to belong to a live write). Never throws. */
export function sweepLeftovers(path: string, now = Date.now()): number {
  const dir = dirname(path);
  let names: string[];
  try { names = readdirSync(dir); } catch { return 0; }
  let removed = 0;
  for (const { name, pid } of leftoversOf(path, names)) {
    const file = join(dir, name);
    try {
      if (pid !== process.pid && (!isProcessAlive(pid) || now - statSync(file).mtimeMs > MAX_LIVE_AGE_MS)) {
        unlinkSync(file);
        removed += 1;
      }
    } catch { /* gone already, or not ours to remove */ }
  }
  return removed;
}
