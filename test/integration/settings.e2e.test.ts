/**
 * Each setting end to end, against the reference core over real HTTP: written with config.mjs, then used by the next
 * sign-in (device-code.mjs) or session start, with the environment variable still winning; proxies from the settings
 * reach every request exactly as HTTPS_PROXY / NO_PROXY do; a broken settings file is reported and ignored.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { runHook, SESSION_INPUT, SESSION_START_SCRIPT } from '../helpers/sessionStart.js';

const CONFIG = join(REPO_ROOT, 'scripts/config.mjs');
const DIAGNOSE = join(REPO_ROOT, 'scripts/diagnose-local.mjs');
let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;
let proxy: TestProxy;
let other: TestProxy;
beforeAll(async () => {
  [core, proxy, other] = await Promise.all([startCore({ port: 0, interval: 1 }), startProxy({ allowConnect: false }), startProxy({ allowConnect: false })]);
  tmp = tempDir('agentstack-settings-e2e-');
});
afterAll(async () => {
  await Promise.all([core?.close(), proxy?.close(), other?.close()]);
  tmp?.cleanup();
});
beforeEach(() => {
  proxy.records.length = 0;
  other.records.length = 0;
});

let n = 0;
function cursorDir(): string {
  const dir = join(tmp.path, `c${n++}`);
  mkdirSync(dir);
  return dir;
}

function config(dir: string, ...args: string[]): void {
  const r = spawnSync(process.execPath, [CONFIG, ...args], { env: { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

/** device-code with no AGENTSTACK_BASE_URL of its own (an empty variable is unset), plus `env`. */
function signIn(dir: string, env: Record<string, string> = {}, args = ['--json', '--no-browser']) {
  return runDeviceCode({ baseUrl: '', cursorDir: dir, args, env });
}

