/**
 * Loads one of a hook's sibling chunk files (plain CommonJS files committed next to the hook script, never a package)
 * through a V8 code cache, so a hook does not parse and compile the same code at every run. The cache is made with
 * `vm.Script#createCachedData` when the process exits, after the run: it then also holds the functions the run
 * compiled lazily, which Node's own compile cache (`module.enableCompileCache`, made before the code runs) does not;
 * measured on Node 22 and 24, that makes it pay where the built-in one barely did (see bench/results.md).
 * A cache file is named after the chunk's size and modification time (a changed chunk never meets an old cache) and
 * the Node version; V8 itself rejects data from another V8 version or other flags, but does not check the payload
 * (a flipped bit crashes the process or changes what the code does): each file starts with a checksum of the data,
 * recorded when written and checked before V8 sees it. The first run that uses a cache marks it (`<cache>.inuse`,
 * its pid) until it exits: a mark left by a process that died means the run using the cache never finished, and that
 * cache is skipped and removed. A run that ends normally proves the cache (`<cache>.ok` holds its checksum): V8 reads
 * the same bytes the same way every time, so later runs use a proven cache without a mark, and no hook run creates a
 * file just to load its code (about 0.5 ms each on a journaling file system). The cache folder is ours (one per
 * version of the caller's code, under a root folder that holds nothing else) and only an optimisation: when it
 * cannot be created, read or written, the chunk is compiled as without it, and nothing is said. Whenever a run
 * writes a cache, it removes what no run of this version will read again: the root's other versions, and older
 * caches of the same chunk for this Node (so an update does not leave ~1 MB behind each time).
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { readOpenStateFile } from './fs/stateFile.js';

export interface ChunkCacheOptions {
  /** A folder that holds only these caches, one subfolder per version. */
  root: string;
  /** The version of the chunks (their caches live in `root/version`). */
  version: string;
}

let cacheRoot: ChunkCacheOptions | null = null;
let cacheFolder: string | null = null;
const loaded = new Map<string, unknown>();
const toSave: Array<{ script: Script; path: string; chunk: string }> = [];

/** Where loadChunk keeps its code cache from now on (null: no cache). */
export function useChunkCache(options: ChunkCacheOptions | null): void {
  cacheRoot = options;
  cacheFolder = options ? join(options.root, options.version) : null;
}

/** A directory this user owns that no one else may write to (POSIX). */
function isOurFolder(dir: string): boolean {
  const st = lstatSync(dir);
  return st.isDirectory() && (typeof process.getuid !== 'function' || (st.uid === process.getuid() && (st.mode & 0o022) === 0));
}

/**
 * The cache runs as code in the hook, so it is used only when every folder from the root's parent (the Cursor dir)
 * down to `dir` is one only this user can write (isOurFolder): otherwise another user could swap a folder in
 * between. Missing folders are created 0700.
 */
function folderIsOurs(dir: string): boolean {
  if (!cacheRoot) return false;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const base = dirname(cacheRoot.root);
    for (let d = dir; ; d = dirname(d)) {
      if (!isOurFolder(d)) return false;
      if (d === base || dirname(d) === d) return d === base;
    }
  } catch {
    return false;
  }
}

/** A V8 cache is a few hundred KiB; anything much larger is not one of ours. */
const CACHE_MAX_BYTES = 64 * 1024 * 1024;
const DIGEST_BYTES = 4;

/**
 * FNV-1a (32 bits) over the 32-bit words of `data`, then its last bytes. A checksum against damage, not an adversary
 * (only this user can write the folder): every step is a bijection of the state, so any change within one word (a
 * flipped bit) always changes it, and other damage goes unseen with odds of one in 2^32. Not SHA-256: loading
 * node:crypto costs a hook run ~10 ms; by words, not bytes: a hook runs this once, uncompiled (~1.7 ms for 90 KB).
 */
export function checksumOf(data: Uint8Array): Buffer {
  const aligned = data.byteOffset % 4 === 0 ? data : Uint8Array.from(data);
  const words = aligned.length >>> 2;
  const view = new Int32Array(aligned.buffer, aligned.byteOffset, words);
  let hash = 0x811c9dc5;
  for (let i = 0; i < words; i++) hash = Math.imul(hash ^ view[i]!, 0x01000193);
  for (let i = words << 2; i < aligned.length; i++) hash = Math.imul(hash ^ aligned[i]!, 0x01000193);
  const out = Buffer.alloc(DIGEST_BYTES);
  out.writeUInt32BE(hash >>> 0);
  return out;
}
const digestOf = checksumOf;

interface CacheRead {
  /** The V8 data. */
  data: Buffer;
  /** Its checksum, as recorded in the file and checked. */
  digest: Buffer;
}

/**
 * The cache's V8 data when the file is ours and whole: a regular file (fstat on the open descriptor, not the path;
 * never through a link), owned by this user, writable by no one else, and its recorded checksum matches.
 */
function readCache(path: string): CacheRead | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined; // first run, a link, or unreadable
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > CACHE_MAX_BYTES || stat.size <= DIGEST_BYTES) return undefined;
    if (typeof process.getuid === 'function' && (stat.uid !== process.getuid() || (stat.mode & 0o022) !== 0)) return undefined;
    const bytes = readOpenStateFile(path, { fd, stat }, { maxBytes: CACHE_MAX_BYTES });
    const data = bytes.subarray(DIGEST_BYTES);
    const digest = bytes.subarray(0, DIGEST_BYTES);
    return digestOf(data).equals(digest) ? { data, digest } : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether a run that used the cache with this checksum ended normally (`<cache>.ok` holds the checksum). */
