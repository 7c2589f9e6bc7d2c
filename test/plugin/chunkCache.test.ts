/**
 * The hooks' code cache (lib/platform/chunkLoader.ts) as the built pre-MCP hook uses it: made on the first run,
 * reused after, and never able to change an answer: garbage in it is rejected and replaced, a folder others may write
 * to is not used, and a cache that cannot be written is silently ignored.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { bigSnapshot } from '../helpers/fixtures.js';
import { PRE_MCP_SCRIPT } from '../helpers/sessionStart.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { NEVER_A_PID } from '../helpers/deadPid.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { checksumOf } from '../../lib/platform/chunkLoader.js';

const VERSION = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
const input = JSON.stringify({
  hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: JSON.stringify({ steps: [{ id: '1', action: 'nope.nothing' }] }),
  url: 'https://agentstack.tech/mcp', mcp_server_name: 'user-agentstack',
});

describe('the hooks\' code cache', () => {
  let dir: ReturnType<typeof tempDir>;
  let cache: string;
  // A per-action rule (about no action the call names) keeps the gate from denying the unknown action itself: every
  // run's deny comes from the full check, through the execute chunk and its cache.
  const run = (script = PRE_MCP_SCRIPT) => spawnSync(process.execPath, [script], {
    input, encoding: 'utf8', timeout: 30_000,
    env: { PATH: process.env.PATH, HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_ASK_ACTIONS: 'other.*' },
  });
  const files = () => { try { return readdirSync(cache); } catch { return []; } };
  const posix = process.platform !== 'win32';
  beforeEach(() => {
    dir = tempDir('agentstack-cache-');
    cache = join(dir.path, 'agentstack-compile-cache', VERSION);
    writeSnapshot(cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path }).capabilities, bigSnapshot(20));
  });
  afterEach(() => dir.cleanup());

  const expectDeny = (r: ReturnType<typeof run>) => {
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^pre-mcp-cap-check: deny: /);
    expect(JSON.parse(r.stdout).permission).toBe('deny');
  };

  it('is made on the first run (0700 folder, 0600 file) and reused unchanged after', () => {
    expectDeny(run());
    const [file, ...more] = files();
    expect(more).toEqual([]);
    expect(file).toMatch(/^pre-mcp-cap-check\.execute\.cjs-\d+-\d+-v\d+\.\d+\.\d+-\w+\.v8cache$/);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(join(cache, file!)).mode & 0o777).toBe(0o600);
    const made = readFileSync(join(cache, file!));
    const first = statSync(join(cache, file!)).mtimeMs;
    expectDeny(run());
    expect(statSync(join(cache, file!)).mtimeMs).toBe(first);
    expect(readFileSync(join(cache, file!)).equals(made)).toBe(true);
    // That run proved the cache; the runs after it create no file to load their code.
    expect(files().sort()).toEqual([file, `${file}.ok`]);
    const proof = statSync(join(cache, `${file}.ok`));
    expectDeny(run());
    expect(files().sort()).toEqual([file, `${file}.ok`]);
    expect(statSync(join(cache, `${file}.ok`)).ino).toBe(proof.ino);
  });

  it('garbage in the cache changes nothing: V8 rejects it and the next run replaces it', () => {
    expectDeny(run());
    const [file] = files();
    const garbage = Buffer.alloc(4096, 0x41);
    writeFileSync(join(cache, file!), garbage);
    expectDeny(run());
    expect(readFileSync(join(cache, file!)).equals(garbage)).toBe(false);
  });

  it('a cache folder others may write to is neither read nor written', () => {
    mkdirSync(cache, { recursive: true });
    chmodSync(cache, 0o777);
    expectDeny(run());
    expect(files()).toEqual([]);
  });

  it('a cache that cannot be made is ignored without a word', () => {
    rmSync(join(dir.path, 'agentstack-compile-cache'), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    writeFileSync(join(dir.path, 'agentstack-compile-cache'), 'not a folder');
    expectDeny(run());
  });

  it('writing a cache removes what no run will read again: older plugin versions, an older build of the chunk', () => {
    const root = join(dir.path, 'agentstack-compile-cache');
    mkdirSync(join(root, '0.0.1'), { recursive: true, mode: 0o700 });
    writeFileSync(join(root, '0.0.1', 'pre-mcp-cap-check.execute.cjs-1-1-v20.0.0-x64.v8cache'), 'old version');
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    const olderBuild = `pre-mcp-cap-check.execute.cjs-1-1-${process.version}-${process.arch}.v8cache`;
    const otherNode = 'pre-mcp-cap-check.execute.cjs-1-1-v99.0.0-x64.v8cache';
    const otherChunk = `session-start.main.cjs-1-1-${process.version}-${process.arch}.v8cache`;
    for (const name of [olderBuild, otherNode, otherChunk]) writeFileSync(join(cache, name), 'cache');
    expectDeny(run());
    expect(readdirSync(root)).toEqual([VERSION]);
    const left = files().sort();
    expect(left).toContain(otherNode); // the person may switch Node back
    expect(left).toContain(otherChunk); // another chunk's cache is that chunk's business
    expect(left).not.toContain(olderBuild);
    expect(left.filter((f) => f.startsWith('pre-mcp-cap-check.execute.cjs-') && f.endsWith(`-${process.version}-${process.arch}.v8cache`))).toHaveLength(1);
  });

  it('a run that only reads the cache removes nothing', () => {
    expectDeny(run());
    const old = join(dir.path, 'agentstack-compile-cache', '0.0.1');
    mkdirSync(old, { mode: 0o700 });
    expectDeny(run());
    expect(readdirSync(join(dir.path, 'agentstack-compile-cache')).sort()).toEqual(['0.0.1', VERSION].sort());
  });

  it('nothing is removed under a root others may write to', () => {
    const root = join(dir.path, 'agentstack-compile-cache');
    mkdirSync(join(root, '0.0.1'), { recursive: true });
    chmodSync(root, 0o777);
    expectDeny(run());
    expect(readdirSync(root).sort()).toEqual(['0.0.1', VERSION].sort());
  });
  it('a cache with one bit flipped anywhere is never given to V8: the hook answers as without it, and the file is made again', () => {
    expectDeny(run());
    const [file] = files();
    const path = join(cache, file!);
    const good = readFileSync(path);
    // V8 does not checksum a cache's payload: before the recorded checksum, such flips crashed the hook or changed its answer.
    for (let i = 1; i <= 12; i++) {
      const flipped = Buffer.from(good);
      const at = Math.floor((flipped.length * i) / 13);
      flipped[at]! ^= 1 << (i % 8);
      writeFileSync(path, flipped, { mode: 0o600 });
      expectDeny(run());
      expect(readFileSync(path).equals(flipped), `flip at byte ${at} was kept`).toBe(false);
    }
  });

  it('a run that used a cache and died (its in-use mark left behind) has that cache removed and made again', () => {
    expectDeny(run());
    const [file] = files();
    const path = join(cache, file!);
    utimesSync(path, new Date('2001-01-01'), new Date('2001-01-01')); // a remade cache is newer (an inode may be reused)
    writeFileSync(`${path}.inuse`, String(NEVER_A_PID), { mode: 0o600 });
    expectDeny(run());
    expect(files()).toEqual([file]);
    expect(statSync(path).mtime.getFullYear()).toBeGreaterThan(2001);
  });

  it('a cache in use by a live run is left to it: this run compiles without it and changes nothing', () => {
    expectDeny(run());
    const [file] = files();
    const path = join(cache, file!);
    utimesSync(path, new Date('2001-01-01'), new Date('2001-01-01'));
    writeFileSync(`${path}.inuse`, String(process.pid), { mode: 0o600 });
    expectDeny(run());
    expect(statSync(path).mtime.getFullYear()).toBe(2001);
    expect(files().sort()).toEqual([file, `${file}.inuse`].sort());
  });

  it.runIf(posix)('every folder from the Cursor dir down must be one only this user can write: a 0777 root or Cursor dir means no cache', () => {
    const root = join(dir.path, 'agentstack-compile-cache');
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    chmodSync(root, 0o777);
    expectDeny(run());
    expect(files()).toEqual([]);
    chmodSync(root, 0o700);
    chmodSync(dir.path, 0o777);
    expectDeny(run());
    expect(files()).toEqual([]);
    chmodSync(dir.path, 0o700);
    expectDeny(run());
    expect(files()).toHaveLength(1);
  });

  it.runIf(posix)('the opened file is checked, not the path: a cache others may write, or a link, is not used and is replaced', () => {
    expectDeny(run());
    const [file] = files();
    const path = join(cache, file!);
    chmodSync(path, 0o666);
    expectDeny(run());
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const elsewhere = join(dir.path, 'elsewhere.v8cache');
    writeFileSync(elsewhere, readFileSync(path), { mode: 0o600 });
    rmSync(path);
    symlinkSync(elsewhere, path);
    expectDeny(run());
    expect(lstatSync(path).isSymbolicLink()).toBe(false);
  });

  it('an internal failure on an execute call answers ask, never {}', () => {
    const plugin = copyPlugin(join(dir.path, 'plugin'));
    writeFileSync(join(plugin, 'hooks/scripts/pre-mcp-cap-check.execute.cjs'), 'throw new Error("broken chunk");\n');
    const r = run(join(plugin, 'hooks/scripts/pre-mcp-cap-check.cjs'));
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ permission: 'ask', user_message: expect.stringMatching(/pre-call check failed/) });
  });
});

describe('the code cache checksum', () => {
  it('changes with every single-bit flip, and does not depend on where the bytes sit in memory', () => {
    const data = Buffer.from(Array.from({ length: 203 }, (_, i) => (i * 37 + 11) & 0xff));
    const sum = checksumOf(data).toString('hex');
    for (let bit = 0; bit < data.length * 8; bit++) {
      const flipped = Buffer.from(data);
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      expect(checksumOf(flipped).toString('hex'), `bit ${bit}`).not.toBe(sum);
    }
    const misaligned = Buffer.concat([Buffer.from([1]), data]).subarray(1);
    expect(misaligned.byteOffset % 4).not.toBe(0);
    expect(checksumOf(misaligned).toString('hex')).toBe(sum);
  });
});
