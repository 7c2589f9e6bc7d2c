/**
 * A log file that stays small: each append goes to `path` (0600 from creation, never through a link, never blocking
 * on a FIFO: see openRegularFileForAppend) in one write (O_APPEND: concurrent appends never interleave); once it holds
 * `maxBytes`, it becomes `path.1` (replacing the one before) and a new file begins. So at most about twice `maxBytes`
 * is ever kept. Concurrent writers that find the file full rotate it once between them (see rotateOnce): no line is
 * lost or written half, though a few may land in the rotated file.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
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
    const held = fstatSync(fd);
    if (held.size > 0 && held.size + bytes.length > maxBytes && rotateOnce(path, held)) {
      closeSync(fd);
      fd = -1;
      fd = openRegularFileForAppend(path);
    }
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

/** A rotation claim older than this was left by a writer that died between claiming and renaming. */
const CLAIM_STALE_MS = 10_000;

/** True when `path` no longer names the file `held` describes (it was rotated, and maybe begun afresh). */
function movedAway(path: string, held: Stats): boolean {
  try {
    const now = lstatSync(path);
    return now.ino !== held.ino || now.dev !== held.dev;
  } catch {
    return true;
  }
}

/**
 * Moves the full file at `path` to `path.1`, once however many writers find it full: the one that creates the claim
 * `path.rotating` (O_EXCL) renames it, if `path` still names the file it found full; the others append to the file
 * they hold, which is, or is about to be, `path.1`. Without the claim two writers could each rotate, the second
 * moving a file just begun over the full one. Returns true when the writer should open `path` afresh.
 */
function rotateOnce(path: string, held: Stats): boolean {
  const claim = `${path}.rotating`;
  try {
    closeSync(openSync(claim, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600));
  } catch (error) {
    // No claim can be made here (a folder that refuses it): the line goes to the file held, unrotated.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    try {
      if (Date.now() - lstatSync(claim).mtimeMs > CLAIM_STALE_MS) unlinkSync(claim);
    } catch { /* released meanwhile */ }
    return movedAway(path, held);
  }
  try {
    if (movedAway(path, held)) return true;
    // rename moves the name itself: a link planted at path.1 is replaced, never followed.
    renameSync(path, rotatedPath(path));
    return true;
  } finally {
    try { unlinkSync(claim); } catch { /* already gone */ }
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