function isProven(path: string, digest: Buffer): boolean {
  try {
    return readOpenMark(`${path}.ok`) === digest.toString('hex');
  } catch {
    return false; // none yet, or not a file of ours
  }
}

/** At a normal exit after V8 took the data: the cache with this checksum is proven. */
function prove(path: string, digest: Buffer): void {
  try {
    const ok = `${path}.ok`;
    rmSync(ok, { force: true });
    writeFileSync(ok, digest.toString('hex'), { mode: 0o600, flag: 'wx' });
  } catch { /* not proven: the next run marks it again */ }
}

/**
 * Marks `path` as in use by this run until it exits (`ours`). Otherwise the cache is not used: a live run holds the
 * mark (`busy`: this run compiles without it rather than wait), or a run that died while using it left its mark
 * (`removed`: a crash there may be the cache's doing, so the cache is removed, with its proof, and made again).
 */
function markInUse(path: string): 'ours' | 'busy' | 'removed' {
  const mark = `${path}.inuse`;
  try {
    writeFileSync(mark, String(process.pid), { mode: 0o600, flag: 'wx' });
    process.once('exit', () => { try { unlinkSync(mark); } catch { /* already gone */ } });
    return 'ours';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return 'busy';
  }
  let holder = NaN;
  try { holder = Number(readOpenMark(mark)); } catch { /* vanished, or not a file */ }
  if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) return 'busy';
  try {
    rmSync(path, { force: true });
    rmSync(`${path}.ok`, { force: true, recursive: true });
    rmSync(mark, { force: true, recursive: true });
  } catch { /* another run got there first */ }
  return 'removed';
}

function readOpenMark(mark: string): string {
  const fd = openSync(mark, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    return readOpenStateFile(mark, { fd, stat: fstatSync(fd) }, { maxBytes: 64 }).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * After a cache was written: the root's other versions, and this version's caches of `chunk` for this Node other than
 * `keep` (an older build of the chunk). Caches for other Node versions stay: the person may switch back.
 */
function removeStale(chunk: string, keep: string): void {
  if (!cacheRoot) return;
  try {
    if (!isOurFolder(cacheRoot.root)) return;
    for (const entry of readdirSync(cacheRoot.root)) {
      if (entry !== cacheRoot.version) rmSync(join(cacheRoot.root, entry), { recursive: true, force: true });
    }
    const suffix = `-${process.version}-${process.arch}.v8cache`;
    for (const entry of readdirSync(dirname(keep))) {
      const cache = entry.replace(/\.(inuse|ok)$/, '');
      if (cache.startsWith(`${chunk}-`) && cache.endsWith(suffix) && cache !== basename(keep)) rmSync(join(dirname(keep), entry), { force: true });
    }
  } catch { /* another run got there first, or a file is in use (Windows): it goes next time */ }
}

function cachePath(file: string, source: string): string | null {
  if (!cacheFolder) return null;
  if (!folderIsOurs(cacheFolder)) {
    cacheFolder = null;
    return null;
  }
  try {
    const { mtimeMs } = statSync(file);
    return join(cacheFolder, `${basename(file)}-${source.length}-${Math.round(mtimeMs * 1000)}-${process.version}-${process.arch}.v8cache`);
  } catch {
    return null;
  }
}

function saveCaches(): void {
  for (const { script, path, chunk } of toSave.splice(0)) {
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      const data = script.createCachedData();
      writeFileSync(tmp, Buffer.concat([digestOf(data), data]), { mode: 0o600, flag: 'wx' });
      renameSync(tmp, path); // whole or not at all: a concurrent hook reads either no cache or a complete one
    } catch (error) {
      // Read-only or full: compile without a cache next time too. A temp file this run made (the write or the rename
      // failed after the exclusive create) goes; one that was there before (EEXIST) is not ours to remove.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        try { rmSync(tmp, { force: true }); } catch { /* nothing more to do */ }
      }
      continue;
    }
    removeStale(chunk, path);
  }
}

function load(file: string): unknown {
  const source = readFileSync(file, 'utf8');
  const cacheFile = cachePath(file, source);
  let path = cacheFile;
  const cache = cacheFile ? readCache(cacheFile) : undefined;
  let cachedData = cache?.data;
  // Marked only when V8 will be given data not yet proven: a run that compiles from source cannot be harmed by a cache.
  const mark = cacheFile && cache && !isProven(cacheFile, cache.digest) ? markInUse(cacheFile) : null;
  if (mark === 'busy') path = null;
  if (mark && mark !== 'ours') cachedData = undefined;
  // The CommonJS wrapper, as Node's own loader builds it.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  if (mark === 'ours' && cacheFile && cache && !script.cachedDataRejected) process.once('exit', () => prove(cacheFile, cache.digest));
  if (path && (cachedData === undefined || script.cachedDataRejected)) {
    if (!toSave.length) process.once('exit', saveCaches);
    toSave.push({ script, path, chunk: basename(file) });
  }
  const m = { exports: {} as unknown };
  // This module runs only inside a hook's CommonJS first stage, whose `require` serves the chunk: a chunk requires only
  // Node's built-in modules (createRequire would load node:module and its loader internals, ~0.4 ms, for the same).
  (script.runInThisContext() as (...args: unknown[]) => void)(m.exports, require, m, file, dirname(file));
  return m.exports;
}

/** Loads `file` (an absolute path to a CommonJS chunk) through the code cache. Once per process, like require(). */
export function loadChunk(file: string): unknown {
  if (!loaded.has(file)) loaded.set(file, load(file));
  return loaded.get(file);
}
