import { chmodSync, lstatSync } from 'node:fs';
import { SECRET_FILE_MODE } from './secureFile.js';

/**
 * Sets a regular file that others can read or write to 0600 and returns its old mode bits; null when there was
 * nothing to do (missing, a link or folder, already private). On Windows nothing is changed: Node's chmod there only
 * toggles the read-only attribute (which a person may have set on purpose), and the user profile's ACLs, not mode
 * bits, keep other users out. A failing chmod throws; callers decide whether that matters.
 */
export function tightenMode(path: string, options: { platform?: NodeJS.Platform } = {}): number | null {
  if ((options.platform ?? process.platform) === 'win32') return null;
  let stat;
  try { stat = lstatSync(path); } catch { return null; }
  if (!stat.isFile() || (stat.mode & 0o077) === 0) return null;
  chmodSync(path, SECRET_FILE_MODE);
  return stat.mode & 0o777;
}
