/**
 * `device-code.mjs --logout` against the reference core (real OAuth server, real RFC 7009 revocation): the grant is
 * revoked at the server, the local credential is gone, the rest of mcp.json is byte for byte as it was, and
 * session-start shows "signed out" and starts no sign-in until the person signs in again.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { refresh } from '../../core/testing.js';
import { tempDir } from '../helpers/repo.js';
import { expectWithinDeadline } from '../helpers/deadline.js';
import { DEVICE_CODE_SCRIPT, runDeviceCode, type DeviceRun } from '../helpers/deviceCode.js';
import { sessionStart, signInWith } from '../helpers/sessionStart.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
const runs: DeviceRun[] = [];

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
});
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir('agentstack-logout-');
  core.setFaults({ endpointFaults: {}, noDiscovery: false });
});
afterEach(async () => {
  for (const run of runs.splice(0)) {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    await run.done;
  }
  dir.cleanup();
});

const file = (name: string) => join(dir.path, name);
const OTHERS = {
  github: { command: 'docker', args: ['run', '-i', '--rm', 'ghcr.io/github/github-mcp-server'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${env:GH}' } },
  zeta: { url: 'https://zeta.example/mcp', headers: { 'X-Key': 'k', Authorization: 'Bearer zeta-own-token' } },
};

function deviceCode(args: string[], env?: Record<string, string>): DeviceRun {
  const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir.path, args, env });
  runs.push(run);
  return run;
}

async function logout(json = true) {
  if (!json) {
    // Human output is not JSON lines: run the script directly.
    const child = spawnSync(process.execPath, [DEVICE_CODE_SCRIPT, '--logout'], { env: { PATH: process.env.PATH, HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl }, encoding: 'utf8' });
    return { code: child.status, stdout: child.stdout, stderr: child.stderr, ms: 0, events: [] as Array<Record<string, unknown>> };
  }
  const run = deviceCode(['--logout', '--json']);
  const done = await run.done;
  return { ...done, events: run.events };
}

/** Signs the dir in with the real device flow (approved through the core's pages model). */
async function signInForReal(extraArgs: string[] = []): Promise<void> {
  const run = deviceCode(['--json', '--no-browser', ...extraArgs]);
  const code = await run.waitFor('device_code');
  await core.approve(String(code.user_code));
  expect((await run.done).code).toBe(0);
}

