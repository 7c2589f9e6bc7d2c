/**
 * Loads one of a hook's sibling chunk files (plain CommonJS files committed next to the hook script, never a package)
 * through a V8 code cache, so a hook does not parse and compile the same code at every run. The cache is made with
 * `vm.Script#createCachedData` when the process exits, after the run: it then also holds the functions the run
 * compiled lazily, which Node's own compile cache (`module.enableCompileCache`, made before the code runs) does not;
 * measured on Node 22 and 24, that makes it pay where the built-in one barely did (see bench/results.md).
 * A cache file is named after the chunk's size and modification time (a changed chunk never meets an old cache) and
 * the Node version; V8 itself rejects data from another V8 version or other flags. The cache folder is ours (one per
 * version of the caller's code, under a root folder that holds nothing else) and only an optimisation: when it
 * cannot be created, read or written, the chunk is compiled as without it, and nothing is said. Whenever a run
 * writes a cache, it removes what no run of this version will read again: the root's other versions, and older
 * caches of the same chunk for this Node (so an update does not leave ~1 MB behind each time).
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

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
 * The cache runs as code in the hook, so it is used only from a folder only this user can write: created 0700 when
 * missing; an existing one must be ours (isOurFolder).
 */
function folderIsOurs(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return isOurFolder(dir);
  } catch {
    return false;
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
      if (entry.startsWith(`${chunk}-`) && entry.endsWith(suffix) && entry !== basename(keep)) rmSync(join(dirname(keep), entry), { force: true });
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
    try {
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600, flag: 'wx' });
      renameSync(tmp, path); // whole or not at all: a concurrent hook reads either no cache or a complete one
    } catch {
      continue; // read-only or full: compile without a cache next time too
    }
    removeStale(chunk, path);
  }
}

function load(file: string): unknown {
  const source = readFileSync(file, 'utf8');
  const path = cachePath(file, source);
  let cachedData: Buffer | undefined;
  if (path) {
    try { cachedData = readFileSync(path); } catch { /* first run, or unreadable */ }
  }
  // The CommonJS wrapper, as Node's own loader builds it.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
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
