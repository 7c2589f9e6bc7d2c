/**
 * The hooks' debug log: capped with one rotated file, 0600, never through a symlink, never blocking on a FIFO, and
 * a log that cannot be written stops the trace with one line instead of failing the hook.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appendRotating, readTail, rotatedPath } from '../../lib/platform/fs/rotatingLog.js';
import { traceToDebugLog } from '../../lib/agentstack/debug/trace.js';
import { apiTraceOn } from '../../lib/agentstack/debug/switch.js';
import { httpRequest, setHttpTrace } from '../../lib/platform/net/http.js';
import { IS_WINDOWS, PRIVATE_MODE } from '../helpers/platform.js';
import { tempDir } from '../helpers/repo.js';
import { bundleForTest } from '../helpers/bundle.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => { dir = tempDir('agentstack-debuglog-'); });
afterEach(() => {
  setHttpTrace(undefined);
  dir.cleanup();
});

const entry = (n: number) => `entry ${String(n).padStart(3, '0')} ${'x'.repeat(90)}\n`;

describe('appendRotating', () => {
  it('appends 0600; past the cap the file becomes .1 (replacing the one before) and a new one begins', () => {
    const path = join(dir.path, 'agentstack-debug.log');
    for (let n = 0; n < 30; n++) appendRotating(path, entry(n), { maxBytes: 1_000 });
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
    const current = readFileSync(path, 'utf8');
    const rotated = readFileSync(rotatedPath(path), 'utf8');
    expect(statSync(path).size).toBeLessThanOrEqual(1_000);
    expect(statSync(rotatedPath(path)).size).toBeLessThanOrEqual(1_000);
    // The newest entries are kept, in order, whole; older ones are gone for good (one rotation only).
    expect(current.trimEnd().split('\n').at(-1)).toBe(entry(29).trimEnd());
    expect(rotated + current).toBe(Array.from({ length: 30 }, (_, n) => entry(n)).join('').slice(-(rotated + current).length));
    expect(rotated + current).not.toContain('entry 000');
    expect(existsSync(`${path}.2`)).toBe(false);
  });

  it.skipIf(IS_WINDOWS)('refuses a symlink in its place (the target untouched) and a FIFO, without blocking', () => {
    const target = join(dir.path, 'target');
    writeFileSync(target, 'keep', { mode: 0o644 });
    const link = join(dir.path, 'link.log');
    symlinkSync(target, link);
    expect(() => appendRotating(link, 'x')).toThrow(expect.objectContaining({ code: 'ENOTREGULAR' }));
    expect(() => readTail(link)).toThrow(expect.objectContaining({ code: 'ENOTREGULAR' }));
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(lstatSync(target).mode & 0o777).toBe(0o644);
    const fifo = join(dir.path, 'fifo.log');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // Nobody reads the FIFO: a blocking open would hang this test until its timeout.
    expect(() => appendRotating(fifo, 'x')).toThrow(expect.objectContaining({ code: 'ENOTREGULAR' }));
    expect(() => readTail(fifo)).toThrow(expect.objectContaining({ code: 'ENOTREGULAR' }));
  });
});

describe('appendRotating: one rotation however many writers find the file full', () => {
  const full = (path: string) => writeFileSync(path, entry(0).repeat(10), { mode: 0o600 });

  it('a writer that finds another one rotating appends to the file it holds: nothing is moved twice, nothing lost', () => {
    const path = join(dir.path, 'log');
    full(path);
    // Another writer holds the claim (it is renaming right now): this one must not rotate as well.
    writeFileSync(`${path}.rotating`, '');
    appendRotating(path, entry(1), { maxBytes: 1_000 });
    expect(existsSync(rotatedPath(path))).toBe(false);
    expect(readFileSync(path, 'utf8').endsWith(entry(1))).toBe(true);
    // Once the claim is released, the next writer rotates, and removes its own claim.
    rmSync(`${path}.rotating`);
    appendRotating(path, entry(2), { maxBytes: 1_000 });
    expect(readFileSync(rotatedPath(path), 'utf8')).toBe(entry(0).repeat(10) + entry(1));
    expect(readFileSync(path, 'utf8')).toBe(entry(2));
    expect(existsSync(`${path}.rotating`)).toBe(false);
  });

  it('a claim left by a writer that died is broken once it is stale, and rotation resumes', () => {
    const path = join(dir.path, 'log');
    full(path);
    writeFileSync(`${path}.rotating`, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.rotating`, old, old);
    appendRotating(path, entry(1), { maxBytes: 1_000 });
    expect(existsSync(`${path}.rotating`)).toBe(false);
    appendRotating(path, entry(2), { maxBytes: 1_000 });
    expect(readFileSync(path, 'utf8')).toBe(entry(2));
    expect(readFileSync(rotatedPath(path), 'utf8').endsWith(entry(1))).toBe(true);
  });
});

describe('appendRotating: writers that find the file full in the same instant', () => {
  let worker = '';
  beforeAll(async () => { worker = await bundleForTest('test/fixtures/rotateRace.ts', join(tmpdir(), `agentstack-rotate-race-${process.pid}.mjs`)); });
  afterAll(() => rmSync(worker, { force: true }));

  it('rotate it once between them: every line, the full file\'s and theirs, is kept', async () => {
    for (let round = 0; round < 8; round++) {
      const path = join(dir.path, `race-${round}.log`);
      const old = Array.from({ length: 10 }, (_, n) => `old ${round} ${n} ${'o'.repeat(85)}\n`);
      writeFileSync(path, old.join(''), { mode: 0o600 });
      // [0]: the release, [1]: how many workers are waiting for it.
      const gate = new SharedArrayBuffer(8);
      const lines = Array.from({ length: 16 }, (_, n) => `new ${round} ${n}\n`);
      const workers = lines.map((line) => new Worker(worker, { workerData: { path, line, maxBytes: 1_000, gate } }));
      while (Atomics.load(new Int32Array(gate), 1) < lines.length) await new Promise((r) => setTimeout(r, 5));
      Atomics.store(new Int32Array(gate), 0, 1);
      Atomics.notify(new Int32Array(gate), 0);
      await Promise.all(workers.map((w) => new Promise((resolve, reject) => { w.on('exit', resolve); w.on('error', reject); })));
      const kept = (readFileSync(rotatedPath(path), 'utf8') + readFileSync(path, 'utf8')).split('\n').filter(Boolean).map((l) => `${l}\n`);
      expect(kept.sort()).toEqual([...old, ...lines].sort());
    }
  });
});

describe('readTail', () => {
  it('gives the last bytes from the first whole line, or null for no file', () => {
    const path = join(dir.path, 'log');
    expect(readTail(path)).toBeNull();
    writeFileSync(path, 'first line\nsecond line\nthird line\n');
    expect(readTail(path)).toBe('first line\nsecond line\nthird line\n');
    expect(readTail(path, 15)).toBe('third line\n');
  });
});

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => { server.closeAllConnections(); server.close(); });

describe('traceToDebugLog', () => {
  it('appends each exchange, labelled with the hook and its process', async () => {
    const path = join(dir.path, 'agentstack-debug.log');
    traceToDebugLog({}, 'session-start', () => {}, path);
    await httpRequest({ url: `${base}/x` });
    expect(readFileSync(path, 'utf8')).toMatch(new RegExp(`^\\[api session-start pid ${process.pid}\\] \\S+ GET ${base}/x -> 200 \\(\\d+ ms\\)\\n`));
  });

  it.skipIf(IS_WINDOWS)('a FIFO in its place: one line through the hook log, the trace stops, the requests go on', async () => {
    const path = join(dir.path, 'agentstack-debug.log');
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    const lines: string[] = [];
    traceToDebugLog({}, 'session-start', (m) => lines.push(m), path);
    await expect(httpRequest({ url: `${base}/1` })).resolves.toMatchObject({ status: 200 });
    await expect(httpRequest({ url: `${base}/2` })).resolves.toMatchObject({ status: 200 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/the debug log .*agentstack-debug\.log cannot be written \(ENOTREGULAR\); tracing stopped/);
  });
});

describe('apiTraceOn', () => {
  it('is on for api only', () => {
    expect(apiTraceOn({ AGENTSTACK_DEBUG: ' API ' })).toBe(true);
    expect(apiTraceOn({ AGENTSTACK_DEBUG: '1' })).toBe(false);
    expect(apiTraceOn({})).toBe(false);
  });
});
