/**
 * File primitives for files that may hold secrets: created 0600 from the first byte, replaced atomically
 * (temp file in the same folder + fsync + rename), never left half-written.
 *
 * Written by hand, with fileLock.ts, rather than with a config-store package such as `conf`: bundling conf (it
 * pulls in ajv) added ~12 ms to every hook start-up in our measurement, against budgets of a few ms; conf has no
 * cross-process lock, and the refresh and sign-in writes need one; and the file names and formats (e.g. the
 * extension-less `agentstack-refresh`) are fixed by the contract, not chosen by a store.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

export const SECRET_FILE_MODE = 0o600;

/** The file's text, or null when it does not exist. Other errors (EISDIR, EACCES) propagate. */
export function readTextIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function writeAll(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let offset = 0;
  while (offset < buf.length) offset += writeSync(fd, buf, offset, buf.length - offset);
}

/**
 * Replaces `path` with `data` atomically. When `path` is a symlink, the link itself is replaced by a regular file
 * (we never write through a link into a file we did not choose).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, options: { mode?: number } = {}): void {
  const mode = options.mode ?? SECRET_FILE_MODE;
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    writeAll(fd, data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (error) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw error;
  }
  try {
    const dfd = openSync(dir, 'r');
    try { fsyncSync(dfd); } finally { closeSync(dfd); }
  } catch { /* some platforms cannot fsync a directory */ }
}

/** Creates `path` with `data` only if it does not exist (O_EXCL), mode 0600 from creation. False when it exists. */
export function createExclusive(path: string, data: string, options: { mode?: number } = {}): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, options.mode ?? SECRET_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeAll(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
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
