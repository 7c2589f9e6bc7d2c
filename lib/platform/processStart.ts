/**
 * When a process started, as the kernel records it, so a lock can tell its holder from a later process that got
 * the same pid. Linux: field 22 of /proc/<pid>/stat (clock ticks since boot). Elsewhere null: callers then rely on
 * the lock's age cap alone.
 */
import { readFileSync } from 'node:fs';

export function processStartTime(pid: number, platform: NodeJS.Platform = process.platform): string | null {
  if (platform !== 'linux' || !Number.isInteger(pid) || pid <= 0) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces; field 3 starts after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[22 - 3];
    return start && /^\d+$/.test(start) ? start : null;
  } catch {
    return null;
  }
}
