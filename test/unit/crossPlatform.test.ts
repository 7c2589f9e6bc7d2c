/**
 * What only works on Linux unless the code says otherwise: each case injects the platform, the errno or uses
 * path.win32, so it runs (and can fail) on this Linux machine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RENAME_BACKOFF_MS, renameWithRetry } from '../../lib/platform/fs/renameRetry.js';
import { createExclusive, writeFileAtomic } from '../../lib/platform/fs/secureFile.js';
import { breakStaleLock } from '../../lib/platform/fs/fileLock.js';
import { tightenMode } from '../../lib/platform/fs/tightenMode.js';
import { tilde } from '../../lib/platform/text/tilde.js';
import { cursorDir, cursorPaths } from '../../lib/agentstack/server/paths.js';
import { sameFolder } from '../../lib/agentstack/plugin/runtimeCopies.js';
import { findOnPath } from '../../lib/platform/findExecutable.js';
import { nodeGate } from '../../lib/commands/diagnose/gatesConfig.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { baseChildEnv } from '../helpers/platform.js';

const errno = (code: string) => Object.assign(new Error(`${code}: simulated`), { code });
const tmp = tempDir('agentstack-xplat-');
afterAll(() => tmp.cleanup());

describe('.gitattributes: LF everywhere, binaries untouched', () => {
  const attrs = (file: string) => execFileSync('git', ['check-attr', 'text', 'eol', 'binary', '--', file], { cwd: REPO_ROOT, encoding: 'utf8' });

  it('declares text=auto eol=lf for every file', () => {
    expect(readFileSync(join(REPO_ROOT, '.gitattributes'), 'utf8')).toMatch(/^\* text=auto eol=lf$/m);
  });

  // A copy of the tree that is not its own git checkout (Stryker's sandbox) has no committed files to check.
  const checkoutRoot = (() => {
    try { return realpathSync(execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim()) === realpathSync(REPO_ROOT); } catch { return false; }
  })();
  it.skipIf(!checkoutRoot)('every committed bundle and text file checks out with LF; every binary file is marked binary', () => {
    const files = execFileSync('git', ['ls-files', '--eol'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim().split('\n');
    expect(files.length).toBeGreaterThan(50);
    for (const line of files) {
      const [index, , , path] = line.split(/\s+/);
      if (index === 'i/-text') expect(attrs(path!), path).toMatch(/binary: set/);
      else if (/\.(mjs|md|json)$/.test(path!)) expect(attrs(path!), path).toMatch(/eol: lf/);
    }
  });
});

describe('rename on Windows: retried while another process holds the file', () => {
  const flaky = (codes: string[]) => {
    const calls: string[] = [];
    const rename = (from: string, to: string) => {
      calls.push(`${from}->${to}`);
      const code = codes.shift();
      if (code) throw errno(code);
    };
    return { calls, rename };
  };

  it.each(['EPERM', 'EBUSY', 'EACCES'])('win32: %s twice, then success', (code) => {
    const { calls, rename } = flaky([code, code]);
    const slept: number[] = [];
    renameWithRetry('a', 'b', { platform: 'win32', rename, sleep: (ms) => slept.push(ms) });
    expect(calls).toHaveLength(3);
    expect(slept).toEqual(RENAME_BACKOFF_MS.slice(0, 2));
  });

  it('win32: gives up after about one second in all, with the last error', () => {
    const { calls, rename } = flaky(Array(20).fill('EBUSY'));
    let total = 0;
    expect(() => renameWithRetry('a', 'b', { platform: 'win32', rename, sleep: (ms) => { total += ms; } })).toThrow(/EBUSY/);
    expect(calls).toHaveLength(RENAME_BACKOFF_MS.length + 1);
    expect(total).toBeGreaterThanOrEqual(800);
    expect(total).toBeLessThanOrEqual(1_200);
  });

  it('win32: other errors, and every error elsewhere, are not retried', () => {
    const a = flaky(['ENOENT']);
    expect(() => renameWithRetry('a', 'b', { platform: 'win32', rename: a.rename, sleep: () => {} })).toThrow(/ENOENT/);
    expect(a.calls).toHaveLength(1);
    const b = flaky(['EBUSY']);
    expect(() => renameWithRetry('a', 'b', { platform: 'linux', rename: b.rename, sleep: () => {} })).toThrow(/EBUSY/);
    expect(b.calls).toHaveLength(1);
  });

  it('writeFileAtomic retries through it and leaves no temp file', () => {
    const path = join(tmp.path, 'atomic.json');
    const codes = ['EPERM'];
    writeFileAtomic(path, 'new', { platform: 'win32', sleep: () => {}, rename: (from, to) => {
      const code = codes.shift();
      if (code) throw errno(code);
      execFileSync('mv', [from, to]);
    } });
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(readdirSync(tmp.path).filter((n) => n.includes('atomic'))).toEqual(['atomic.json']);
  });

  it("breakStaleLock's failed rename is a clear io error naming the file, not a raw errno", () => {
    const path = join(tmp.path, 'held.lock');
    writeFileSync(path, '{}');
    const error = (() => { try { breakStaleLock(path, '{}', { platform: 'win32', sleep: () => {}, rename: () => { throw errno('EBUSY'); } }); } catch (e) { return e as { code: string; message: string }; } })();
    expect(error?.code).toBe('io');
    expect(error?.message).toContain(path);
    expect(readFileSync(path, 'utf8')).toBe('{}');
  });
});

describe('hard links on exFAT/FAT32 (Windows reports EISDIR)', () => {
  it('win32: EISDIR from link falls back to an exclusive create', () => {
    const path = join(tmp.path, 'fat.lock');
    expect(createExclusive(path, 'payload', { platform: 'win32', link: () => { throw errno('EISDIR'); } })).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('payload');
    // an existing target is still "exists", not overwritten
    expect(createExclusive(path, 'other', { platform: 'win32', link: () => { throw errno('EISDIR'); } })).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('payload');
  });

  it('elsewhere EISDIR is a real error (a folder in the way)', () => {
    expect(() => createExclusive(join(tmp.path, 'x.lock'), 'p', { platform: 'linux', link: () => { throw errno('EISDIR'); } })).toThrow(/EISDIR/);
  });
});

describe('AGENTSTACK_CURSOR_DIR', () => {
  const posixEnv = { HOME: '/home/al', AGENTSTACK_CURSOR_DIR: '' };
  const winEnv = { USERPROFILE: 'C:\\Users\\Al', AGENTSTACK_CURSOR_DIR: '' };

  it.each([
    ['  /srv/cursor  ', '/srv/cursor'],
    ['/srv/cursor/../c2/', '/srv/c2'],
  ])('posix: %j is trimmed and resolved to %s', (value, want) => {
    expect(cursorDir({ ...posixEnv, AGENTSTACK_CURSOR_DIR: value }, 'linux')).toBe(want);
  });

  it('posix: ~, $HOME and ${HOME} expand to the home folder', () => {
    const home = cursorDir({ ...posixEnv, AGENTSTACK_CURSOR_DIR: '~' }, 'linux').replace(/\/$/, '');
    for (const v of ['~/.cursor-dev', '$HOME/.cursor-dev', '${HOME}/.cursor-dev']) {
      expect(cursorDir({ ...posixEnv, AGENTSTACK_CURSOR_DIR: v }, 'linux')).toBe(`${home}/.cursor-dev`);
    }
    expect(home.startsWith('/')).toBe(true);
  });

  it('win32: %USERPROFILE% and ~ expand to USERPROFILE; drive paths are absolute', () => {
    expect(cursorDir({ ...winEnv, AGENTSTACK_CURSOR_DIR: '%USERPROFILE%\\.cursor-dev' }, 'win32')).toBe('C:\\Users\\Al\\.cursor-dev');
    expect(cursorDir({ ...winEnv, AGENTSTACK_CURSOR_DIR: '~\\.cursor-dev' }, 'win32')).toBe('C:\\Users\\Al\\.cursor-dev');
    expect(cursorDir({ ...winEnv, AGENTSTACK_CURSOR_DIR: ' D:/cursor ' }, 'win32')).toBe('D:\\cursor');
    expect(cursorDir(winEnv, 'win32')).toBe('C:\\Users\\Al\\.cursor');
  });

  it.each([['linux', '.cursor-dev'], ['linux', '~user/.cursor'], ['win32', 'cursor'], ['win32', 'C:cursor']] as const)(
    '%s: a relative path (%j) is refused with a clear error, never used from the working directory',
    (platform, value) => {
      const env = platform === 'win32' ? { ...winEnv, AGENTSTACK_CURSOR_DIR: value } : { ...posixEnv, AGENTSTACK_CURSOR_DIR: value };
      expect(() => cursorDir(env, platform)).toThrow(/AGENTSTACK_CURSOR_DIR must be an absolute path/);
    },
  );

  it('the scripts refuse a relative one in one line and write nothing into the working directory (the workspace)', () => {
    const cwd = join(tmp.path, 'workspace');
    mkdirSync(cwd);
    const env = { ...baseChildEnv(), HOME: tmp.path, AGENTSTACK_CURSOR_DIR: '.cursor-dev', AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };
    for (const script of ['scripts/diagnose-local.mjs', 'scripts/refresh-cursor-runtime.mjs']) {
      const r = spawnSync(process.execPath, [join(REPO_ROOT, script)], { cwd, env, encoding: 'utf8', timeout: 30_000 });
      expect(r.status, script).toBe(1);
      expect(r.stderr.trim().split('\n'), script).toEqual([expect.stringMatching(/: AGENTSTACK_CURSOR_DIR must be an absolute path \(it is "\.cursor-dev"\)/)]);
    }
    const hook = spawnSync(process.execPath, [join(REPO_ROOT, 'hooks/scripts/session-start.cjs')], { cwd, env, input: '{}', encoding: 'utf8', timeout: 30_000 });
    expect(JSON.parse(hook.stdout).additional_context).toMatch(/AGENTSTACK_CURSOR_DIR must be an absolute path/);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('every path the plugin writes lies inside the resolved folder', () => {
    const paths = cursorPaths({ HOME: '/home/al', AGENTSTACK_CURSOR_DIR: ' /srv/c ' });
    for (const p of Object.values(paths)) expect(p.startsWith('/srv/c')).toBe(true);
  });
});

describe('tilde(): whole path segments only', () => {
  it.each([
    ['/home/al/.cursor/mcp.json', '~/.cursor/mcp.json'],
    ['/home/al', '~'],
    ['/home/alice/.cursor', '/home/alice/.cursor'],
    ['/home/al2', '/home/al2'],
    ['/srv/home/al/x', '/srv/home/al/x'],
  ])('posix (home /home/al): %s -> %s', (path, want) => {
    expect(tilde(path, { home: '/home/al', platform: 'linux' })).toBe(want);
    expect(tilde(path, { home: '/home/al/', platform: 'linux' })).toBe(want);
  });

  it('win32: backslashes, and the case of the drive letter does not matter', () => {
    expect(tilde('c:\\Users\\Al\\.cursor\\mcp.json', { home: 'C:\\Users\\Al', platform: 'win32' })).toBe('~\\.cursor\\mcp.json');
    expect(tilde('C:\\Users\\Alice\\.cursor', { home: 'C:\\Users\\Al', platform: 'win32' })).toBe('C:\\Users\\Alice\\.cursor');
  });

  it('linux is case-sensitive', () => {
    expect(tilde('/home/AL/x', { home: '/home/al', platform: 'linux' })).toBe('/home/AL/x');
  });
});

describe('tightenMode', () => {
  it.skipIf(process.platform === 'win32')('posix: a file others can read becomes 0600, and the old mode is returned', () => {
    const path = join(tmp.path, 'wide');
    writeFileSync(path, 'x');
    chmodSync(path, 0o644);
    expect(tightenMode(path, { platform: 'linux' })).toBe(0o644);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(tightenMode(path, { platform: 'linux' })).toBeNull();
  });

  it('win32: never calls chmod (it would clear a read-only attribute set on purpose)', () => {
    const path = join(tmp.path, 'wide-win');
    writeFileSync(path, 'x');
    chmodSync(path, 0o444);
    expect(tightenMode(path, { platform: 'win32' })).toBeNull();
    expect(statSync(path).mode & 0o777).toBe(0o444);
  });
});

describe('plugin copies: the running copy is recognised however its path is spelled', () => {
  const realpath = (p: string) => p; // the spelling the OS returns, as given

  it.each(['win32', 'darwin'] as const)('%s: paths differing only in case are the same folder', (platform) => {
    expect(sameFolder('c:\\Users\\Al\\.cursor\\plugins\\local\\agentstack', 'C:\\Users\\al\\.cursor\\plugins\\local\\agentstack', { platform, realpath })).toBe(true);
  });

  it('linux: case matters', () => {
    expect(sameFolder('/a/Plugin', '/a/plugin', { platform: 'linux', realpath })).toBe(false);
  });

  it('an 8.3 short name is resolved through realpath before comparing', () => {
    const long = 'C:\\Users\\Alexander\\.cursor\\plugins\\local\\agentstack';
    const native = (p: string) => p.replace('ALEXAN~1', 'Alexander');
    expect(sameFolder('C:\\Users\\ALEXAN~1\\.cursor\\plugins\\local\\agentstack', long, { platform: 'win32', realpath: native })).toBe(true);
  });
});

describe('which node a hook would run', () => {
  it('posix: the first PATH folder holding node', () => {
    const files = new Set(['/opt/homebrew/bin/node', '/usr/bin/node']);
    const isFile = (p: string) => files.has(p);
    expect(findOnPath('node', { env: { PATH: '/usr/local/bin:/opt/homebrew/bin:/usr/bin' }, platform: 'darwin', isFile })).toBe('/opt/homebrew/bin/node');
    expect(findOnPath('node', { env: { PATH: 'relative/bin:/nowhere' }, platform: 'linux', isFile: () => true })).toBe('/nowhere/node');
    expect(findOnPath('node', { env: {}, platform: 'linux', isFile })).toBeNull();
  });

  it('win32: Path with ";", quoted folders and PATHEXT (node.exe, never a bare "node")', () => {
    const files = new Set(['c:\\program files\\nodejs\\node.exe', 'c:\\tools\\node']);
    const isFile = (p: string) => files.has(p.toLowerCase()); // NTFS ignores case
    const env = { Path: 'C:\\tools;"C:\\Program Files\\nodejs";C:\\Windows', PATHEXT: '.COM;.EXE;.BAT' };
    expect(findOnPath('node', { env, platform: 'win32', isFile })).toBe('C:\\Program Files\\nodejs\\node.EXE');
  });

  it('the node gate names the hook node, and fails on an old one or warns when there is none', () => {
    expect(nodeGate('22.1.0', { path: '/usr/bin/node', version: '22.1.0' })).toMatchObject({ status: 'PASS', summary: expect.stringContaining('hooks run /usr/bin/node (Node 22.1.0)') });
    expect(nodeGate('22.1.0', { path: '/usr/bin/node', version: '18.19.0' })).toMatchObject({ status: 'FAIL', fix: expect.stringMatching(/Requirements/) });
    expect(nodeGate('22.1.0', { path: null, version: null })).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/no "node" is on this PATH/) });
  });
});
