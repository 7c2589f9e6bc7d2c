/**
 * lib/platform/chunkLoader.ts in this process: the in-use mark (a live holder leaves the cache alone, a dead one or
 * an unreadable mark gets the cache removed and made again), the cleanup when a cache is written (other versions,
 * older builds of the chunk and their marks; never other chunks or other Node versions), and folders that are not
 * only ours or cannot be made: the chunk is compiled without a cache and nothing is said.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checksumOf, loadChunk, useChunkCache } from '../../lib/platform/chunkLoader.js';
import { CACHE_SUFFIX, CHUNK_TIME, useChunkCacheFixture } from '../helpers/chunkCache.js';
import { NEVER_A_PID } from '../helpers/deadPid.js';
import { NEEDS_NON_ROOT, NEEDS_ROOT, notRunWhen } from '../helpers/notRun.js';

const fx = useChunkCacheFixture();
const OLD = new Date('2001-01-01T00:00:00Z');

/** A cache made by a first load, dated 2001 (a cache made again is newer), and a second copy of its chunk. */
function cached(name: string): { path: string; again: string } {
  fx.use();
  const first = fx.chunk(`one/${name}`);
  loadChunk(first);
  fx.exit();
  const path = join(fx.folder, fx.cacheName(first));
  expect(existsSync(path)).toBe(true);
  utimesSync(path, OLD, OLD);
  const again = fx.chunk(`two/${name}`, readFileSync(first, 'utf8'));
  utimesSync(again, CHUNK_TIME, CHUNK_TIME);
  return { path, again };
}
const year = (path: string) => statSync(path).mtime.getUTCFullYear();

describe('the in-use mark', () => {
  it.each([
    ['a dead process', String(NEVER_A_PID)],
    ['this very process (a pid reused since)', String(process.pid)],
    ['pid 0 (its process group)', '0'],
    ['pid -1 (every process)', '-1'],
    ['no pid', 'garbage'],
  ])('left by %s: the cache is skipped and removed at once, with the mark, and made again at exit', (_name, holder) => {
    const { path, again } = cached('dead.cjs');
    writeFileSync(`${path}.inuse`, holder, { mode: 0o600 });
    loadChunk(again);
    expect(fx.files()).toEqual([]);
    fx.exit();
    expect(fx.files()).toEqual([path.slice(fx.folder.length + 1)]);
    expect(year(path)).toBeGreaterThan(2001);
  });

  it('a proof of other data (the cache was replaced before that run died) goes with them', () => {
    const { path, again } = cached('dead-proof.cjs');
    writeFileSync(`${path}.inuse`, String(NEVER_A_PID), { mode: 0o600 });
    writeFileSync(`${path}.ok`, '00000000', { mode: 0o600 });
    loadChunk(again);
    expect(fx.files()).toEqual([]);
  });

  it('a mark or a proof that is a folder is removed too', () => {
    const { path, again } = cached('folder.cjs');
    for (const name of [`${path}.inuse`, `${path}.ok`]) {
      mkdirSync(name);
      writeFileSync(join(name, 'x'), '1');
    }
    loadChunk(again);
    expect(fx.files()).toEqual([]);
  });

  it('held by a live process: this run compiles without the cache and changes nothing, not even at exit', () => {
    const { path, again } = cached('busy.cjs');
    // Data V8 would reject (a run that used it would write the cache again at exit), behind a right checksum.
    const garbage = Buffer.alloc(1024, 0x33);
    writeFileSync(path, Buffer.concat([checksumOf(garbage), garbage]));
    utimesSync(path, OLD, OLD);
    writeFileSync(`${path}.inuse`, String(process.ppid), { mode: 0o600 });
    loadChunk(again);
    fx.exit();
    expect(year(path)).toBe(2001);
    expect(readFileSync(`${path}.inuse`, 'utf8')).toBe(String(process.ppid));
  });

  it('held by a process of another user (pid 1: alive, though this user may not signal it): left alone', notRunWhen(NEEDS_NON_ROOT), () => {
    const { path, again } = cached('other-user.cjs');
    writeFileSync(`${path}.inuse`, '1', { mode: 0o600 });
    loadChunk(again);
    fx.exit();
    expect(year(path)).toBe(2001);
  });

  it('a mark that cannot be made (its name is too long for the file system): the cache is left alone, not used', () => {
    // The cache's own name fits in 255 bytes; with ".inuse" it does not.
    // (Nor does its temporary file: the cache is a copy of one made for the same source under a short name.)
    const { path: short, again: source } = cached('short.cjs');
    const long = `${'x'.repeat(255 - fx.cacheName(source).length + 'short.cjs'.length - 4)}.cjs`;
    const again = fx.chunk(`two/${long}`, readFileSync(source, 'utf8'));
    const path = join(fx.folder, fx.cacheName(again));
    expect(path.length - fx.folder.length - 1).toBe(255);
    writeFileSync(path, readFileSync(short), { mode: 0o600 });
    utimesSync(path, OLD, OLD);
    loadChunk(again);
    fx.exit();
    expect(year(path)).toBe(2001);
  });
});

