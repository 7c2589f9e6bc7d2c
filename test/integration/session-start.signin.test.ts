import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { isProcessAlive } from '../../lib/platform/fs/fileLock.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { SESSION_START_TIMEOUT_MS, sessionStart, signInWith, type HookRun } from '../helpers/sessionStart.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
const pollers: number[] = [];

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
});
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => {
  for (const pid of pollers.splice(0)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already done */ }
  }
  dir.cleanup();
});

const file = (name: string) => join(dir.path, name);
const context = (run: HookRun) => String(run.json.additional_context ?? '');
const lock = () => JSON.parse(readFileSync(file('agentstack-device.lock'), 'utf8')) as Record<string, unknown>;
const bearer = () => (existsSync(file('mcp.json')) ? bearerOf(JSON.parse(readFileSync(file('mcp.json'), 'utf8'))) : null);
const placeholder = () => writeFileSync(file('mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));

async function hook(extra: Record<string, string> = {}): Promise<HookRun> {
  const run = await sessionStart(dir.path, core.baseUrl, extra);
  expect(run.code).toBe(0);
  return run;
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Asserts the card shows a device code and URL, and returns the code (the lock now belongs to the live poller). */
function expectSignInCard(run: HookRun): string {
  const match = /open (\S+) and enter the code (\S+) /.exec(context(run));
  expect(match, context(run)).not.toBeNull();
  const code = match![2]!;
  expect(match![1]).toContain(`${core.baseUrl}/activate`);
  const held = lock();
  expect(held.user_code).toBe(code);
  expect(isProcessAlive(held.pid)).toBe(true);
  pollers.push(held.pid as number);
  return code;
}

describe('session-start.cjs: sign-in when needed', () => {
  it('the background sign-in keeps the project pin (file); a broken pin is ignored with a clear message and the sign-in goes on without it', async () => {
    writeFileSync(file('agentstack-project'), '42\n');
    writeFileSync(file('mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}', 'X-Project-ID': '42' } } } }));
    const code = expectSignInCard(await hook());
    await core.approve(code);
    await until(() => bearer() !== null, 20_000);
    const entry = JSON.parse(readFileSync(file('mcp.json'), 'utf8')).mcpServers.agentstack;
    expect(entry.headers['X-Project-ID']).toBe('42');

    placeholder();
    writeFileSync(file('agentstack-project'), 'abc\n');
    await until(() => !existsSync(file('agentstack-device.lock')), 5_000);
    const broken = await hook();
    expect(context(broken)).toContain('holds "abc", not an integer greater than 1');
    expect(context(broken)).toMatch(/it was ignored .*config\.mjs set project ID.*config unset project/);
    const again = expectSignInCard(broken);
    await core.approve(again);
    await until(() => bearer() !== null, 20_000);
    const unpinned = JSON.parse(readFileSync(file('mcp.json'), 'utf8')).mcpServers.agentstack;
    expect(Object.keys(unpinned.headers).map((h: string) => h.toLowerCase())).not.toContain('x-project-id');
  }, 60_000);

  it('placeholder: requests a device code, shows URL and code; the detached poller finishes after approval', async () => {
    placeholder();
    const run = await hook();
    const code = expectSignInCard(run);
    expect(run.ms).toBeLessThan(SESSION_START_TIMEOUT_MS); // answered (before any approval) within the time Cursor gives it
    // a second session start joins the running flow instead of starting another
    const devices = core.counters.deviceAuthorizations;
    const again = await hook();
    expect(context(again)).toContain(code);
    expect(core.counters.deviceAuthorizations).toBe(devices);

    await core.approve(code);
    await until(() => bearer() !== null, 20_000);
    await until(() => !existsSync(file('agentstack-device.lock')), 5_000);
    const log = readFileSync(file('agentstack-device.log'), 'utf8');
    expect(log).toContain('"event":"authorized"');
    expect(log).not.toContain(bearer()!);
    const after = await hook();
    expect(context(after)).toContain('signed in as dev@agentstack.test');
  }, 60_000);

  it('expired token without a refresh token starts a sign-in', async () => {
    const issued = await core.issueTokens({ accessTokenTtl: 1 });
    await signInWith(dir.path, core.baseUrl, { ...issued, refresh_token: undefined });
    await new Promise((r) => setTimeout(r, 1_200));
    expectSignInCard(await hook());
  });

  it('null_caps (user_api_key with service_caps: null) starts a sign-in', async () => {
    const issued = await core.issueTokens({ claims: { token_type: 'user_api_key', service_caps: null } });
    await signInWith(dir.path, core.baseUrl, issued);
    const run = await hook();
    expect(context(run)).toContain('grants no capabilities');
    expectSignInCard(run);
  });

  it('AGENTSTACK_DISABLE_AUTO_LOGIN=1: no device code is requested, only the advice', async () => {
    placeholder();
    const devices = core.counters.deviceAuthorizations;
    const run = await hook({ AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(core.counters.deviceAuthorizations).toBe(devices);
    expect(context(run)).toContain('AGENTSTACK_DISABLE_AUTO_LOGIN=1');
    expect(existsSync(file('agentstack-device.lock'))).toBe(false);
  });

  it('unsigned (never signed in): only suggests the sign-in, in the words every view uses', async () => {
    const devices = core.counters.deviceAuthorizations;
    const run = await hook();
    expect(core.counters.deviceAuthorizations).toBe(devices);
    expect(context(run)).toContain('not signed in');
    expect(context(run)).toContain(`Sign in with /agentstack-authorize (or node ${REPO_ROOT}/hooks/scripts/device-code.mjs).`);
    expect(existsSync(file('agentstack-device.lock'))).toBe(false);
  });

  it('device endpoint down: still answers in time, pointing at /agentstack-authorize, and leaves no lock', async () => {
    placeholder();
    core.setFaults({ endpointFaults: { device: { kind: '5xx' } } });
    try {
      const run = await hook();
      expect(context(run)).toContain('Automatic sign-in could not start');
      expect(existsSync(file('agentstack-device.lock'))).toBe(false);
    } finally {
      core.setFaults({ endpointFaults: {} });
    }
  });
});
