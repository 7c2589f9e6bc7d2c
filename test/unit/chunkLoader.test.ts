/**
 * lib/platform/chunkLoader.ts in this process, with real files and real V8 code caches: a chunk is loaded as
 * CommonJS, its cache is written when the process exits (0600, in a 0700 folder, behind a checksum of its data),
 * found and used by a later load of the same chunk, and refused when damaged, in which case it is written again.
 */
import { chmodSync, chownSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checksumOf, loadChunk } from '../../lib/platform/chunkLoader.js';
import { CHUNK_SOURCE, CHUNK_TIME, useChunkCacheFixture } from '../helpers/chunkCache.js';
import { NEEDS_ROOT, notRunWhen } from '../helpers/notRun.js';

const fx = useChunkCacheFixture();

interface Chunk { file: string; dir: string; same: boolean; twice: (x: number) => number }
const runs = () => (globalThis as { __chunkRuns?: number }).__chunkRuns ?? 0;

/** A cache file is the checksum of the V8 data (4 bytes), then the data. */
function expectWhole(path: string): Buffer {
  const bytes = readFileSync(path);
  expect(bytes.length).toBeGreaterThan(100);
  expect(checksumOf(bytes.subarray(4)).equals(bytes.subarray(0, 4))).toBe(true);
  return bytes;
}

/** A second copy of `file` (same name, size and modification time), so a load of it meets the first one's cache. */
function sameChunkElsewhere(file: string, folder: string): string {
  const copy = fx.chunk(join(folder, file.slice(file.lastIndexOf('/') + 1)));
  copyFileSync(file, copy);
  utimesSync(copy, CHUNK_TIME, CHUNK_TIME);
  return copy;
}

describe('loading a chunk', () => {
  it('runs it as CommonJS (module, exports, __filename, __dirname; a last line that is a comment), once per process', () => {
    const file = fx.chunk('a/one.cjs');
    const before = runs();
    const chunk = loadChunk(file) as Chunk;
    expect(chunk).toMatchObject({ file, dir: join(file, '..'), same: true });
    expect(chunk.twice(21)).toBe(42);
    expect(loadChunk(file)).toBe(chunk);
    expect(runs()).toBe(before + 1);
  });

  it('a chunk that fills `exports` itself gets the object module.exports starts as', () => {
    const chunk = loadChunk(fx.chunk('exports.cjs', 'exports.answer = 42;\nexports.self = module.exports;')) as { answer: number; self: unknown };
    expect(chunk.answer).toBe(42);
    expect(chunk.self).toBe(chunk);
  });

  it('with no cache set, writes nothing anywhere', () => {
    const file = fx.chunk('none.cjs');
    loadChunk(file);
    fx.exit();
    expect(existsSync(fx.root)).toBe(false);
  });
});

