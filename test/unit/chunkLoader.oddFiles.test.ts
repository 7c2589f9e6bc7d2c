/**
 * lib/platform/chunkLoader.ts in this process, with odd things where its files go: a FIFO where the cache or its
 * in-use mark should be (never waited on), a mark that is a link (not followed), a cache at the size cap, and many
 * loads (no file descriptor left open, one exit listener).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadChunk } from '../../lib/platform/chunkLoader.js';
import { useChunkCacheFixture } from '../helpers/chunkCache.js';

const fx = useChunkCacheFixture();
const CAP = 64 * 1024 * 1024;

/** A cache made by a first load, and a way to load the same chunk again from another folder. */
function cached(name: string): { path: string; again: (n?: number) => string } {
  fx.use();
  const first = fx.chunk(`one/${name}`);
  loadChunk(first);
  fx.exit();
  const path = join(fx.folder, fx.cacheName(first));
  expect(existsSync(path)).toBe(true);
  return { path, again: (n = 0) => fx.chunk(`two${n}/${name}`, readFileSync(first, 'utf8')) };
}

/** Makes a FIFO at `path` (mkfifo is no part of Node); false when this system has no mkfifo. */
const fifo = (path: string) => spawnSync('mkfifo', [path]).status === 0;

describe('odd files where the cache goes', () => {
  it('a FIFO where the cache should be is never waited on: the chunk is compiled without a cache', (ctx) => {
    fx.use();
    const file = fx.chunk('fifo.cjs');
    const path = join(fx.folder, fx.cacheName(file));
    loadChunk(fx.chunk('first.cjs', 'module.exports = 1;')); // makes the folder
    if (!fifo(path)) ctx.skip('a FIFO cannot be made here');
    expect((loadChunk(file) as { twice: (x: number) => number }).twice(4)).toBe(8);
  });

  it('a FIFO where the in-use mark should be is never waited on: no holder in it, so the cache is removed', (ctx) => {
    const { path, again } = cached('fifomark.cjs');
    if (!fifo(`${path}.inuse`)) ctx.skip('a FIFO cannot be made here');
    loadChunk(again());
    expect(existsSync(path)).toBe(false);
  });

  it('an in-use mark that is a link is not followed (not even to a live pid): the cache is removed', () => {
    const { path, again } = cached('linkmark.cjs');
    const holder = join(fx.cursor, 'holder');
    writeFileSync(holder, String(process.ppid));
    symlinkSync(holder, `${path}.inuse`);
    loadChunk(again());
    expect(fx.files()).toEqual([]);
    expect(readFileSync(holder, 'utf8')).toBe(String(process.ppid));
  });

  it('a cache of exactly 64 MiB with a right checksum is read (and marked); one byte more is not even read', () => {
    const { path, again } = cached('big.cjs');
    // 64 MiB of zeros after the checksum of those zeros (FNV-1a over zero words).
    let hash = 0x811c9dc5;
    for (let i = 0; i < (CAP - 4) / 4; i++) hash = Math.imul(hash, 0x01000193);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(hash >>> 0);
    rmSync(path);
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, head);
    closeSync(fd);
    truncateSync(path, CAP);
    loadChunk(again(1));
    expect(existsSync(`${path}.inuse`)).toBe(true);
    fx.exit();
    rmSync(path);
    writeFileSync(path, head, { mode: 0o600 });
    truncateSync(path, CAP + 1);
    loadChunk(again(2));
    expect(existsSync(`${path}.inuse`)).toBe(false);
  });
});

describe('many loads', () => {
  it.runIf(existsSync('/proc/self/fd'))('leave no file descriptor open: caches read, marks read', () => {
    const { path, again } = cached('fds.cjs');
    const good = readFileSync(path);
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let n = 0; n < 20; n++) {
      writeFileSync(path, good, { mode: 0o600 });
      writeFileSync(`${path}.inuse`, 'no pid', { mode: 0o600 }); // read, then removed with the cache
      loadChunk(again(n));
    }
    expect(open() - before).toBeLessThan(10);
  });

  it('add one exit listener however many chunks need a cache written', () => {
    fx.use();
    const before = process.listeners('exit').length;
    for (let n = 0; n < 12; n++) loadChunk(fx.chunk(`many/c${n}.cjs`));
    expect(process.listeners('exit').length).toBe(before + 1);
    fx.exit();
    expect(fx.files()).toHaveLength(12);
  });
});
