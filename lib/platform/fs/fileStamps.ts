/**
 * Stamps of files as `stat` sees them (size, modification and change times, inode), to tell cheaply whether any of a
 * set of files changed since something was compiled from them: a write, a rename into place or a removal each
 * changes a stamp. One `stat` per file, no read.
 */
import { statSync } from 'node:fs';

/** Size, mtime, ctime (ms, fractional), inode; null when the file does not exist. */
export type Stamp = [number, number, number, number] | null;

/** One file's stamp; undefined when it cannot be taken (a folder on the path that cannot be searched, say). */
export function stampOf(path: string): Stamp | undefined {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    return s ? [s.size, s.mtimeMs, s.ctimeMs, s.ino] : null;
  } catch {
    return undefined;
  }
}

/** The stamps of `paths`, in order, then `more` (taken by the caller); null when one cannot be taken. */
export function stampFiles(paths: readonly string[], more: ReadonlyArray<Stamp | undefined> = []): Stamp[] | null {
  const stamps: Stamp[] = [];
  for (const stamp of [...paths.map(stampOf), ...more]) {
    if (stamp === undefined) return null;
    stamps.push(stamp);
  }
  return stamps;
}

/** True when `b` (as read back from a file: unknown) holds exactly the stamps `a`. */
export function sameStamps(a: readonly Stamp[] | null, b: unknown): boolean {
  if (a === null || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y: unknown = b[i];
    if (x === null || y === null) {
      if (x !== y) return false;
      continue;
    }
    if (!Array.isArray(y) || y.length !== 4 || x[0] !== y[0] || x[1] !== y[1] || x[2] !== y[2] || x[3] !== y[3]) return false;
  }
  return true;
}

/** The environment variables whose names start with `prefix`, sorted, as one string (what a compiled file depends on). */
export function envFingerprint(env: NodeJS.ProcessEnv, prefix: string): string {
  return Object.keys(env).filter((k) => k.startsWith(prefix)).sort().map((k) => `${k}=${env[k]}`).join('\n');
}
