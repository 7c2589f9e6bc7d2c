/**
 * File primitives for files that may hold secrets: created 0600 from the first byte, replaced atomically
 * (temp file in the same folder + fsync + rename), never left half-written.
 *
 * Written by hand, with fileLock.ts, rather than with a config-store package such as `conf`: bundling conf (it
 * pulls in ajv) added ~12 ms to every hook start-up in our measurement, against budgets of a few ms; conf has no
 * cross-process lock, and the refresh and sign-in writes need one; and the file names and formats (e.g. the
 * extension-less `agentstack-refresh`) are fixed by the contract, not chosen by a store.
 */
import {
  closeSync, constants, fchmodSync, fstatSync, fsyncSync, ftruncateSync, linkSync, lstatSync, mkdirSync, openSync, unlinkSync, writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { renameWithRetry, type RenameOptions } from './renameRetry.js';
import { readStateFileIfExists, readStateTextIfExists, type StateFileOptions } from './stateFile.js';

export const SECRET_FILE_MODE = 0o600;

/**
 * The file's text, or null when it does not exist. Read as every state file is (stateFile.ts: never a blocking open,
 * a regular file only, at most `maxBytes`); other errors (EISDIR, ENOTREGULAR, EFBIG, EACCES) propagate.
 */
export function readTextIfExists(path: string, options: StateFileOptions): string | null {
  return readStateTextIfExists(path, options);
}

/** The file's bytes, or null when it does not exist (a reader that needs only part of a large file decodes only that). */
export function readBytesIfExists(path: string, options: StateFileOptions): Buffer | null {
  return readStateFileIfExists(path, options);
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let offset = 0;
  while (offset < buf.length) offset += writeSync(fd, buf, offset, buf.length - offset);
}

/**
 * Replaces `path` with `data` atomically. When `path` is a symlink, the link itself is replaced by a regular file
 * (we never write through a link into a file we did not choose). `durable: false` skips the fsyncs: still atomic
 * (a reader sees the old or the new file), but a crash may lose the write; for records a hook rewrites on every run.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: { mode?: number; durable?: boolean } & RenameOptions = {}): void {
  const dir = dirname(path);
  const durable = options.durable ?? true;
  let tmp: string;
  try {
    tmp = writeTempBeside(path, data, options.mode ?? SECRET_FILE_MODE, durable);
  } catch (error) {
    throw namingTarget(error, path);
  }
  try {
    renameWithRetry(tmp, path, options);
  } catch (error) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw namingTarget(error, path);
  }
  if (!durable) return;
  try {
    const dfd = openSync(dir, 'r');
    try { fsyncSync(dfd); } finally { closeSync(dfd); }
  } catch { /* some platforms cannot fsync a directory */ }
}

/** A file error on our temp file names the file being written instead: the temp file is gone and means nothing to a person. */
function namingTarget(error: unknown, path: string): unknown {
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.path === 'string' && dirname(errno.path) === dirname(path) && basename(errno.path).startsWith(`.${basename(path)}.`) && errno.path.endsWith('.tmp')) {
    errno.path = path;
  }
  return error;
}

/**
 * A new temp file `.<name>.<pid>.<12 hex>.tmp` in `dir`, created exclusively (never an existing path, nor through a
 * link planted there), so its name only has to be unlikely to be taken: Math.random, not a CSPRNG, whose first use
 * loads node:crypto (~10 ms of a hook run that records a heartbeat). A taken name is retried with another.
 */
function createTemp(dir: string, name: string, mode: number): { tmp: string; fd: number } {
  for (let attempt = 0; ; attempt++) {
    const tmp = join(dir, `.${name}.${process.pid}.${Math.floor(Math.random() * 2 ** 48).toString(16).padStart(12, '0')}.tmp`);
    try {
      return { tmp, fd: openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 4) throw error;
    }
  }
}

/** Writes `data` to a new temp file next to `path` (same folder, so rename and link stay atomic) and returns it. */
function writeTempBeside(path: string, data: string | Uint8Array, mode: number, durable = true): string {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { tmp, fd } = createTemp(dir, basename(path), mode);
  try {
    writeAll(fd, data);
    if (durable) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw error;
  }
  closeSync(fd);
  return tmp;
}

/**
 * Creates `path` with `data` only if it does not exist, mode 0600 from creation; false when it exists. The file
 * appears with its whole content (a temp file hard-linked into place), so a reader never sees it empty or half
 * written: an empty lock file would look stale and be broken while its holder still holds it.
 */
export function createExclusive(path: string, data: string, options: { mode?: number; link?: (from: string, to: string) => void; platform?: NodeJS.Platform } = {}): boolean {
  const mode = options.mode ?? SECRET_FILE_MODE;
  const tmp = writeTempBeside(path, data, mode);
  try {
    (options.link ?? linkSync)(tmp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links: O_EXCL create, then write (the content then appears a moment later).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') return createThenWrite(path, data, mode);
    // Windows reports a hard link on exFAT/FAT32 as EISDIR (ERROR_INVALID_FUNCTION); an existing target is EEXIST there.
    if (code === 'EISDIR' && (options.platform ?? process.platform) === 'win32') return createThenWrite(path, data, mode);
    throw error;
  } finally {
    try { unlinkSync(tmp); } catch { /* already gone */ }
  }
}

function createThenWrite(path: string, data: string, mode: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeAll(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    try { unlinkSync(path); } catch { /* already gone */ }
    throw error;
  }
  closeSync(fd);
  return true;
}

export function removeIfExists(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The permission bits of a file, or null when it does not exist. Does not follow symlinks. */
export function fileMode(path: string): number | null {
  try {
    return lstatSync(path).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Opens `path` for appending the way every file we own is opened: never through a symlink (O_NOFOLLOW), never
 * blocking on a FIFO (O_NONBLOCK), created with `mode` from the first byte, and only kept when fstat says it is a
 * regular file; past `maxBytes` it starts afresh. Throws `ENOTREGULAR` (code) for anything that is not a regular
 * file, and the open's own error (ELOOP, ENXIO, EACCES) otherwise. Returns the descriptor; the caller closes it.
 */
export function openRegularFileForAppend(path: string, options: { mode?: number; maxBytes?: number } = {}): number {
  const mode = options.mode ?? SECRET_FILE_MODE;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  let fd: number;
  try {
    fd = openSync(path, flags, mode);
  } catch (error) {
    // A symlink is refused with ELOOP by O_NOFOLLOW; where the platform has no O_NOFOLLOW, lstat decides.
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw notRegular(path, 'a symlink');
    if ((error as NodeJS.ErrnoException).code === 'ENXIO') throw notRegular(path, 'a FIFO or socket');
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw notRegular(path, stat.isFIFO() ? 'a FIFO' : 'not a file');
    if (constants.O_NOFOLLOW === undefined && lstatSync(path).isSymbolicLink()) throw notRegular(path, 'a symlink');
    if (options.maxBytes !== undefined && stat.size > options.maxBytes) ftruncateSync(fd, 0);
    if ((stat.mode & 0o777 & ~mode) !== 0) fchmodSync(fd, mode);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The `ENOTREGULAR` error: `path` is a symlink, a FIFO or anything but a regular file. */
export function notRegular(path: string, what: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${path} is not a regular file (${what})`);
  error.code = 'ENOTREGULAR';
  return error;
}
