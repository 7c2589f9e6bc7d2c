import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock, breakStaleLock, isProcessAlive, readLockFile } from '../../lib/platform/fs/fileLock.js';
import { createExclusive, fileMode, readTextIfExists, removeIfExists, writeFileAtomic } from '../../lib/platform/fs/secureFile.js';
import { leftoversOf } from '../../lib/platform/fs/tempSweep.js';
import { readStateFile, readStateFileIfExists } from '../../lib/platform/fs/stateFile.js';
import { bundleForTest } from '../helpers/bundle.js';
import { tempDir } from '../helpers/repo.js';
import { IS_WINDOWS, PRIVATE_MODE } from '../helpers/platform.js';
import { NEVER_A_PID } from '../helpers/deadPid.js';
import { expectWithinDeadline, timed, timerMs } from '../helpers/deadline.js';

describe('secure files', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('writes atomically with mode 0600 and leaves no temp file behind', () => {
    const path = join(tmp.path, 'a', 'secret.json');
    writeFileAtomic(path, '{"x":1}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"x":1}\n');
    expect(fileMode(path)).toBe(PRIVATE_MODE);
    writeFileAtomic(path, 'second');
    expect(readFileSync(path, 'utf8')).toBe('second');
    expect(readdirSync(join(tmp.path, 'a'))).toEqual(['secret.json']);
  });

  it.skipIf(IS_WINDOWS)('replaces a symlink itself instead of writing through it', () => {
    const target = join(tmp.path, 'target.txt');
    const link = join(tmp.path, 'link.txt');
    writeFileSync(target, 'original');
    symlinkSync(target, link);
    writeFileAtomic(link, 'new');
    expect(readFileSync(target, 'utf8')).toBe('original');
    expect(lstatSync(link).isSymbolicLink()).toBe(false);
  });

  it('creates exclusively, 0600 from creation, and reports an existing file', () => {
    const path = join(tmp.path, 'lock');
    expect(createExclusive(path, 'one')).toBe(true);
    expect(fileMode(path)).toBe(PRIVATE_MODE);
    expect(createExclusive(path, 'two')).toBe(false);
    expect(readTextIfExists(path, { maxBytes: 1 << 20 })).toBe('one');
    expect(removeIfExists(path)).toBe(true);
    expect(removeIfExists(path)).toBe(false);
    expect(readTextIfExists(path, { maxBytes: 1 << 20 })).toBeNull();
  });

  it('creates exclusively with the whole content at once, leaving no temp file', () => {
    const path = join(tmp.path, 'whole.lock');
    expect(createExclusive(path, '{"pid":1}')).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"pid":1}');
    expect(readdirSync(tmp.path).filter((f) => f.includes('whole.lock.'))).toEqual([]);
  });

  it('falls back to create-then-write on a file system without hard links: 0600, whole content, exclusive, no temp left', () => {
    const noLinks = () => { throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' }); };
    const path = join(tmp.path, 'nolinks.lock');
    expect(createExclusive(path, '{"pid":2}', { link: noLinks })).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"pid":2}');
    expect(fileMode(path)).toBe(PRIVATE_MODE);
    expect(createExclusive(path, 'other', { link: noLinks })).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('{"pid":2}');
    expect(readdirSync(tmp.path).filter((f) => f.includes('nolinks.lock.'))).toEqual([]);
  });

  it('knows the leftovers a killed writer can leave: file temp, lock temp, stale lock', () => {
    const names = ['mcp.json', 'mcp.json.lock', '.mcp.json.12.ab12.tmp', '.mcp.json.lock.34.cd34.tmp', 'mcp.json.lock.56.ef56.stale', '.other.json.7.aa.tmp', 'mcp.json.bak'];
    expect(leftoversOf('/x/mcp.json', names)).toEqual([
      { name: '.mcp.json.12.ab12.tmp', pid: 12 }, { name: '.mcp.json.lock.34.cd34.tmp', pid: 34 }, { name: 'mcp.json.lock.56.ef56.stale', pid: 56 },
    ]);
  });

  it('surfaces errors other than a missing file', () => {
    const dir = join(tmp.path, 'dir');
    mkdirSync(dir);
    expect(() => readTextIfExists(dir, { maxBytes: 1 << 20 })).toThrow(/EISDIR/);
  });
});

