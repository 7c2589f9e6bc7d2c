/**
 * The one way the plugin reads a file it keeps state in (mcp.json, its own files, a cache): never a blocking open
 * (O_NONBLOCK: a FIFO in its place opens at once), only a regular file as `fstat` sees the open descriptor (a FIFO,
 * a device such as /dev/zero, a socket or a folder is refused, even behind a symlink), and never more than the
 * file's size cap (checked before reading, and again while reading, for a file that grows).
 * Errors carry a code: ENOENT is "missing" (the *IfExists readers return null), EISDIR a folder, ENOTREGULAR any
 * other non-file, EFBIG a file over its cap; the open's own errors (EACCES, ELOOP) pass through.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { utf8Text } from '../text/utf8.js';

export interface StateFileOptions {
  /** The largest file accepted, in bytes. */
  maxBytes: number;
}

export interface OpenStateFile {
  fd: number;
  stat: Stats;
}

function stateFileError(code: string, message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${message}`);
  error.code = code;
  return error;
}

/** Opens `path` for reading as described above; the caller closes `fd`. */
export function openStateFile(path: string, options: StateFileOptions): OpenStateFile {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw stateFileError('EISDIR', `${path} is a folder, not a file`);
    if (!stat.isFile()) throw stateFileError('ENOTREGULAR', `${path} is not a regular file (${stat.isFIFO() ? 'a FIFO' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : 'not a file'})`);
    if (stat.size > options.maxBytes) throw tooBig(path, options.maxBytes);
    return { fd, stat };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function tooBig(path: string, maxBytes: number): NodeJS.ErrnoException {
  return stateFileError('EFBIG', `${path} is larger than ${maxBytes} bytes`);
}

/** Reads the whole of an open state file, at most `maxBytes`. */
export function readOpenStateFile(path: string, opened: OpenStateFile, options: StateFileOptions): Buffer {
  return readAllOf(path, opened, options, Buffer.allocUnsafe) as Buffer;
}

/** The whole of an open state file, at most `maxBytes`, in arrays from `alloc` (a view of the last one). */
function readAllOf(path: string, opened: OpenStateFile, options: StateFileOptions, alloc: (size: number) => Uint8Array): Uint8Array {
  let buf = alloc(Math.min(opened.stat.size, options.maxBytes) + 1);
  let length = 0;
  for (;;) {
    if (length === buf.length) {
      if (length > options.maxBytes) throw tooBig(path, options.maxBytes);
      const grown = alloc(Math.min(buf.length * 2, options.maxBytes + 1));
      grown.set(buf.subarray(0, length));
      buf = grown;
    }
    const n = readSync(opened.fd, buf, length, buf.length - length, null);
    if (n === 0) break;
    length += n;
  }
  if (length > options.maxBytes) throw tooBig(path, options.maxBytes);
  return buf.subarray(0, length);
}

/** The file's bytes; throws as described above (ENOENT included). */
export function readStateFile(path: string, options: StateFileOptions): Buffer {
  return readWhole(path, options, Buffer.allocUnsafe) as Buffer;
}

/**
 * The file as UTF-8 text; throws as readStateFile. Read into a plain Uint8Array and decoded without Buffer, whose
 * first use costs a hook in a fresh process about 0.2 ms (platform/text/utf8.ts).
 */
export function readStateText(path: string, options: StateFileOptions): string {
  return utf8Text([readWhole(path, options, (size) => new Uint8Array(size))]);
}

function readWhole(path: string, options: StateFileOptions, alloc: (size: number) => Uint8Array): Uint8Array {
  const opened = openStateFile(path, options);
  try {
    return readAllOf(path, opened, options, alloc);
  } finally {
    closeSync(opened.fd);
  }
}

/** The file as UTF-8 text, or null when it does not exist. */
export function readStateTextIfExists(path: string, options: StateFileOptions): string | null {
  return missingAsNull(() => readStateText(path, options));
}

/** The file's bytes, or null when it does not exist. */
export function readStateFileIfExists(path: string, options: StateFileOptions): Buffer | null {
  return missingAsNull(() => readStateFile(path, options));
}

function missingAsNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
