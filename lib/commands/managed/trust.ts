/**
 * Who may write a path, at every level: the organization's copy, its hooks file and the node they run must be
 * writable by administrators only, or a person could swap in their own code (failClosed does not help against a hook
 * that runs and answers allow). POSIX: each level from the path up to `/` belongs to root and is not group- or
 * world-writable; a symbolic link is followed, and its target's levels are checked too.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';

function levels(path: string): string[] {
  const out: string[] = [];
  for (let d = path; ; d = dirname(d)) {
    out.push(d);
    if (dirname(d) === d) return out;
  }
}

/** Why some level of `path` could be written by someone other than root, or null when none can. POSIX only. */
export function chainProblem(path: string): string | null {
  for (const target of new Set([path, realpathSync(path)])) {
    for (const level of levels(target)) {
      const st = lstatSync(level);
      if (st.uid !== 0) return `${level} belongs to uid ${st.uid}, not root`;
      if (!st.isSymbolicLink() && (st.mode & 0o022) !== 0) return `${level} can be written by ${st.mode & 0o002 ? 'every user' : 'its group'} (mode 0${(st.mode & 0o777).toString(8)})`;
    }
  }
  return null;
}

/** chainProblem for a path that may not exist yet: its nearest existing level is checked (null when Windows). */
export function chainProblemOfNearest(path: string, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'win32') return null;
  for (const level of levels(path)) {
    try {
      lstatSync(level);
    } catch {
      continue;
    }
    return chainProblem(level);
  }
  return null;
}