describe('writing a cache removes what no run of this version will read again', () => {
  it('other versions, older builds of the chunk for this Node and their marks and proofs; not other chunks or Node versions', () => {
    fx.use();
    mkdirSync(join(fx.root, '0.0.1'), { recursive: true, mode: 0o700 });
    writeFileSync(join(fx.root, '0.0.1', `clean.cjs-1-1${CACHE_SUFFIX}`), 'old version');
    writeFileSync(join(fx.root, 'stray-file'), 'x');
    mkdirSync(fx.folder, { recursive: true, mode: 0o700 });
    const olderBuild = `clean.cjs-1-1${CACHE_SUFFIX}`;
    const keep = [`clean.cjs-1-1-v99.0.0-${process.arch}.v8cache`, `clean.cjs2.cjs-1-1${CACHE_SUFFIX}`, `other.cjs-1-1${CACHE_SUFFIX}`, 'clean.cjs-notes'];
    for (const name of [olderBuild, `${olderBuild}.inuse`, `${olderBuild}.ok`, ...keep]) writeFileSync(join(fx.folder, name), 'x');
    const file = fx.chunk('clean.cjs');
    loadChunk(file);
    expect(fx.files()).toContain(olderBuild);
    fx.exit();
    expect(readdirSync(fx.root)).toEqual(['v1']);
    expect(fx.files()).toEqual([fx.cacheName(file), ...keep].sort());
  });

  it('a chunk whose own name holds ".ok" or ".inuse": its older builds go too, with their marks and proofs', () => {
    fx.use();
    mkdirSync(fx.folder, { recursive: true, mode: 0o700 });
    const olderBuild = `look.ok.inuse.cjs-1-1${CACHE_SUFFIX}`;
    for (const name of [olderBuild, `${olderBuild}.inuse`, `${olderBuild}.ok`]) writeFileSync(join(fx.folder, name), 'x');
    const file = fx.chunk('look.ok.inuse.cjs');
    loadChunk(file);
    fx.exit();
    expect(fx.files()).toEqual([fx.cacheName(file)]);
  });

  it('a mark another run put on the new cache meanwhile stays', () => {
    fx.use();
    const file = fx.chunk('kept.cjs');
    loadChunk(file);
    const mark = join(fx.folder, `${fx.cacheName(file)}.inuse`);
    writeFileSync(mark, String(process.ppid));
    fx.exit();
    expect(fx.files()).toEqual([fx.cacheName(file), `${fx.cacheName(file)}.inuse`]);
  });

  it('a run that only reads a cache removes nothing', () => {
    const { again } = cached('reader.cjs');
    mkdirSync(join(fx.root, '0.0.1'), { mode: 0o700 });
    loadChunk(again);
    fx.exit();
    expect(readdirSync(fx.root).sort()).toEqual(['0.0.1', 'v1']);
  });

  it('a cache that could not be written removes nothing', () => {
    fx.use();
    const file = fx.chunk('unwritten.cjs');
    mkdirSync(join(fx.root, '0.0.1'), { recursive: true, mode: 0o700 });
    loadChunk(file);
    mkdirSync(join(fx.folder, fx.cacheName(file))); // a folder where the cache goes: the rename fails
    fx.exit();
    expect(readdirSync(fx.root).sort()).toEqual(['0.0.1', 'v1']);
  });

  it('nothing is removed when the root became writable by others, or the cache was switched off, before the exit', () => {
    fx.use();
    mkdirSync(join(fx.root, '0.0.1'), { recursive: true, mode: 0o700 });
    const a = fx.chunk('a.cjs');
    loadChunk(a);
    chmodSync(fx.root, 0o777);
    fx.exit();
    expect(fx.files()).toEqual([fx.cacheName(a)]);
    expect(readdirSync(fx.root).sort()).toEqual(['0.0.1', 'v1']);

    chmodSync(fx.root, 0o700);
    const b = fx.chunk('b.cjs');
    loadChunk(b);
    useChunkCache(null);
    fx.exit();
    expect(fx.files()).toEqual([fx.cacheName(a), fx.cacheName(b)]);
    expect(readdirSync(fx.root).sort()).toEqual(['0.0.1', 'v1']);
  });
});

describe('a cache folder that is not only ours, or cannot be made: compiled without a cache, nothing said', () => {
  let said: string[];
  beforeEach(() => {
    said = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => { said.push(String(text)); return true; });
    vi.spyOn(process.stdout, 'write').mockImplementation((text) => { said.push(String(text)); return true; });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    expect(said).toEqual([]);
  });
  const runs = (file: string) => expect((loadChunk(file) as { twice: (x: number) => number }).twice(5)).toBe(10);

  it.each([
    ['the version folder', () => fx.folder],
    ['the root', () => fx.root],
    ['the Cursor dir', () => fx.cursor],
  ])('%s writable by others: no cache read or written', (_name, folder) => {
    mkdirSync(fx.folder, { recursive: true, mode: 0o700 });
    chmodSync(folder(), 0o777);
    fx.use();
    runs(fx.chunk('open.cjs'));
    fx.exit();
    expect(fx.files()).toEqual([]);
  });

  it('the version folder owned by another user (checked as root): no cache', notRunWhen(NEEDS_ROOT), () => {
    mkdirSync(fx.folder, { recursive: true, mode: 0o700 });
    chownSync(fx.folder, 12345, 12345);
    fx.use();
    runs(fx.chunk('owned.cjs'));
    fx.exit();
    expect(fx.files()).toEqual([]);
  });

  it('a file where the root should be: no cache, and none tried again in this process once it could be', () => {
    writeFileSync(fx.root, 'not a folder');
    fx.use();
    runs(fx.chunk('blocked.cjs'));
    rmSync(fx.root);
    runs(fx.chunk('later.cjs'));
    fx.exit();
    expect(existsSync(fx.root)).toBe(false);
  });

  it('folders that do not exist yet are made (0700) and used', () => {
    fx.use();
    runs(fx.chunk('fresh.cjs'));
    fx.exit();
    expect(statSync(fx.root).mode & 0o777).toBe(0o700);
    expect(fx.files()).toHaveLength(1);
  });
});
