/**
 * In-process fixture for lib/platform/chunkLoader.ts: a temporary Cursor dir (0700) with a cache root in it, chunk
 * files written there, and `exit()`, which runs what the loader left for the process's exit (writing the caches,
 * removing its in-use marks) the way Node does at exit: the listeners it added, in order, once.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { useChunkCache } from '../../lib/platform/chunkLoader.js';
import { tempDir } from './repo.js';

export const CACHE_SUFFIX = `-${process.version}-${process.arch}.v8cache`;
/** One fixed modification time for chunk files, so two copies of a chunk share a cache name. */
export const CHUNK_TIME = new Date('2030-01-02T03:04:05.678Z');

export const CHUNK_SOURCE = [
  'globalThis.__chunkRuns = (globalThis.__chunkRuns ?? 0) + 1;',
  'module.exports = { file: __filename, dir: __dirname, same: exports === module.exports, twice: (x) => x * 2 };',
  '// a last line that is a comment',
].join('\n');

export interface ChunkCacheFixture {
  /** The Cursor dir (the root's parent). */
  readonly cursor: string;
  /** The cache root. */
  readonly root: string;
  /** The cache folder of version "v1". */
  readonly folder: string;
  /** Writes a chunk file (CHUNK_SOURCE unless given) with CHUNK_TIME as its modification time. */
  chunk(relativePath: string, source?: string): string;
  /** The cache file name the loader gives `file`. */
  cacheName(file: string): string;
  /** Switches the cache on for version "v1" under the root. */
  use(): void;
  /** Runs the process-exit listeners added since the test began (each once, in order) and removes them. */
  exit(): void;
  /** The cache folder's entries, sorted ([] when it does not exist). */
  files(): string[];
}

export function useChunkCacheFixture(): ChunkCacheFixture {
  let dir: ReturnType<typeof tempDir>;
  let before: NodeJS.ExitListener[] = [];
  const exit = () => {
    for (const listener of process.listeners('exit')) {
      if (before.includes(listener)) continue;
      process.removeListener('exit', listener);
      listener.call(process, 0);
    }
  };
  beforeEach(() => {
    dir = tempDir('agentstack-chunk-');
    mkdirSync(join(dir.path, 'cursor'), { mode: 0o700 });
    chmodSync(join(dir.path, 'cursor'), 0o700);
    before = process.listeners('exit');
  });
  afterEach(() => {
    exit();
    useChunkCache(null);
    dir.cleanup();
  });
  const fixture: ChunkCacheFixture = {
    get cursor() { return join(dir.path, 'cursor'); },
    get root() { return join(dir.path, 'cursor', 'cache'); },
    get folder() { return join(dir.path, 'cursor', 'cache', 'v1'); },
    chunk(relativePath, source = CHUNK_SOURCE) {
      const file = join(dir.path, 'chunks', relativePath);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, source);
      utimesSync(file, CHUNK_TIME, CHUNK_TIME);
      return file;
    },
    cacheName(file) {
      const name = file.slice(file.lastIndexOf('/') + 1);
      return `${name}-${readFileSync(file, 'utf8').length}-${Math.round(statSync(file).mtimeMs * 1000)}${CACHE_SUFFIX}`;
    },
    use() { useChunkCache({ root: fixture.root, version: 'v1' }); },
    exit,
    files() {
      try { return readdirSync(fixture.folder).sort(); } catch { return []; }
    },
  };
  return fixture;
}
