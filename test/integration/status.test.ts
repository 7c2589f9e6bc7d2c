/**
 * `device-code.mjs --status [--online] [--json]` as a person runs it, after a real sign-in against the reference
 * core: at most ten lines, the token masked, exit 0 signed in and 1 not (with what to do); `--online` asks the
 * server, and a token it refuses reads as not signed in.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { DEVICE_CODE_SCRIPT, runDeviceCode } from '../helpers/deviceCode.js';
import { baseChildEnv } from '../helpers/platform.js';
import { REFUSED_RENEWAL_STEP } from '../../lib/agentstack/state/story.js';
import { installed } from '../helpers/stateTable.js';
import { REPO_ROOT } from '../helpers/repo.js';

const fixture = useCoreAndCursorDirs('agentstack-status-');

/** Async: the reference core runs in this process and must keep answering while the script waits. */
function status(dir: string, args: string[], baseUrl = fixture.core.baseUrl, extraEnv: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DEVICE_CODE_SCRIPT, '--status', ...args], {
    env: { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: baseUrl, ...extraEnv },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  return new Promise((resolve) => child.on('close', (code) => resolve({ status: code, stdout, stderr })));
}

async function signIn(dir: string, args: string[] = ['--json', '--no-browser']): Promise<string> {
  const run = runDeviceCode({ baseUrl: fixture.core.baseUrl, cursorDir: dir, args });
  const code = await run.waitFor('device_code');
  await fixture.core.approve(String(code.user_code));
  const done = await run.done;
  expect(done.code).toBe(0);
  return done.stderr;
}

describe('device-code --status', () => {
  it('not signed in: exit 1, says so and what to do, touches no network (a closed server is fine)', async () => {
    const dir = fixture.cursorDir();
    const r = await status(dir, [], 'http://127.0.0.1:9');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^X AgentStack: not signed in\n/);
    expect(r.stdout).toContain('Server: http://127.0.0.1:9/mcp');
    expect(r.stdout).toContain('Sign in with /agentstack-authorize');
    const json = JSON.parse((await status(dir, ['--json'], 'http://127.0.0.1:9')).stdout);
    expect(json).toMatchObject({ signed_in: false, state: 'never_signed_in', server_url: 'http://127.0.0.1:9/mcp', next_step: expect.stringMatching(/agentstack-authorize/) });
  });

  it('after a sign-in: who, masked token, expiry, granted scopes, project, rules; at most ten lines; exit 0', async () => {
    const dir = fixture.cursorDir();
    const signInText = await signIn(dir, ['--json', '--no-browser', '--scope-preset', 'readonly']);
    expect(signInText).toMatch(/Scopes granted: .*data:read.*\(\d+ of the \d+ actions need a scope not granted\)/);
    const token = /Bearer ([^"]+)/.exec(readFileSync(join(dir, 'mcp.json'), 'utf8'))![1]!;
    const r = await status(dir, []);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(lines[0]).toBe('✓ AgentStack: signed in');
    expect(r.stdout).toContain(`Server: ${fixture.core.baseUrl}/mcp`);
    expect(r.stdout).toMatch(/Account: signed in as \S+ \(token \w{4}\*+\)/);
    expect(r.stdout).toMatch(/Token: valid until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(\d+ (min|h) left\) \(a stored refresh token renews it(; kept in [^)]+)?\)/);
    expect(r.stdout).toMatch(/Scopes: .*data:read.* \(\d+ of the \d+ actions need a scope not granted\)/);
    expect(r.stdout).toMatch(/Rules: each agentstack call is checked against \d+ known actions/);
    expect(r.stdout).toContain("Per-action rules: default: no per-action rules (Cursor's own approval applies)");
    expect(r.stdout).not.toContain(token);
    expect(r.stdout).not.toContain(token.slice(0, 12));

    const json = JSON.parse((await status(dir, ['--json'])).stdout);
    expect(json).toMatchObject({ signed_in: true, state: 'signed_in', refresh_stored: true, online: null, project: { id: null, reason: 'account_default' } });
    expect(json.scopes).toContain('data:read');
    expect(json.uncovered_actions).toBeGreaterThan(0);
    expect(Object.keys(json).every((k) => /^[a-z]+(_[a-z]+)*$/.test(k))).toBe(true);
    expect(JSON.stringify(json)).not.toContain(token.slice(0, 12));

    // The person's per-action rules, with where each is set.
    const ruled = await status(dir, [], fixture.core.baseUrl, { AGENTSTACK_POLICY: 'confirm-writes', AGENTSTACK_DENY_ACTIONS: 'data.*' });
    expect(ruled.stdout).toContain('Per-action rules: policy confirm-writes (env AGENTSTACK_POLICY); deny-actions data.* (env AGENTSTACK_DENY_ACTIONS)');
    expect(ruled.stdout.trimEnd().split('\n').length).toBeLessThanOrEqual(10);
    const ruledJson = JSON.parse((await status(dir, ['--json'], fixture.core.baseUrl, { AGENTSTACK_DENY_ACTIONS: 'data.*' })).stdout);
    expect(ruledJson.policy).toBe('policy default; deny-actions data.* (env AGENTSTACK_DENY_ACTIONS)');

    const online = await status(dir, ['--online', '--json']);
    expect(online.status).toBe(0);
    expect(JSON.parse(online.stdout).online).toMatchObject({ accepted: true });
  });

  it('--online with a token the server refuses: exit 1; the renewal with a refresh token, else sign in again', async () => {
    const dir = fixture.cursorDir();
    await signIn(dir);
    const path = join(dir, 'mcp.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/Bearer [^"]+/, 'Bearer not-a-token-the-server-issued-0123456789'));
    expect((await status(dir, [])).status).toBe(0); // offline it cannot tell
    const r = await status(dir, ['--online']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/Server check: the server refused the token \(HTTP 401\)/);
    expect(r.stdout).toContain('X AgentStack: token refused by the server, renewal due');
    expect(r.stdout).toContain(installed(REFUSED_RENEWAL_STEP, REPO_ROOT));
    expect(r.stdout).not.toContain('Sign in again');
    rmSync(join(dir, 'agentstack-refresh'));
    const bare = await status(dir, ['--online']);
    expect(bare.status).toBe(1);
    expect(bare.stdout).toContain('Sign in again with /agentstack-authorize');
  });

  it('refuses --online without --status, and --status with sign-in options (exit 2)', () => {
    const dir = fixture.cursorDir();
    const env = { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir };
    const alone = spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, '--online'], { encoding: 'utf8', env });
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain('--online works only with --status');
    const mixed = spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, '--status', '--logout'], { encoding: 'utf8', env });
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toContain('--status cannot be combined with --logout');
  });
});