describe('the code cache', () => {
  it('is written when the process exits, not before: 0600 in a 0700 folder, named after the chunk, checksum first', () => {
    fx.use();
    const file = fx.chunk('made.cjs');
    (loadChunk(file) as Chunk).twice(1);
    expect(fx.files()).toEqual([]);
    fx.exit();
    const name = fx.cacheName(file);
    expect(name).toMatch(/^made\.cjs-\d+-\d{16}-v\d+\.\d+\.\d+-\w+\.v8cache$/);
    expect(fx.files()).toEqual([name]);
    expect(statSync(fx.folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(fx.folder, name)).mode & 0o777).toBe(0o600);
    expectWhole(join(fx.folder, name));
  });

  it('is named after the chunk\'s length in characters (not bytes)', () => {
    fx.use();
    const file = fx.chunk('accents.cjs', 'module.exports = "déjà vu";');
    loadChunk(file);
    fx.exit();
    expect(fx.files()).toEqual([fx.cacheName(file)]);
    expect(fx.cacheName(file)).toMatch(/^accents\.cjs-27-/);
  });

  it('is used by a later load of the same chunk, not written again: marked in use on its first use, proven when that run ends', () => {
    fx.use();
    const first = fx.chunk('one/used.cjs');
    loadChunk(first);
    fx.exit();
    const path = join(fx.folder, fx.cacheName(first));
    const made = expectWhole(path);
    const { ino } = statSync(path);

    const second = sameChunkElsewhere(first, 'two');
    expect((loadChunk(second) as Chunk).file).toBe(second);
    expect(readFileSync(`${path}.inuse`, 'utf8')).toBe(String(process.pid));
    expect(existsSync(`${path}.ok`)).toBe(false);
    fx.exit();
    // The proof holds the checksum of the data that run used.
    expect(fx.files()).toEqual([fx.cacheName(first), `${fx.cacheName(first)}.ok`]);
    expect(readFileSync(`${path}.ok`, 'utf8')).toBe(made.subarray(0, 4).toString('hex'));
    expect(statSync(`${path}.ok`).mode & 0o777).toBe(0o600);

    // A proven cache is used with no mark: this run creates no file.
    const third = sameChunkElsewhere(first, 'three');
    expect((loadChunk(third) as Chunk).file).toBe(third);
    expect(fx.files()).toEqual([fx.cacheName(first), `${fx.cacheName(first)}.ok`]);
    fx.exit();
    expect(fx.files()).toEqual([fx.cacheName(first), `${fx.cacheName(first)}.ok`]);
    expect(statSync(path).ino).toBe(ino);
    expect(readFileSync(path).equals(made)).toBe(true);
  });

  it.each([
    ['another checksum', (digest: string) => (digest === '00000000' ? '00000001' : '00000000')],
    ['empty', () => ''],
    ['the checksum and more', (digest: string) => `${digest}\n`],
  ])('a proof that does not hold this cache\'s checksum (%s) proves nothing: the run marks the cache again', (_name, proof) => {
    fx.use();
    const first = fx.chunk('one/unproven.cjs');
    loadChunk(first);
    fx.exit();
    const path = join(fx.folder, fx.cacheName(first));
    const digest = readFileSync(path).subarray(0, 4).toString('hex');
    writeFileSync(`${path}.ok`, proof(digest), { mode: 0o600 });
    loadChunk(sameChunkElsewhere(first, 'two'));
    expect(readFileSync(`${path}.inuse`, 'utf8')).toBe(String(process.pid));
    fx.exit();
    expect(readFileSync(`${path}.ok`, 'utf8')).toBe(digest);
  });

  it('a load that compiles without a cache marks nothing', () => {
    fx.use();
    const file = fx.chunk('unmarked.cjs');
    loadChunk(file);
    expect(fx.files()).toEqual([]);
  });

  it.each([
    ['one bit flipped in the data', (good: Buffer) => { const b = Buffer.from(good); b[b.length >> 1]! ^= 0x10; return b; }],
    ['one bit flipped in the checksum', (good: Buffer) => { const b = Buffer.from(good); b[2]! ^= 0x01; return b; }],
    ['only a checksum (of no data)', () => checksumOf(Buffer.alloc(0))],
    ['shorter than a checksum', () => Buffer.from([1, 2])],
    ['empty', () => Buffer.alloc(0)],
  ])('damaged (%s): never given to V8 nor marked, and written again at exit', (_name, damage) => {
    fx.use();
    const first = fx.chunk('one/damaged.cjs');
    loadChunk(first);
    fx.exit();
    const path = join(fx.folder, fx.cacheName(first));
    const bad = damage(readFileSync(path));
    writeFileSync(path, bad, { mode: 0o600 });

    const second = sameChunkElsewhere(first, 'two');
    expect((loadChunk(second) as Chunk).twice(2)).toBe(4);
    expect(fx.files()).toEqual([fx.cacheName(first)]);
    fx.exit();
    expect(expectWhole(path).equals(bad)).toBe(false);
  });

  it('whole but not V8 data for this chunk: V8 rejects it, the chunk still runs, and the cache is made again', () => {
    fx.use();
    const file = fx.chunk('rejected.cjs');
    const path = join(fx.folder, fx.cacheName(file));
    const garbage = Buffer.alloc(2048, 0x5a);
    mkdirSync(fx.folder, { recursive: true, mode: 0o700 });
    writeFileSync(path, Buffer.concat([checksumOf(garbage), garbage]), { mode: 0o600 });
    expect((loadChunk(file) as Chunk).twice(3)).toBe(6);
    expect(existsSync(`${path}.inuse`)).toBe(true);
    fx.exit();
    // Data V8 refused is not proven: only the new cache is left, and its first use will be marked.
    expect(fx.files()).toEqual([fx.cacheName(file)]);
    expect(expectWhole(path).subarray(4).equals(garbage)).toBe(false);
  });

  it.each([
    ['others may write to it', (path: string) => chmodSync(path, 0o666)],
    ['it is a link to a good cache', (path: string) => {
      const elsewhere = join(fx.cursor, 'elsewhere.v8cache');
      writeFileSync(elsewhere, readFileSync(path), { mode: 0o600 });
      rmSync(path);
      symlinkSync(elsewhere, path);
    }],
    ['it is a folder', (path: string) => { rmSync(path); mkdirSync(path); }],
  ])('a cache file that is not ours (%s) is not used', (_name, spoil) => {
    fx.use();
    const first = fx.chunk('one/foreign.cjs');
    loadChunk(first);
    fx.exit();
    const path = join(fx.folder, fx.cacheName(first));
    spoil(path);
    loadChunk(sameChunkElsewhere(first, 'two'));
    expect(existsSync(`${path}.inuse`)).toBe(false);
  });

  it('a cache file owned by another user is not used (checked as root, who can give it away)', notRunWhen(NEEDS_ROOT), () => {
    fx.use();
    const first = fx.chunk('one/owned.cjs');
    loadChunk(first);
    fx.exit();
    const path = join(fx.folder, fx.cacheName(first));
    chownSync(path, 12345, 12345);
    loadChunk(sameChunkElsewhere(first, 'two'));
    expect(existsSync(`${path}.inuse`)).toBe(false);
  });

  it('a link planted where the temporary file goes is not followed: what it points to is untouched, no cache is made', () => {
    fx.use();
    const file = fx.chunk('planted.cjs');
    const path = join(fx.folder, fx.cacheName(file));
    loadChunk(file);
    const target = join(fx.cursor, 'target');
    writeFileSync(target, 'untouched');
    symlinkSync(target, `${path}.${process.pid}.tmp`);
    fx.exit();
    expect(readFileSync(target, 'utf8')).toBe('untouched');
    expect(existsSync(path)).toBe(false);
    // Not made by this run, so not removed by it either.
    expect(lstatSync(`${path}.${process.pid}.tmp`).isSymbolicLink()).toBe(true);
  });
});

