/**
 * A log file that stays small: each append goes to `path` (0600 from creation, never through a link, never blocking
 * on a FIFO: see openRegularFileForAppend); once it holds `maxBytes`, it becomes `path.1` (replacing the one before)
 * and a new file begins. So at most about twice `maxBytes` is ever kept. Concurrent writers may each rotate once;
 * a few lines can then land in the rotated file, none is written half.
 */
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, writeSync } from 'node:fs';
import { notRegular, openRegularFileForAppend } from './secureFile.js';

export const DEFAULT_LOG_MAX_BYTES = 512 * 1024;

export function rotatedPath(path: string): string {
  return `${path}.1`;
}

/**
 * Appends `text` (one write). Throws `ENOTREGULAR` when `path` is a symlink, a FIFO or anything but a regular file
 * (nothing is written anywhere then), and the file system's own errors otherwise.
 */
export function appendRotating(path: string, text: string, options: { maxBytes?: number } = {}): void {
  const maxBytes = options.maxBytes ?? DEFAULT_LOG_MAX_BYTES;
  const bytes = Buffer.from(text, 'utf8');
  let fd = openRegularFileForAppend(path);
  try {
    const size = fstatSync(fd).size;
    if (size > 0 && size + bytes.length > maxBytes) {
      closeSync(fd);
      fd = -1;
      // rename moves the name itself: a link planted at path.1 is replaced, never followed.
      renameSync(path, rotatedPath(path));
      fd = openRegularFileForAppend(path);
    }
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/**
 * The last `maxBytes` of a log (from its first whole line), or null when there is none. Like the append, never
 * through a link and never blocking on a FIFO: anything but a regular file throws `ENOTREGULAR`.
 */
export function readTail(path: string, maxBytes = 64 * 1024): string | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw notRegular(path, 'a symlink');
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(path, stat.isFIFO() ? 'a FIFO' : 'not a file');
    const start = Math.max(0, stat.size - maxBytes);
    const buf = Buffer.alloc(stat.size - start);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    const text = buf.subarray(0, got).toString('utf8');
    return start > 0 ? text.slice(text.indexOf('\n') + 1) : text;
  } finally {
    closeSync(fd);
  }
}