describe('a state file is read without blocking, only as a regular file, and never past its cap', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());
  const posix = process.platform !== 'win32';

  it.runIf(posix)('a FIFO: refused at once (ENOTREGULAR), even behind a symlink', () => {
    const fifo = join(tmp.path, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    symlinkSync(fifo, join(tmp.path, 'to-fifo'));
    for (const path of [fifo, join(tmp.path, 'to-fifo')]) expect(() => readStateFile(path, { maxBytes: 100 })).toThrowError(expect.objectContaining({ code: 'ENOTREGULAR' }));
  });

  it.runIf(posix)('a link to /dev/zero: refused (ENOTREGULAR), not read forever', () => {
    symlinkSync('/dev/zero', join(tmp.path, 'zero'));
    expect(() => readStateFile(join(tmp.path, 'zero'), { maxBytes: 100 })).toThrowError(expect.objectContaining({ code: 'ENOTREGULAR' }));
  });

  it('past its cap: refused (EFBIG) before reading; at the cap: read whole; missing: null', () => {
    const path = join(tmp.path, 'capped');
    writeFileSync(path, 'x'.repeat(101));
    expect(() => readStateFile(path, { maxBytes: 100 })).toThrowError(expect.objectContaining({ code: 'EFBIG' }));
    expect(readStateFile(path, { maxBytes: 101 }).toString()).toBe('x'.repeat(101));
    expect(readStateFileIfExists(join(tmp.path, 'none'), { maxBytes: 1 })).toBeNull();
    expect(() => readStateFile(tmp.path, { maxBytes: 100 })).toThrowError(expect.objectContaining({ code: 'EISDIR' }));
  });
});

describe('cross-process lock', () => {
  const tmp = tempDir();
  let counterScript = '';
  beforeAll(async () => {
    counterScript = await bundleForTest('test/fixtures/lockedCounter.ts', join(tmp.path, 'lockedCounter.mjs'));
  });
  afterAll(() => tmp.cleanup());

  it('loses no update when 6 processes increment one file 15 times each', async () => {
    const counter = join(tmp.path, 'counter');
    writeFileSync(counter, '0');
    const runs = Array.from({ length: 6 }, () => new Promise<number | null>((resolve) => {
      spawn(process.execPath, [counterScript, counter, '15'], { stdio: 'inherit' }).on('exit', resolve);
    }));
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(readFileSync(counter, 'utf8')).toBe('90');
  }, 60_000);

  it('breaks a lock whose process is dead, but waits for a live holder', async () => {
    const path = join(tmp.path, 'stale.lock');
    writeFileSync(path, JSON.stringify({ pid: NEVER_A_PID, acquired_at: new Date().toISOString() }));
    const release = await acquireLock(path, { timeoutMs: 1000 });
    expect(readLockFile(path)?.pid).toBe(process.pid);
    await expect(acquireLock(path, { timeoutMs: 150 })).rejects.toMatchObject({ code: 'locked' });
    release();
    expect(readTextIfExists(path, { maxBytes: 1 << 20 })).toBeNull();
  });

  it('waits for an empty lock that is only a moment old (still being written), and breaks an old empty one', async () => {
    const path = join(tmp.path, 'empty.lock');
    writeFileSync(path, '');
    await expect(acquireLock(path, { timeoutMs: 200 })).rejects.toMatchObject({ code: 'locked' });
    const past = new Date(Date.now() - 60_000);
    utimesSync(path, past, past);
    const release = await acquireLock(path, { timeoutMs: 1000 });
    expect(readLockFile(path)?.pid).toBe(process.pid);
    release();
    expect(readTextIfExists(path, { maxBytes: 1 << 20 })).toBeNull();
  });

  it('a folder where the lock file should be: a clear io error at once, no endless retry', async () => {
    // A lock taken and released where nothing is in the way, in this run: what the lock's own work costs here now.
    const started = performance.now();
    (await acquireLock(join(tmp.path, 'free.lock'), { timeoutMs: 300 }))();
    const baselineMs = performance.now() - started;
    const path = join(tmp.path, 'folder.lock');
    mkdirSync(path);
    const [{ value: error, ms }, deadlineMs] = await Promise.all([timed(() => acquireLock(path, { timeoutMs: 300 }).catch((e: unknown) => e)), timerMs(300)]);
    expect(error).toMatchObject({ code: 'io', message: expect.stringContaining('Cannot use the lock file') });
    // Not retried past the lock's own timeout: a folder is not a lock someone will release.
    expectWithinDeadline(ms, { deadlineMs, nominalMs: 300, baselineMs, what: 'a folder in the lock file\'s place' });
  });

  it('treats garbage in a lock file as stale', async () => {
    const path = join(tmp.path, 'garbage.lock');
    writeFileSync(path, 'not json at all');
    const release = await acquireLock(path, { timeoutMs: 1000 });
    expect(readLockFile(path)?.pid).toBe(process.pid);
    release();
    expect(readTextIfExists(path, { maxBytes: 1 << 20 })).toBeNull();
  });

  it('breakStaleLock leaves a lock that changed since it was judged stale', () => {
    const path = join(tmp.path, 'changed.lock');
    writeFileSync(path, 'fresh holder');
    breakStaleLock(path, 'the stale content we saw');
    expect(readTextIfExists(path, { maxBytes: 1 << 20 })).toBe('fresh holder');
    expect(readdirSync(tmp.path).filter((f) => f.endsWith('.stale'))).toEqual([]);
  });

  it('knows which processes are alive', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(NEVER_A_PID)).toBe(false);
    expect(isProcessAlive('12')).toBe(false);
  });
});
