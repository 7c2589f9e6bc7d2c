/**
 * Forged and left-over lock files. Anyone who can write the Cursor dir can write `agentstack-device.lock` and
 * `mcp.json.lock`. Fault: a device lock held by pid 1 with `expires_at` in 2999 and a foreign verification page; one
 * dated in the future; one whose pid now belongs to another process; an mcp.json lock dated in the future. Outcome:
 * no lock blocks sign-in or a write beyond its life cap, a foreign page is never shown, diagnose --fix removes the
 * stale ones.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { applyBearer } from '../../lib/agentstack/mcpJson/entry.js';
import { updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { sessionStart } from '../helpers/sessionStart.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';

const DIAGNOSE = join(REPO_ROOT, 'scripts/diagnose-local.mjs');
const EVIL = 'https://evil.example/activate';
const MIN = 60_000;

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => { core = await startCore({ port: 0, interval: 1 }); });
afterAll(async () => core?.close());
beforeEach(() => { dir = tempDir('agentstack-locks-'); });
afterEach(() => dir.cleanup());

const lockPath = () => join(dir.path, 'agentstack-device.lock');
function writeDeviceLock(fields: Record<string, unknown>): void {
  writeFileSync(lockPath(), JSON.stringify({
    pid: 1, started_at: new Date().toISOString(), expires_at: '2999-01-01T00:00:00.000Z',
    verification_uri: EVIL, verification_uri_complete: `${EVIL}?code=EVIL-CODE`, user_code: 'EVIL-CODE', ...fields,
  }));
}

/**
 * device-code against the core: whether it started a flow of its own, and everything it printed. Stopped once it has
 * shown what it will show: its own code, or the running sign-in it then waits for (a live lock holds until its end).
 */
async function signIn(): Promise<{ started: boolean; output: string }> {
  const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir.path });
  const first = await Promise.race([
    run.waitFor('device_code').then(() => 'started'),
    run.waitFor('error').then(() => 'following'),
    run.done.then(() => 'exited'),
  ]);
  if (first !== 'exited') run.child.kill('SIGTERM');
  const done = await run.done;
  return { started: first === 'started', output: done.stdout + done.stderr };
}

function diagnoseFix(): string {
  const env = { PATH: process.env.PATH, HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl };
  const run = spawnSync(process.execPath, [DIAGNOSE, '--fix'], { env, encoding: 'utf8', timeout: 30_000 });
  return run.stdout + run.stderr;
}

describe('forged device locks', () => {
  it('pid 1, expires in 2999, a foreign page: neither device-code nor session-start shows the page', async () => {
    writeDeviceLock({});
    const { output } = await signIn();
    expect(output).not.toContain('evil.example');
    expect(output).not.toContain('2999');
    writeFileSync(join(dir.path, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));
    const hook = await sessionStart(dir.path, core.baseUrl);
    expect(hook.stdout).not.toContain('evil.example');
    expect(String(hook.json.additional_context)).toMatch(/sign-in is starting in another window/);
  }, 30_000);

  it('a lock past its 30-minute cap (expires_at 2999 notwithstanding) no longer blocks sign-in; diagnose --fix removes it', async () => {
    writeDeviceLock({ started_at: new Date(Date.now() - 31 * MIN).toISOString() });
    expect((await signIn()).started).toBe(true);
    writeDeviceLock({ started_at: new Date(Date.now() - 31 * MIN).toISOString() });
    diagnoseFix();
    expect(existsSync(lockPath())).toBe(false);
  }, 30_000);

  it('a lock dated in the future is stale: sign-in proceeds and diagnose --fix removes it', async () => {
    writeDeviceLock({ started_at: '2999-01-01T00:00:00.000Z' });
    expect((await signIn()).started).toBe(true);
    writeDeviceLock({ started_at: '2999-01-01T00:00:00.000Z' });
    diagnoseFix();
    expect(existsSync(lockPath())).toBe(false);
  }, 30_000);

  it.runIf(process.platform === 'linux')('a reused pid (alive, but started after the lock was taken) does not keep the lock', async () => {
    writeDeviceLock({ pid: process.pid, pid_start: '1' });
    expect((await signIn()).started).toBe(true);
  }, 30_000);
});

describe('forged mcp.json lock', () => {
  it('acquired_at in the future (held by a live pid) does not block a write', async () => {
    const path = join(dir.path, 'mcp.json');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, acquired_at: '2999-01-01T00:00:00.000Z', nonce: 'forged' }));
    await updateMcpConfigFile(path, (config) => applyBearer(config, { token: 'tok-123456789', baseUrl: core.baseUrl }), { timeoutMs: 1_500 });
    expect(JSON.parse(readFileSync(path, 'utf8')).mcpServers.agentstack.headers.Authorization).toBe('Bearer tok-123456789');
  });
});