async function approveAndFinish(run: ReturnType<typeof signIn>) {
  const code = await run.waitFor('device_code');
  await core.approve(String(code.user_code));
  const done = await run.done;
  expect(done.code, done.stderr).toBe(0);
  return run.events.at(-1)!;
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

function spawnScript(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

const entryOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')).mcpServers.agentstack as { url: string; headers: Record<string, string> };

describe('each setting reaches the next sign-in; the environment still wins', () => {
  it('base-url: the sign-in goes to the server in the settings; AGENTSTACK_BASE_URL wins over it', async () => {
    const dir = cursorDir();
    config(dir, 'set', 'base-url', core.baseUrl);
    expect(await approveAndFinish(signIn(dir))).toMatchObject({ event: 'authorized', server_url: `${core.baseUrl}/mcp` });
    expect(entryOf(dir).url).toBe(`${core.baseUrl}/mcp`);

    const dead = cursorDir();
    config(dead, 'set', 'base-url', await closedPortUrl());
    expect(await approveAndFinish(signIn(dead, { AGENTSTACK_BASE_URL: core.baseUrl }))).toMatchObject({ server_url: `${core.baseUrl}/mcp` });
    const refused = signIn(dead, { AGENTSTACK_BASE_URL: '' });
    expect((await refused.done).code).toBe(1);
    expect(refused.events.at(-1)).toMatchObject({ event: 'error', error: 'network' });
  });

  it('scope-preset: the sign-in asks for the preset in the settings; AGENTSTACK_SCOPE_PRESET and --scope-preset win over it', async () => {
    const dir = cursorDir();
    config(dir, 'set', 'base-url', core.baseUrl);
    config(dir, 'set', 'scope-preset', 'readonly');
    await approveAndFinish(signIn(dir));
    const scope = () => String(JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8')).scope).split(' ');
    expect(scope()).toContain('actions:read');
    expect(scope()).not.toContain('actions:execute');
    await approveAndFinish(signIn(dir, { AGENTSTACK_SCOPE_PRESET: 'builder' }));
    expect(scope()).toContain('actions:execute');
    expect(scope()).not.toContain('data:write');
    await approveAndFinish(signIn(dir, {}, ['--json', '--no-browser', '--scope-preset', 'full']));
    expect(scope()).toContain('data:write');
  });

  it('oauth-client-id: the sign-in presents the client in the settings (the core refuses an unknown one); the environment wins', async () => {
    const dir = cursorDir();
    config(dir, 'set', 'base-url', core.baseUrl);
    config(dir, 'set', 'oauth-client-id', 'not-registered');
    const refused = signIn(dir);
    expect((await refused.done).code).toBe(1);
    expect(JSON.stringify(refused.events.at(-1))).toMatch(/client/i);
    expect(await approveAndFinish(signIn(dir, { AGENTSTACK_OAUTH_CLIENT_ID: 'cursor-plugin' }))).toMatchObject({ event: 'authorized' });
  });

  it('project: config set project pins the sign-in (X-Project-ID); unset removes it from the next one', async () => {
    const dir = cursorDir();
    config(dir, 'set', 'base-url', core.baseUrl);
    config(dir, 'set', 'project', '42');
    expect(await approveAndFinish(signIn(dir))).toMatchObject({ project_id: 42 });
    expect(entryOf(dir).headers['X-Project-ID']).toBe('42');
    config(dir, 'unset', 'project');
    expect(await approveAndFinish(signIn(dir))).toMatchObject({ project_id: null });
    expect(Object.keys(entryOf(dir).headers).map((h) => h.toLowerCase())).not.toContain('x-project-id');
  });
});

describe('session start honours the settings', () => {
  function hook(dir: string, env: Record<string, string> = {}) {
    return runHook(SESSION_START_SCRIPT, ['--from-hook'], { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir, ...env }, JSON.stringify(SESSION_INPUT));
  }
  const placeholder = (dir: string) => writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));

  it('auto-login false: no device code is requested and the card says why; AGENTSTACK_DISABLE_AUTO_LOGIN=0 wins, and that sign-in asks for the scope-preset setting', async () => {
    const dir = cursorDir();
    config(dir, 'set', 'auto-login', 'false');
    config(dir, 'set', 'scope-preset', 'readonly');
    placeholder(dir);
    const before = core.counters.deviceAuthorizations;
    const off = await hook(dir);
    expect(off.code).toBe(0);
    expect(String(off.json.additional_context)).toContain('Automatic sign-in is off: auto-login is false in the settings');
    expect(core.counters.deviceAuthorizations).toBe(before);

    placeholder(dir);
    const on = await hook(dir, { AGENTSTACK_DISABLE_AUTO_LOGIN: '0' });
    const code = /enter the code (\S+) /.exec(String(on.json.additional_context))?.[1];
    expect(code, String(on.json.additional_context)).toBeDefined();
    expect(core.counters.deviceAuthorizations).toBe(before + 1);
    const lock = JSON.parse(readFileSync(join(dir, 'agentstack-device.lock'), 'utf8')) as { pid: number };
    try {
      await core.approve(code!);
      const end = Date.now() + 20_000;
      while (!existsSync(join(dir, 'agentstack-refresh')) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      const scope = String(JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8')).scope).split(' ');
      expect(scope).toContain('actions:read');
      expect(scope).not.toContain('actions:execute');
    } finally {
      try { process.kill(lock.pid, 'SIGKILL'); } catch { /* already gone */ }
    }
  }, 40_000);

  it.each([' 1', '1 ', '1\t'])('AGENTSTACK_DISABLE_AUTO_LOGIN=%j (cmd.exe keeps the blank of `set X=1 && ...`): config says false and no sign-in starts', async (value) => {
    const dir = cursorDir();
    placeholder(dir);
    const shown = spawnSync(process.execPath, [CONFIG, 'get', 'auto-login'], { env: { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_DISABLE_AUTO_LOGIN: value }, encoding: 'utf8' });
    expect(shown.stdout.trim()).toBe('false');
    const before = core.counters.deviceAuthorizations;
    const run = await hook(dir, { AGENTSTACK_DISABLE_AUTO_LOGIN: value });
    expect(String(run.json.additional_context)).toContain('Automatic sign-in is off: AGENTSTACK_DISABLE_AUTO_LOGIN=1');
    expect(core.counters.deviceAuthorizations).toBe(before);
    expect(existsSync(join(dir, 'agentstack-device.lock'))).toBe(false);
  });

  it('base-url: with no mcp.json and no AGENTSTACK_BASE_URL, session start uses the server in the settings', async () => {
    const dir = cursorDir();
    config(dir, 'set', 'base-url', core.baseUrl);
    const run = await hook(dir, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(String(run.json.additional_context)).toContain(`(server ${core.baseUrl}/mcp)`);
    const overridden = await hook(dir, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1', AGENTSTACK_BASE_URL: 'https://env.example.com' });
    expect(String(overridden.json.additional_context)).toContain('(server https://env.example.com/mcp)');
  });

  it('a broken settings file: the hook still answers, one card line names it; diagnose reports it (WARN) and shows the table', async () => {
    const dir = cursorDir();
    writeFileSync(join(dir, 'agentstack-settings.json'), '{"auto-login": fals', { mode: 0o600 });
    const run = await hook(dir, { AGENTSTACK_BASE_URL: core.baseUrl, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(run.code).toBe(0);
    expect(String(run.json.additional_context)).toMatch(/- The settings file .*agentstack-settings\.json is not valid JSON; it was ignored/);
    const diagnose = spawnSync(process.execPath, [DIAGNOSE, '--json'], { env: { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir }, encoding: 'utf8' });
    const report = JSON.parse(diagnose.stdout) as { checks: Array<{ id: string; status: string }>; settings: Array<{ key: string; origin: string }> };
    expect(report.checks.find((c) => c.id === 'settings.file')).toMatchObject({ status: 'WARN' });
    expect(report.settings.map((r) => `${r.key}:${r.origin}`)).toEqual(['base-url:default', 'auto-login:default', 'scope-preset:default', 'project:default', 'https-proxy:default', 'no-proxy:default', 'oauth-client-id:default', 'policy:default', 'ask-actions:default', 'deny-actions:default', 'debug:default', 'journal:default', 'credential-store:default']);
    // The per-action rules cannot be known: the card and diagnose say every AgentStack call asks.
    expect(String(run.json.additional_context)).toMatch(/- Per-action rules: the per-action rules cannot be read \(The settings file .* is not valid JSON/);
    expect(report.checks.find((c) => c.id === 'policy')).toMatchObject({ status: 'WARN' });
  });
});

describe('proxies from the settings reach every request, exactly as the environment variables do', () => {
  const HTTPS_BASE = 'https://agentstack.invalid';

  it('https-proxy: device-code tunnels through it (a refused tunnel is a clear network error); HTTPS_PROXY wins over it', async () => {
    const dir = cursorDir();
    config(dir, 'set', 'base-url', HTTPS_BASE);
    config(dir, 'set', 'https-proxy', proxy.url);
    const viaSettings = signIn(dir);
    expect((await viaSettings.done).code).toBe(1);
    expect(viaSettings.events.at(-1)).toMatchObject({ event: 'error', error: 'network' });
    expect(proxy.records.map((r) => `${r.method} ${r.target}`)).toContain('CONNECT agentstack.invalid:443');

    proxy.records.length = 0;
    const viaEnv = signIn(dir, { HTTPS_PROXY: other.url });
    expect((await viaEnv.done).code).toBe(1);
    expect(other.records.map((r) => r.target)).toContain('agentstack.invalid:443');
    expect(proxy.records).toEqual([]);
  });

  it('no-proxy: a host it names goes direct (the proxy sees nothing)', async () => {
    const dir = cursorDir();
    config(dir, 'set', 'base-url', HTTPS_BASE);
    config(dir, 'set', 'https-proxy', proxy.url);
    config(dir, 'set', 'no-proxy', 'agentstack.invalid');
    const run = signIn(dir);
    expect((await run.done).code).toBe(1);
    expect(run.events.at(-1)).toMatchObject({ event: 'error', error: 'network' });
    expect(proxy.records).toEqual([]);
    // NO_PROXY in the environment wins: this host is no longer excepted, so the tunnel is tried.
    const viaEnv = signIn(dir, { NO_PROXY: 'other.example' });
    expect((await viaEnv.done).code).toBe(1);
    expect(proxy.records.map((r) => r.target)).toContain('agentstack.invalid:443');
  });

  it('session start (its network steps load later) and diagnose --online go through the settings proxy too', async () => {
    const dir = cursorDir();
    // A signed-in entry for the https server (a JWT naming no audience, valid for an hour): the snapshot is missing,
    // so session start fetches it, through the proxy.
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'u1', exp: Math.floor(Date.now() / 1000) + 3600, caps: ['actions:read'] })}.c2ln`;
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${HTTPS_BASE}/mcp`, headers: { Authorization: `Bearer ${token}` } } } }), { mode: 0o600 });
    config(dir, 'set', 'https-proxy', proxy.url);
    const run = await runHook(SESSION_START_SCRIPT, ['--from-hook'], { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }, JSON.stringify(SESSION_INPUT));
    expect(run.code).toBe(0);
    expect(proxy.records.map((r) => r.target), String(run.json.additional_context)).toContain('agentstack.invalid:443');

    proxy.records.length = 0;
    // Spawned, not spawnSync: the proxy runs in this process and must keep answering.
    const diagnose = await spawnScript(DIAGNOSE, ['--online', '--json'], { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir });
    expect([0, 1]).toContain(diagnose.code);
    expect(proxy.records.map((r) => r.target)).toContain('agentstack.invalid:443');
    expect(existsSync(join(dir, 'agentstack-settings.json'))).toBe(true);
  }, 60_000);
});
