/**
 * scripts/config.mjs as a person runs it: set, get, unset and list, each value checked by the rule of its
 * environment variable (a refused value exits 2 and changes nothing), the file written through conf and 0600 from
 * the moment it appears (even under umask 000), `project` as the pin file, a broken file never overwritten, and
 * concurrent writers that do not lose each other's keys.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';

const CONFIG = join(REPO_ROOT, 'scripts/config.mjs');
let tmp: ReturnType<typeof tempDir>;
let dir: string;
beforeEach(() => {
  tmp = tempDir('agentstack-config-');
  dir = join(tmp.path, 'cursor');
  mkdirSync(dir);
});
afterEach(() => tmp.cleanup());

const settingsPath = () => join(dir, 'agentstack-settings.json');
const stored = () => JSON.parse(readFileSync(settingsPath(), 'utf8')) as Record<string, unknown>;

interface Run { code: number | null; stdout: string; stderr: string }
function config(args: string[], opts: { env?: Record<string, string>; umask?: string } = {}): Promise<Run> {
  const env = { PATH: process.env.PATH, HOME: tmp.path, AGENTSTACK_CURSOR_DIR: dir, ...opts.env };
  // `sh -c 'umask 000; exec node …'`: the file must still be 0600 when the process may create anything world-readable.
  const child = opts.umask
    ? spawn('/bin/sh', ['-c', `umask ${opts.umask}; exec "$0" "$@"`, process.execPath, CONFIG, ...args], { env })
    : spawn(process.execPath, [CONFIG, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('config.mjs', () => {
  it('set then list: the value in effect with its origin; the environment still wins and says so', async () => {
    const set = await config(['set', 'base-url', 'https://staging.example.com/']);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('Set base-url = https://staging.example.com');
    expect(stored()).toEqual({ 'base-url': 'https://staging.example.com' });
    expect((await config(['set', 'auto-login', 'false'])).code).toBe(0);
    expect(stored()).toEqual({ 'base-url': 'https://staging.example.com', 'auto-login': false });

    const list = await config(['list']);
    expect(list.code).toBe(0);
    // The file is shown as ~/… (HOME is the folder above the Cursor dir here).
    expect(list.stdout).toMatch(new RegExp(`^base-url +https://staging\\.example\\.com +settings \\(~/${relative(tmp.path, settingsPath()).replace(/[.]/g, '\\.')}\\)$`, 'm'));
    expect(list.stdout).toMatch(/^scope-preset +full +default$/m);
    expect(list.stdout).toMatch(/^oauth-client-id +cursor-plugin +default$/m);

    const overridden = await config(['list', '--json'], { env: { AGENTSTACK_BASE_URL: 'https://env.example.com' } });
    const rows = JSON.parse(overridden.stdout).settings as Array<Record<string, unknown>>;
    expect(rows.find((r) => r.key === 'base-url')).toEqual({ key: 'base-url', value: 'https://env.example.com', origin: 'env', source: 'AGENTSTACK_BASE_URL' });
    expect(rows.find((r) => r.key === 'auto-login')).toMatchObject({ value: 'false', origin: 'settings' });

    const shadowed = await config(['set', 'base-url', 'https://other.example.com'], { env: { AGENTSTACK_BASE_URL: 'https://env.example.com' } });
    expect(shadowed.code).toBe(0);
    expect(shadowed.stderr).toContain('AGENTSTACK_BASE_URL is set in this environment and wins over the setting');
  });

  it('get prints the value in effect (exit 1 with nothing when none); unset removes it', async () => {
    expect(await config(['get', 'base-url'])).toMatchObject({ code: 0, stdout: 'https://agentstack.tech\n' });
    expect(await config(['get', 'https-proxy'])).toMatchObject({ code: 1, stdout: '' });
    await config(['set', 'https-proxy', 'http://user:pa55word@proxy.corp:3128']);
    const shown = await config(['get', 'https-proxy']);
    expect(shown.stdout).toBe('http://user:***@proxy.corp:3128\n');
    expect(JSON.parse((await config(['get', 'https-proxy', '--json'])).stdout)).toMatchObject({ key: 'https-proxy', origin: 'settings' });
    const unset = await config(['unset', 'https-proxy']);
    expect(unset.code).toBe(0);
    expect(stored()).toEqual({});
    expect((await config(['unset', 'https-proxy'])).stdout).toContain('was not set');
  });

  it.each([
    ['base-url', 'http://staging.example.com', 'must be https://'],
    ['auto-login', 'maybe', 'must be true or false'],
    ['scope-preset', 'admin', 'must be one of'],
    ['project', '1', 'integer greater than 1'],
    ['project', 'abc', 'integer greater than 1'],
    ['https-proxy', 'socks5://proxy:1080', 'http:// or https://'],
    ['no-proxy', 'bad/host', 'not a host name'],
    ['oauth-client-id', 'has space', 'visible ASCII'],
  ])('set %s %j is refused: exit 2 with the reason, nothing changed', async (key, value, reason) => {
    await config(['set', 'scope-preset', 'builder']);
    writeFileSync(join(dir, 'agentstack-project'), '42\n', { mode: 0o600 });
    const before = readFileSync(settingsPath(), 'utf8');
    const r = await config(['set', key, value]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(reason);
    expect(r.stderr).toContain('nothing was changed');
    expect(readFileSync(settingsPath(), 'utf8')).toBe(before);
    expect(readFileSync(join(dir, 'agentstack-project'), 'utf8')).toBe('42\n');
  });

  it('bad usage exits 2: an unknown key, a missing value, an unknown command', async () => {
    expect(await config(['set', 'colour', 'blue'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown key "colour"') });
    expect((await config(['set', 'base-url'])).code).toBe(2);
    expect((await config(['frobnicate'])).code).toBe(2);
    expect(existsSync(settingsPath())).toBe(false);
  });

  it('the file is 0600 from the moment it appears, under umask 000 (every file seen in the folder while it is written)', async () => {
    const seen = new Map<string, number>();
    const watcher = watch(dir, (_event, name) => {
      if (!name) return;
      try { seen.set(name, statSync(join(dir, name)).mode & 0o777); } catch { /* renamed away already */ }
    });
    try {
      expect((await config(['set', 'base-url', 'https://staging.example.com'], { umask: '000' })).code).toBe(0);
      expect((await config(['set', 'https-proxy', 'http://u:pw@proxy:3128'], { umask: '000' })).code).toBe(0);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      watcher.close();
    }
    expect(statSync(settingsPath()).mode & 0o777).toBe(0o600);
    expect(seen.get('agentstack-settings.json')).toBe(0o600);
    for (const [name, mode] of seen) expect(mode, name).toBe(0o600);
    // Only ours: the temp and lock files are gone.
    expect(stored()).toEqual({ 'base-url': 'https://staging.example.com', 'https-proxy': 'http://u:pw@proxy:3128' });
  });

  it('project is the pin file: written 0600 with the pin rules, read back, removed by unset', async () => {
    const set = await config(['set', 'project', '42'], { umask: '000' });
    expect(set.code).toBe(0);
    expect(readFileSync(join(dir, 'agentstack-project'), 'utf8')).toBe('42\n');
    expect(statSync(join(dir, 'agentstack-project')).mode & 0o777).toBe(0o600);
    expect(existsSync(settingsPath())).toBe(false);
    expect((await config(['get', 'project'])).stdout).toBe('42\n');
    expect((await config(['get', 'project'], { env: { AGENTSTACK_PROJECT_ID: '7' } })).stdout).toBe('7\n');
    writeFileSync(join(dir, 'agentstack-project'), 'abc\n');
    const broken = await config(['get', 'project']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('config unset project');
    expect((await config(['unset', 'project'])).code).toBe(0);
    expect(existsSync(join(dir, 'agentstack-project'))).toBe(false);
  });

  it('a broken settings file is never overwritten: set exits 1 naming it; list still works and reports it', async () => {
    writeFileSync(settingsPath(), '{"base-url": "https://a.example", oops', { mode: 0o600 });
    const r = await config(['set', 'auto-login', 'false']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('is not valid JSON');
    expect(r.stderr).toContain('Nothing was changed');
    expect(readFileSync(settingsPath(), 'utf8')).toBe('{"base-url": "https://a.example", oops');
    const list = await config(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^base-url +https:\/\/agentstack\.tech +default$/m);
    expect(list.stdout).toMatch(/^! The settings file .* is not valid JSON; it was ignored/m);
  });

  it('an empty settings file is an empty object for set as for list', async () => {
    writeFileSync(settingsPath(), '', { mode: 0o600 });
    expect((await config(['list'])).code).toBe(0);
    const set = await config(['set', 'auto-login', 'false']);
    expect(set.code, set.stderr).toBe(0);
    expect(stored()).toEqual({ 'auto-login': false });
  });

  it('a BOM (a Windows editor\'s) is read past, by list and by set, as in mcp.json', async () => {
    writeFileSync(settingsPath(), '\uFEFF{"scope-preset": "readonly"}\n', { mode: 0o600 });
    const list = await config(['list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(/not valid JSON/);
    expect(JSON.parse(list.stdout).settings.find((r: { key: string }) => r.key === 'scope-preset')).toMatchObject({ value: 'readonly', origin: 'settings' });
    const set = await config(['set', 'auto-login', 'false']);
    expect(set.code, set.stderr).toBe(0);
    expect(stored()).toEqual({ 'scope-preset': 'readonly', 'auto-login': false });
  });

  it('a symlinked settings file is replaced by a regular 0600 file; its target is neither rewritten nor chmod\'ed', async () => {
    const target = join(tmp.path, 'outside.json');
    writeFileSync(target, '{"scope-preset": "readonly"}\n');
    chmodSync(target, 0o644);
    symlinkSync(target, settingsPath());
    const set = await config(['set', 'auto-login', 'false']);
    expect(set.code, set.stderr).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('{"scope-preset": "readonly"}\n');
    expect(statSync(target).mode & 0o777).toBe(0o644);
    expect(lstatSync(settingsPath()).isSymbolicLink()).toBe(false);
    expect(statSync(settingsPath()).mode & 0o777).toBe(0o600);
    expect(stored()).toEqual({ 'scope-preset': 'readonly', 'auto-login': false });
  });

  it('concurrent writers of different keys do not lose each other\'s values (one lock around conf)', async () => {
    const runs = await Promise.all([
      config(['set', 'base-url', 'https://staging.example.com']),
      config(['set', 'auto-login', 'false']),
      config(['set', 'scope-preset', 'readonly']),
      config(['set', 'https-proxy', 'http://proxy:3128']),
      config(['set', 'no-proxy', '.corp']),
      config(['set', 'oauth-client-id', 'my-client']),
    ]);
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(stored()).toEqual({
      'base-url': 'https://staging.example.com', 'auto-login': false, 'scope-preset': 'readonly',
      'https-proxy': 'http://proxy:3128', 'no-proxy': '.corp', 'oauth-client-id': 'my-client',
    });
  });
});

describe('config.mjs set base-url with the MCP URL', () => {
  it('stores the server\'s base, so no request ever goes to <base>/mcp/mcp', async () => {
    const set = await config(['set', 'base-url', 'https://staging.example.com/mcp']);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('Set base-url = https://staging.example.com');
    expect(stored()).toEqual({ 'base-url': 'https://staging.example.com' });
  });
});