describe('a cache that cannot be put in place', () => {
  it('leaves no temporary file behind when the rename fails (a folder where the cache goes)', () => {
    fx.use();
    const file = fx.chunk('blocked.cjs');
    const path = join(fx.folder, fx.cacheName(file));
    mkdirSync(path, { recursive: true });
    writeFileSync(join(path, 'x'), '1');
    expect((loadChunk(file) as Chunk).twice(4)).toBe(8);
    fx.exit();
    expect(fx.files()).toEqual([fx.cacheName(file)]);
  });
});

describe('the checksum', () => {
  it('is FNV-1a: the standard values for input shorter than a word', () => {
    expect(checksumOf(Buffer.alloc(0)).toString('hex')).toBe('811c9dc5');
    expect(checksumOf(Buffer.from('a')).toString('hex')).toBe('e40c292c');
    expect(checksumOf(Buffer.from('abc')).toString('hex')).toBe('1a47e90b');
  });
  it('over 32-bit words, then the bytes left over', () => {
    const data = Buffer.from(CHUNK_SOURCE);
    let hash = 0x811c9dc5;
    const words = data.length >> 2;
    for (let i = 0; i < words; i++) hash = Math.imul(hash ^ data.readInt32LE(i * 4), 0x01000193);
    for (let i = words * 4; i < data.length; i++) hash = Math.imul(hash ^ data[i]!, 0x01000193);
    expect(checksumOf(data).readUInt32BE(0)).toBe(hash >>> 0);
    expect(checksumOf(Buffer.concat([Buffer.from([7]), data]).subarray(1)).readUInt32BE(0)).toBe(hash >>> 0);
  });
});