const mcpText = () => readFileSync(file('mcp.json'), 'utf8');
const agentstackEntry = () => (JSON.parse(mcpText()) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers.agentstack;

describe('device-code --logout against the reference core', () => {
  it('revokes the grant, removes the credential and the files, keeps the pin and every other byte, and stays signed out', async () => {
    writeFileSync(file('mcp.json'), `${JSON.stringify({ theme: 'dark', mcpServers: OTHERS }, null, 2)}\n`);
    await signInForReal(['--project', '42']);
    const before = mcpText();
    const accessToken = String((agentstackEntry().headers as Record<string, string>).Authorization).slice('Bearer '.length);
    const refreshToken = String(JSON.parse(readFileSync(file('agentstack-refresh'), 'utf8')).refresh_token);
    expect(existsSync(file('agentstack-capabilities.json'))).toBe(true);
    expect(existsSync(file('agentstack-identity.json'))).toBe(true);
    const revokedBefore = core.counters.grantsRevoked;

    const out = await logout();
    expect(out.code).toBe(0);
    expect(out.events).toHaveLength(1);
    expect(out.events[0]).toMatchObject({ event: 'signed_out', server_url: `${core.baseUrl}/mcp`, was_signed_in: true, revoked: true, reason: null, revoke_at: core.baseUrl });
    // The core issues JWT access tokens, which oidc-provider cannot revoke (unsupported_token_type): said plainly.
    expect(out.events[0]!.access_token_revoked).toBe(false);
    expect(out.events[0]!.access_token_expires_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(out.stderr).toContain(`✓ Signed out of AgentStack (server ${core.baseUrl}/mcp); the refresh token was revoked. The last access token stays valid until `);
    expect(out.stderr).toContain('unless the server checks revocation.');
    expect(out.stdout + out.stderr).not.toContain(accessToken);
    expect(out.stdout + out.stderr).not.toContain(refreshToken);

    // At the server: the grant is gone, so the old refresh token is refused.
    expect(core.counters.grantsRevoked).toBe(revokedBefore + 1);
    const replay = await refresh(core.baseUrl, refreshToken);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');

    // Locally: only the Authorization line of the agentstack entry changed; the pin stays; the files are gone.
    expect(mcpText()).toBe(before.replace(/\n +"Authorization": "Bearer [^"]+",/, ''));
    expect(agentstackEntry()).toEqual({ type: 'http', url: `${core.baseUrl}/mcp`, headers: { 'X-Project-ID': '42' } });
    for (const name of ['agentstack-refresh', 'agentstack-identity.json', 'agentstack-capabilities.json']) expect(existsSync(file(name)), name).toBe(false);
    expect(readFileSync(file('agentstack-project'), 'utf8').trim()).toBe('42');
    expect(statSync(file('agentstack-signed-out')).mode & 0o777).toBe(0o600);

    // A session start afterwards: "signed out", no device code requested, no lock, nothing written back.
    const authorizations = core.counters.deviceAuthorizations;
    const started = await sessionStart(dir.path, core.baseUrl);
    const card = String(started.json.additional_context);
    expect(card).toContain('- Account: signed out');
    expect(card).toContain('/agentstack-authorize');
    expect(core.counters.deviceAuthorizations).toBe(authorizations);
    expect(existsSync(file('agentstack-device.lock'))).toBe(false);
    expect(agentstackEntry().headers).toEqual({ 'X-Project-ID': '42' });

    // Signing in again clears the record: the next session start is signed in.
    await signInForReal();
    expect(existsSync(file('agentstack-signed-out'))).toBe(false);
    const again = String((await sessionStart(dir.path, core.baseUrl)).json.additional_context);
    expect(again).toMatch(/- Account: signed in as /);
  });

  it('a session start after sign-out never starts a sign-in, even with a placeholder Bearer put back', async () => {
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    expect((await logout()).code).toBe(0);
    const entry = agentstackEntry();
    writeFileSync(file('mcp.json'), JSON.stringify({ mcpServers: { agentstack: { ...entry, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));
    const authorizations = core.counters.deviceAuthorizations;
    const card = String((await sessionStart(dir.path, core.baseUrl)).json.additional_context);
    expect(card).toContain('- Account: signed out');
    expect(core.counters.deviceAuthorizations).toBe(authorizations);
  });

  it('revocation fails (core fault: 503 on the revocation endpoint): still signed out locally, exit 0, says where to revoke', async () => {
    const tokens = await core.issueTokens();
    await signInWith(dir.path, core.baseUrl, tokens);
    core.setFaults({ endpointFaults: { revocation: { kind: '5xx' } } });
    const out = await logout();
    expect(out.code).toBe(0);
    expect(out.events[0]).toMatchObject({ event: 'signed_out', was_signed_in: true, revoked: false, reason: 'server', revoke_at: core.baseUrl });
    expect(out.stderr).toContain('✓ Signed out of AgentStack on this machine');
    expect(out.stderr).toContain(`could not be revoked at the server`);
    expect(out.stderr).toContain(`Revoke the "cursor-plugin" sign-in in your account at ${core.baseUrl}`);
    expect(agentstackEntry().headers).toBeUndefined();
    expect(existsSync(file('agentstack-refresh'))).toBe(false);
    // Honest: the server did not revoke, so the refresh token still works there.
    core.setFaults({ endpointFaults: {} });
    expect((await refresh(core.baseUrl, tokens.refresh_token!)).status).toBe(200);
  });

  it('a revocation endpoint that hangs: signed out within the deadline, reason timeout', async () => {
    // The same sign-out against an endpoint that fails at once, in this run: what the process costs on this machine now.
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    core.setFaults({ endpointFaults: { revocation: { kind: '5xx' } } });
    const baseline = (await logout()).ms;
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    core.setFaults({ endpointFaults: { revocation: { kind: 'hang' } } });
    const out = await logout();
    expect(out.code).toBe(0);
    // The server's whole deadline is 12 s (a request's own, 5 s): never more than that, plus five times what the same
    // sign-out costs here now (docs/development.md, "Tests on a busy machine").
    expectWithinDeadline(out.ms, { deadlineMs: 12_000, baselineMs: baseline, what: 'sign-out against a revocation endpoint that hangs' });
    expect(out.events[0]).toMatchObject({ revoked: false, reason: 'timeout' });
    expect(existsSync(file('agentstack-refresh'))).toBe(false);
  });

  it('a server without a revocation endpoint (no discovery): signed out locally, revoked false, reason no_revocation_endpoint', async () => {
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    core.setFaults({ noDiscovery: true });
    const out = await logout();
    expect(out.code).toBe(0);
    expect(out.events[0]).toMatchObject({ revoked: false, reason: 'no_revocation_endpoint' });
    expect(agentstackEntry()).toEqual({ type: 'http', url: `${core.baseUrl}/mcp` });
  });

  it('a sign-in still waiting for approval is named in a warning (approving it would sign in again)', async () => {
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    const pending = deviceCode(['--json', '--no-browser']);
    await pending.waitFor('device_code');
    const out = await logout();
    expect(out.code).toBe(0);
    expect((out.events[0]!.warnings as string[]).join(' ')).toMatch(/still waiting for approval \(pid \d+\)/);
    expect(out.stderr).toContain('warning: A sign-in is still waiting');
  });

  it('not signed in: says so, exits 0, asks the server nothing; human output without --json', async () => {
    const requests = Object.values(core.counters.requests).reduce((a, b) => a + b, 0);
    const out = await logout(false);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('You were not signed in to AgentStack');
    expect(Object.values(core.counters.requests).reduce((a, b) => a + b, 0)).toBe(requests);
  });

  it('a broken mcp.json is a local failure: exit 1, an error event, nothing changed', async () => {
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    writeFileSync(file('mcp.json'), '{"mcpServers": {');
    const refreshBefore = readFileSync(file('agentstack-refresh'), 'utf8');
    const out = await logout();
    expect(out.code).toBe(1);
    expect(out.events).toEqual([expect.objectContaining({ event: 'error', error: 'invalid_config' })]);
    expect(mcpText()).toBe('{"mcpServers": {');
    expect(readFileSync(file('agentstack-refresh'), 'utf8')).toBe(refreshBefore);
    expect(existsSync(file('agentstack-signed-out'))).toBe(false);
  });

  it('bad usage: --logout with --scope-preset exits 2', async () => {
    const bad = deviceCode(['--logout', '--scope-preset', 'readonly']);
    expect((await bad.done).code).toBe(2);
  });
});
