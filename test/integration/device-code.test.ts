import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCore, type RunningCore } from '../../core/index.js';
import { tempDir } from '../helpers/repo.js';
import { runDeviceCode, type DeviceRun } from '../helpers/deviceCode.js';
import { IS_WINDOWS, PRIVATE_MODE, SHARED_MODE } from '../helpers/platform.js';
import { NEVER_A_PID } from '../helpers/deadPid.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
const runs: DeviceRun[] = [];
const outputs: string[] = [];

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
});
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir();
  core.setFaults({ slowDown: 0, endpointFaults: {}, noDiscovery: false, hostileVerificationUri: null });
});
afterEach(async () => {
  for (const run of runs.splice(0)) {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    const { stdout, stderr } = await run.done;
    outputs.push(stdout, stderr);
  }
  dir.cleanup();
});

const file = (name: string) => join(dir.path, name);
const mode = (name: string) => statSync(file(name)).mode & 0o777;
function start(args?: string[], env?: Record<string, string>): DeviceRun {
  const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir.path, args, env });
  runs.push(run);
  return run;
}

const OTHER_SERVERS = {
  github: { command: 'docker', args: ['run', '-i', '--rm', 'ghcr.io/github/github-mcp-server'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${env:GH}' } },
  agentstack: { type: 'streamable-http', url: 'https://agentstack.tech/mcp', tools: ['agentstack.execute'], headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } },
  zeta: { url: 'https://zeta.example/mcp', headers: { 'X-Key': 'k' } },
};

describe('device-code.mjs against the reference core', () => {
  it('signs in when approved: lean Bearer entry, other servers untouched, refresh + snapshot 0600, events in order, no secret in output', async () => {
    writeFileSync(file('mcp.json'), JSON.stringify({ theme: 'x', mcpServers: OTHER_SERVERS }, null, 4));
    writeFileSync(file('agentstack-project'), '42\n');
    const run = start();
    const code = await run.waitFor('device_code');
    expect(code).toMatchObject({ interval: 1, verification_uri: `${core.baseUrl}/activate` });
    expect(Object.keys(code)).toEqual(['event', 'user_code', 'verification_uri', 'verification_uri_complete', 'expires_in', 'interval']);
    expect(mode('agentstack-device.lock')).toBe(PRIVATE_MODE);
    expect(JSON.parse(readFileSync(file('agentstack-device.lock'), 'utf8'))).toMatchObject({ user_code: code.user_code, verification_uri: code.verification_uri });
    await run.waitFor('pending');
    await core.approve(String(code.user_code));
    const result = await run.done;
    expect(result.code).toBe(0);

    const names = run.events.map((e) => e.event);
    expect(names[0]).toBe('device_code');
    expect(names.at(-1)).toBe('authorized');
    expect(names.slice(1, -1).every((n) => n === 'pending')).toBe(true);
    const authorized = run.events.at(-1)!;
    expect(Object.keys(authorized)).toEqual(['event', 'server_url', 'project_id', 'expires_at', 'capabilities', 'scopes', 'uncovered_actions', 'refresh_store', 'next_step']);
    // No session bus in the tests' environment: the refresh token is kept in the file (test/integration/keychain.test.ts: the keychain).
    expect(authorized.refresh_store).toBe('file');
    expect(authorized.next_step).toMatch(/turn it on \(Cursor CLI: agent mcp enable agentstack\)/);
    expect(authorized).toMatchObject({ server_url: `${core.baseUrl}/mcp`, project_id: 42 });
    expect(authorized.capabilities).toBeGreaterThan(0);

    const mcp = JSON.parse(readFileSync(file('mcp.json'), 'utf8'));
    expect(Object.keys(mcp)).toEqual(['theme', 'mcpServers']);
    expect(Object.keys(mcp.mcpServers)).toEqual(['github', 'agentstack', 'zeta']);
    expect(mcp.mcpServers.github).toEqual(OTHER_SERVERS.github);
    expect(mcp.mcpServers.zeta).toEqual(OTHER_SERVERS.zeta);
    const entry = mcp.mcpServers.agentstack;
    expect(entry).toEqual({ type: 'streamable-http', url: `${core.baseUrl}/mcp`, headers: { Authorization: expect.stringMatching(/^Bearer \S+$/), 'X-Project-ID': '42' } });
    const accessToken = entry.headers.Authorization.slice('Bearer '.length);
    const refresh = JSON.parse(readFileSync(file('agentstack-refresh'), 'utf8'));
    expect(refresh).toMatchObject({ token_endpoint: `${core.baseUrl}/api/oauth2/token`, client_id: 'cursor-plugin', resource: `${core.baseUrl}/mcp`, token_type: 'bearer' });
    const snapshot = JSON.parse(readFileSync(file('agentstack-capabilities.json'), 'utf8'));
    expect(snapshot).toMatchObject({ audience: 'tenant', total_actions: authorized.capabilities, server_url: `${core.baseUrl}/mcp` });
    expect(snapshot.catalog_etag).toBeTruthy();
    for (const name of ['mcp.json', 'agentstack-refresh', 'agentstack-capabilities.json']) expect(mode(name)).toBe(PRIVATE_MODE);
    expect(existsSync(file('agentstack-device.lock'))).toBe(false);
    // only the agentstack entry's text changed: the file keeps its 4-space indentation and has no final newline, as before
    const text = readFileSync(file('mcp.json'), 'utf8');
    const before = JSON.stringify({ theme: 'x', mcpServers: OTHER_SERVERS }, null, 4);
    expect(text.startsWith(before.slice(0, before.indexOf('"agentstack"')))).toBe(true);
    expect(text.endsWith(before.slice(before.indexOf('"zeta"') - 9))).toBe(true);

    for (const secret of [accessToken, refresh.refresh_token]) {
      expect(result.stdout).not.toContain(secret);
      expect(result.stderr).not.toContain(secret);
      expect(result.stderr).not.toContain(secret.slice(-24));
    }
    expect(result.stderr).toContain('✓ Signed in to AgentStack as');
    expect(result.stderr).toContain('reload the window');
    expect(core.counters.requests['POST /mcp/cache/clear']).toBeGreaterThan(0);
  });

  it('signing in again keeps actions added since the last approval unapproved, and caches who signed in', async () => {
    const signIn = async () => {
      const run = start();
      const code = await run.waitFor('device_code');
      await core.approve(String(code.user_code));
      expect((await run.done).code).toBe(0);
    };
    await signIn();
    const first = JSON.parse(readFileSync(file('agentstack-capabilities.json'), 'utf8'));
    expect(first.unapproved).toEqual([]);
    expect(JSON.parse(readFileSync(file('agentstack-identity.json'), 'utf8'))).toMatchObject({ who: 'dev@agentstack.test', server_url: `${core.baseUrl}/mcp` });
    expect(mode('agentstack-identity.json')).toBe(PRIVATE_MODE);
    // Pretend the previous snapshot lacked projects.list: to the next sign-in, the server has just added it.
    const trimmed = { ...first, actions: first.actions.filter((a: { action: string }) => a.action !== 'projects.list') };
    writeFileSync(file('agentstack-capabilities.json'), JSON.stringify(trimmed, null, 2));
    await signIn();
    const second = JSON.parse(readFileSync(file('agentstack-capabilities.json'), 'utf8'));
    expect(second.unapproved).toEqual(['projects.list']);
    expect(second.last_diff).toMatchObject({ added: ['projects.list'], removed: [] });
  });

  it('--project pins a project (validated, 0600) before signing in; --project none unpins; project 1 is refused', async () => {
    writeFileSync(file('agentstack-project'), '5\n', { mode: 0o644 });
    const run = start(['--json', '--no-browser', '--project', '77']);
    const code = await run.waitFor('device_code');
    await core.approve(String(code.user_code));
    expect((await run.done).code).toBe(0);
    expect(readFileSync(file('agentstack-project'), 'utf8')).toBe('77\n');
    expect(mode('agentstack-project')).toBe(PRIVATE_MODE);
    expect(JSON.parse(readFileSync(file('mcp.json'), 'utf8')).mcpServers.agentstack.headers['X-Project-ID']).toBe('77');
    expect(run.events.at(-1)).toMatchObject({ event: 'authorized', project_id: 77 });

    const refused = await start(['--json', '--no-browser', '--project', '1']).done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--project must be an integer greater than 1');
    expect(readFileSync(file('agentstack-project'), 'utf8')).toBe('77\n');

    const unpin = start(['--json', '--no-browser', '--project', 'none']);
    await core.approve(String((await unpin.waitFor('device_code')).user_code));
    expect((await unpin.done).code).toBe(0);
    expect(existsSync(file('agentstack-project'))).toBe(false);
    expect(JSON.parse(readFileSync(file('mcp.json'), 'utf8')).mcpServers.agentstack.headers['X-Project-ID']).toBeUndefined();
  });

  it('--project into a folder that cannot be written: one invalid_config event, exit 1, no stack trace', async () => {
    writeFileSync(file('not-a-folder'), 'x');
    const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: file('not-a-folder/sub'), args: ['--json', '--no-browser', '--project', '77'] });
    runs.push(run);
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(run.events).toEqual([expect.objectContaining({ event: 'error', error: 'invalid_config', message: expect.stringContaining('Cannot write the project pin') })]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('denied: exit 1 with access_denied and a next step; mcp.json untouched', async () => {
    const original = JSON.stringify({ mcpServers: { zeta: OTHER_SERVERS.zeta } });
    writeFileSync(file('mcp.json'), original);
    const run = start();
    const code = await run.waitFor('device_code');
    await core.approve(String(code.user_code), { deny: true });
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(run.events.at(-1)).toMatchObject({ event: 'error', error: 'access_denied', message: expect.stringMatching(/denied.*Run it again/) });
    expect(readFileSync(file('mcp.json'), 'utf8')).toBe(original);
    expect(existsSync(file('agentstack-device.lock'))).toBe(false);
  });

  it('no OAuth metadata at all: the built-in AgentStack paths are used', async () => {
    core.setFaults({ noDiscovery: true });
    const before = { ...core.counters.requests };
    const run = start();
    const code = await run.waitFor('device_code');
    await core.approve(String(code.user_code));
    expect((await run.done).code).toBe(0);
    const delta = (key: string) => (core.counters.requests[key] ?? 0) - (before[key] ?? 0);
    expect(delta('GET /.well-known/oauth-protected-resource/mcp')).toBeGreaterThan(0);
    expect(delta('GET /.well-known/oauth-protected-resource')).toBeGreaterThan(0);
    expect(delta('GET /.well-known/oauth-authorization-server')).toBeGreaterThan(0);
    expect(delta('POST /api/oauth2/device/authorize')).toBe(1);
    expect(delta('POST /api/oauth2/token')).toBeGreaterThan(0);
    expect(existsSync(file('agentstack-refresh'))).toBe(true);
  });

  it('a second concurrent run shows the running code, follows that sign-in, and ends signed in as it does', async () => {
    // The first run takes 3 s to save after approval, so the follower sees the approval in the lock.
    core.setFaults({ endpointFaults: { me: { kind: 'slow', delayMs: 3_000 } } });
    const first = start();
    const code = await first.waitFor('device_code');
    const second = start();
    const running = await second.waitFor('error');
    expect(running).toEqual({
      event: 'error', error: 'already_running', message: expect.stringContaining('already running'),
      verification_uri: code.verification_uri, verification_uri_complete: code.verification_uri_complete, user_code: code.user_code,
    });
    await core.approve(String(code.user_code));
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    const written = first.events.at(-1)!;
    expect(second.events.at(-1)).toEqual({
      event: 'authorized', joined: true, fresh: true, server_url: written.server_url, project_id: written.project_id,
      expires_at: expect.any(String), capabilities: written.capabilities, scopes: written.scopes, uncovered_actions: written.uncovered_actions,
    });
    expect(second.events).toHaveLength(2);
    expect(b.stderr).toContain(String(code.user_code));
    expect(b.stderr).toMatch(/That sign-in was approved/);
    expect(b.stderr).toMatch(/✓ Signed in to AgentStack.*\(by the sign-in that was already running\)/);
  });

  it('started after the code was approved, while the first run saves: no used code shown, ends signed in', async () => {
    core.setFaults({ endpointFaults: { me: { kind: 'slow', delayMs: 3_000 } } });
    const first = start();
    const code = await first.waitFor('device_code');
    await core.approve(String(code.user_code));
    const lock = file('agentstack-device.lock');
    for (let i = 0; i < 200 && !(existsSync(lock) && readFileSync(lock, 'utf8').includes('approved_at')); i++) await new Promise((r) => setTimeout(r, 25));
    expect(readFileSync(lock, 'utf8')).toContain('approved_at');
    const second = start();
    const running = await second.waitFor('error');
    expect(running).toMatchObject({ error: 'already_running', approved: true, user_code: null, verification_uri: null, verification_uri_complete: null, message: expect.stringMatching(/just approved and is being saved/) });
    const [a, b] = await Promise.all([first.done, second.done]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    expect(second.events.at(-1)).toMatchObject({ event: 'authorized', joined: true, fresh: true });
    expect(b.stderr).not.toContain(String(code.user_code));
    expect(b.stdout).not.toContain(String(code.user_code));
  });

  it('the running one killed: the follower ends not signed in (exit 1, what to do); a stale lock is then replaced', async () => {
    const first = start();
    const code = await first.waitFor('device_code');
    const second = start();
    await second.waitFor('error');
    first.child.kill('SIGKILL');
    await first.done;
    const followed = await second.done;
    expect(followed.code).toBe(1);
    expect(second.events.at(-1)).toMatchObject({ event: 'error', error: 'not_signed_in', message: expect.stringMatching(/ended without signing in\. Run it again/) });

    // The killed run left its lock behind: its pid is dead, so the next run replaces it.
    expect(existsSync(file('agentstack-device.lock'))).toBe(true);
    const third = start();
    const fresh = await third.waitFor('device_code');
    expect(fresh.user_code).not.toBe(code.user_code);
    await core.approve(String(fresh.user_code));
    expect((await third.done).code).toBe(0);
  });

  it.skipIf(IS_WINDOWS)('Ctrl-C on the follower stops only the follower: aborted, and the running sign-in goes on to sign in', async () => {
    const first = start();
    const code = await first.waitFor('device_code');
    const second = start();
    await second.waitFor('error');
    second.child.kill('SIGINT');
    const stopped = await second.done;
    expect(stopped.code).toBe(1);
    expect(second.events.at(-1)).toMatchObject({ event: 'error', error: 'aborted', message: expect.stringMatching(/^Stopped waiting; the sign-in already running \(pid \d+\) goes on\.$/) });
    await core.approve(String(code.user_code));
    expect((await first.done).code).toBe(0);
  });

  it('replaces a lock from a dead pid written by hand', async () => {
    const dead = NEVER_A_PID;
    writeFileSync(file('agentstack-device.lock'), JSON.stringify({ pid: dead, started_at: new Date().toISOString(), expires_at: new Date(Date.now() + 600_000).toISOString(), user_code: 'DEAD-CODE' }));
    const run = start();
    const code = await run.waitFor('device_code');
    expect(code.user_code).not.toBe('DEAD-CODE');
    run.child.kill('SIGINT');
    await run.done;
  });

  it.skipIf(IS_WINDOWS)('Ctrl-C stops at once (not at the next poll) and releases the lock', async () => {
    // A server that asks for a poll every 30 s: "at once" is then far from "at the next poll", however slow the machine.
    const slow = await startCore({ port: 0, interval: 30 });
    try {
      const run = runDeviceCode({ baseUrl: slow.baseUrl, cursorDir: dir.path });
      runs.push(run);
      expect(await run.waitFor('device_code')).toMatchObject({ interval: 30 });
      expect(existsSync(file('agentstack-device.lock'))).toBe(true);
      const polls = slow.counters.tokenRequests;
      const sent = Date.now();
      run.child.kill('SIGINT');
      const result = await run.done;
      // At once, not at the next poll 30 s on.
      expect(Date.now() - sent).toBeLessThan(30_000);
      expect(slow.counters.tokenRequests).toBe(polls);
      expect(result.code).toBe(1);
      expect(run.events.at(-1)).toMatchObject({ event: 'error', error: 'aborted' });
      expect(existsSync(file('agentstack-device.lock'))).toBe(false);
    } finally {
      await slow.close();
    }
  });

  it('malformed mcp.json: exit 1 before any request, file byte-identical, message names file and position', async () => {
    const text = '{\n  "mcpServers": {\n    "zeta": {"url": "https://z/mcp",}\n  }\n}\n';
    writeFileSync(file('mcp.json'), text, { mode: 0o644 });
    const before = core.counters.deviceAuthorizations;
    const run = start();
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(run.events).toEqual([{ event: 'error', error: 'invalid_config', message: expect.stringContaining('line 3, column 37') }]);
    // The home folder as `~`, and the way out: fix that line (the sign-in in the file is not lost).
    expect(result.stderr).toContain('~/mcp.json is not valid JSON (line 3, column 37');
    expect(result.stderr).toMatch(/Fix line 3, column 37 of ~\/mcp\.json/);
    expect(core.counters.deviceAuthorizations).toBe(before);
    expect(readFileSync(file('mcp.json'), 'utf8')).toBe(text);
    expect(mode('mcp.json')).toBe(SHARED_MODE);
    expect(core.counters.deviceAuthorizations).toBe(before);
  });

  it('a hostile verification URL is refused with unsafe_url, never shown as a code to enter', async () => {
    core.setFaults({ hostileVerificationUri: 'javascript:alert(document.cookie)' });
    const run = start(['--json']);
    const result = await run.done;
    expect(result.code).toBe(1);
    expect(run.events).toEqual([{ event: 'error', error: 'unsafe_url', message: expect.stringContaining('refusing to show or open it') }]);
    expect(result.stderr).toMatch(/^X The server sent a verification URL that is not a plain https:\/\/ link \(javascript:alert/m);
    expect(existsSync(file('agentstack-device.lock'))).toBe(false);
  });

  it('bad usage exits 2; --help exits 0', () => {
    const bad = spawnSync(process.execPath, [join(__dirname, '../../hooks/scripts/device-code.mjs'), '--bogus'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    const help = spawnSync(process.execPath, [join(__dirname, '../../hooks/scripts/device-code.mjs'), '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--scope-preset');
  });
});
