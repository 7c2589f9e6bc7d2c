/**
 * refreshSingleFlight in this process against the reference core's real token endpoint: each outcome, what is
 * stored after a refresh (rotated refresh token first, then the Bearer), an old record that names no endpoint, the
 * lock another session holds, and failures that must not clear anything.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OAUTH_ROUTES, startCore, type RunningCore } from '../../core/index.js';
import { bearerOf, tokenFingerprint } from '../../lib/agentstack/mcpJson/credential.js';
import { applyBearer } from '../../lib/agentstack/mcpJson/entry.js';
import { updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';
import { readRefreshFile, writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { refreshSingleFlight, type TokenRefreshArgs } from '../../lib/agentstack/auth/tokenRefresh.js';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { withLock } from '../../lib/platform/fs/fileLock.js';
import { lockPathFor } from '../../lib/platform/fs/lockPath.js';
import { processStartTime } from '../../lib/platform/processStart.js';
import { tempDir } from '../helpers/repo.js';
import { signInWith } from '../helpers/sessionStart.js';
import { expectWithinDeadline, timed, timerMs } from '../helpers/deadline.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
let paths: ReturnType<typeof cursorPaths>;
beforeAll(async () => { core = await startCore({ port: 0, interval: 1 }); });
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir('agentstack-refresh-');
  paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path });
  core.setFaults({ endpointFaults: {} });
});
afterEach(() => dir.cleanup());

const tokenRequests = () => core.counters.requests[`POST ${OAUTH_ROUTES.token}`] ?? 0;
const discoveryRequests = () => Object.entries(core.counters.requests).filter(([k]) => k.startsWith('GET /.well-known/')).reduce((n, [, v]) => n + v, 0);
const bearer = () => bearerOf(JSON.parse(readFileSync(paths.mcpJson, 'utf8')));
const stored = () => readRefreshFile(paths.refresh);
const args = (extra: Partial<TokenRefreshArgs> = {}): TokenRefreshArgs => ({
  paths, env: { AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl }, baseUrl: core.baseUrl, deadline: Date.now() + 8_000, seenToken: null, ...extra,
});

describe('refreshSingleFlight against the core', () => {
  it('no stored refresh token: no_refresh_token, and nothing is sent', async () => {
    const before = tokenRequests();
    expect(await refreshSingleFlight(args())).toEqual({ kind: 'no_refresh_token' });
    expect(tokenRequests()).toBe(before);
  });

  it('a refresh token stored for another server is never sent: failed, naming both servers, file kept', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    const record = { ...stored()!, resource: 'https://other.example/mcp' };
    writeRefreshFile(paths.refresh, record);
    const before = tokenRequests();
    const outcome = await refreshSingleFlight(args({ seenToken: tokens.access_token }));
    expect(outcome).toEqual({
      kind: 'failed',
      message: `the stored refresh token is for https://other.example/mcp, not ${core.baseUrl}/mcp; sign in to this server with /agentstack-authorize`,
    });
    expect(tokenRequests()).toBe(before);
    expect(stored()).toEqual(record);

    // Only a token endpoint recorded (no resource): that is what the message names.
    writeRefreshFile(paths.refresh, { ...record, resource: null, token_endpoint: 'https://other.example/oauth/token' });
    const byEndpoint = await refreshSingleFlight(args({ seenToken: tokens.access_token }));
    expect(byEndpoint.kind).toBe('failed');
    expect((byEndpoint as { message: string }).message).toContain('is for https://other.example/oauth/token, not');
  });

  it('refreshes an expiring token: the rotated refresh token and the record are stored, then the new Bearer', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    // A scope recorded earlier is replaced by the one the server grants now.
    writeRefreshFile(paths.refresh, { ...stored()!, scope: 'profile:read' });
    const before = tokenRequests();
    const at = Date.now();
    const outcome = await refreshSingleFlight(args({ seenToken: tokens.access_token, now: () => at }));
    expect(outcome).toMatchObject({ kind: 'refreshed', byThisProcess: true });
    const token = (outcome as { token: string }).token;
    expect(token).not.toBe(tokens.access_token);
    expect(tokenRequests()).toBe(before + 1);
    expect(bearer()).toBe(token);
    const record = stored()!;
    expect(record.refresh_token).not.toBe(tokens.refresh_token);
    expect(record).toMatchObject({
      scope: tokens.scope,
      token_type: 'bearer',
      obtained_at: new Date(at).toISOString(),
      token_endpoint: `${core.baseUrl}${OAUTH_ROUTES.token}`,
      client_id: 'cursor-plugin',
      resource: `${core.baseUrl}/mcp`,
      access_token_sha256: tokenFingerprint(token),
    });
    // From the answer's expires_in (the grant's 30 s), counted from the injected clock.
    expect(record.expires_at).toBe(new Date(at + 30_000).toISOString());

    // The rotated token works: a second refresh (the new Bearer seen and treated as expiring) succeeds with it.
    const again = await refreshSingleFlight(args({ seenToken: token, now: () => Date.now() + 3_600_000 }));
    expect(again).toMatchObject({ kind: 'refreshed', byThisProcess: true });
  });

  it('an old record naming no endpoint, client or resource: discovers the token endpoint and records all three', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    writeFileSync(paths.refresh, `${tokens.refresh_token}\n`, { mode: 0o600 });
    expect(stored()).toEqual({ refresh_token: tokens.refresh_token, legacy: true });
    const discovered = discoveryRequests();
    const outcome = await refreshSingleFlight(args({ seenToken: tokens.access_token }));
    expect(outcome).toMatchObject({ kind: 'refreshed', byThisProcess: true });
    expect(discoveryRequests()).toBeGreaterThan(discovered);
    const record = stored()!;
    expect(record.legacy).toBeUndefined();
    expect(readFileSync(paths.refresh, 'utf8').trim().startsWith('{')).toBe(true);
    expect(record).toMatchObject({
      token_endpoint: `${core.baseUrl}${OAUTH_ROUTES.token}`,
      client_id: 'cursor-plugin',
      resource: `${core.baseUrl}/mcp`,
      scope: tokens.scope,
    });
  });

  it('another session already refreshed (a Bearer other than the one seen, still valid): its token, nothing sent', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    const before = tokenRequests();
    const outcome = await refreshSingleFlight(args({ seenToken: 'the-token-this-session-saw-0123456789' }));
    expect(outcome).toEqual({ kind: 'refreshed', token: tokens.access_token, byThisProcess: false });
    expect(tokenRequests()).toBe(before);
    expect(stored()?.refresh_token).toBe(tokens.refresh_token);
  });

  it('the token seen is no longer due for a refresh (long-lived): kept, nothing sent', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 3_600 });
    await signInWith(dir.path, core.baseUrl, tokens);
    const before = tokenRequests();
    expect(await refreshSingleFlight(args({ seenToken: tokens.access_token }))).toEqual({ kind: 'refreshed', token: tokens.access_token, byThisProcess: false });
    expect(tokenRequests()).toBe(before);
  });

  it('a refresh token but no Bearer in mcp.json: refreshed, and the Bearer written', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    writeFileSync(paths.mcpJson, '{"mcpServers": {}}\n');
    const outcome = await refreshSingleFlight(args());
    expect(outcome).toMatchObject({ kind: 'refreshed', byThisProcess: true });
    expect(bearer()).toBe((outcome as { token: string }).token);
  });

  it('a Bearer other than the one seen but expired is refreshed, not handed out', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    const later = () => Date.now() + 3_600_000;
    const outcome = await refreshSingleFlight(args({ seenToken: 'the-token-this-session-saw-0123456789', now: later }));
    expect(outcome).toMatchObject({ kind: 'refreshed', byThisProcess: true });
    expect((outcome as { token: string }).token).not.toBe(tokens.access_token);
  });

  it('the refresh token cleared while this session waited for the lock: no_refresh_token, nothing sent', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    const before = tokenRequests();
    let outcome: Promise<unknown> | undefined;
    await withLock(paths.refreshLock, async () => {
      outcome = refreshSingleFlight(args({ seenToken: tokens.access_token }));
      await new Promise((r) => setTimeout(r, 200));
      writeFileSync(paths.refresh, '');
    });
    expect(await outcome).toEqual({ kind: 'no_refresh_token' });
    expect(tokenRequests()).toBe(before);
    expect(bearer()).toBe(tokens.access_token);
  });

  it('a lock released while this session waits for it: the refresh then runs', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    let outcome: Promise<unknown> | undefined;
    await withLock(paths.refreshLock, async () => {
      outcome = refreshSingleFlight(args({ seenToken: tokens.access_token, deadline: Date.now() + 6_000 }));
      await new Promise((r) => setTimeout(r, 200));
    });
    expect(await outcome).toMatchObject({ kind: 'refreshed', byThisProcess: true });
  });

  it('invalid_grant: the dead refresh token is cleared, the Bearer left, and the reason kept', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    writeRefreshFile(paths.refresh, { ...stored()!, refresh_token: 'revoked-refresh-token-0123456789' });
    const outcome = await refreshSingleFlight(args({ seenToken: tokens.access_token }));
    expect(outcome.kind).toBe('invalid_grant');
    expect((outcome as { message: string }).message).toMatch(/\S/);
    expect((outcome as { message: string }).message).not.toContain('revoked-refresh-token-0123456789');
    expect(existsSync(paths.refresh)).toBe(false);
    expect(bearer()).toBe(tokens.access_token);
  });

  it('another session holds the lock past the deadline: failed with a plain reason, nothing sent', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    const before = tokenRequests();
    const outcome = await withLock(paths.refreshLock, () => refreshSingleFlight(args({ seenToken: tokens.access_token, deadline: Date.now() + 1_000 })));
    expect(outcome).toEqual({ kind: 'failed', message: 'another session is refreshing the token right now' });
    expect(tokenRequests()).toBe(before);
    expect(stored()?.refresh_token).toBe(tokens.refresh_token);
  });

  it('a lock left 22 s ago by a live process is taken as stale (a refresh finishes well within 20 s)', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    writeFileSync(paths.refreshLock, JSON.stringify({ pid: process.pid, pid_start: processStartTime(process.pid), acquired_at: new Date(Date.now() - 22_000).toISOString(), nonce: 'left' }));
    const outcome = await refreshSingleFlight(args({ seenToken: tokens.access_token, deadline: Date.now() + 3_000 }));
    expect(outcome).toMatchObject({ kind: 'refreshed', byThisProcess: true });
  });

  it('the token endpoint fails (5xx): failed with its message, the refresh token and Bearer kept', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    core.setFaults({ endpointFaults: { token: { kind: '5xx' } } });
    const outcome = await refreshSingleFlight(args({ seenToken: tokens.access_token }));
    expect(outcome.kind).toBe('failed');
    expect((outcome as { message: string }).message).toMatch(/^Refreshing the access token/);
    expect(stored()?.refresh_token).toBe(tokens.refresh_token);
    expect(bearer()).toBe(tokens.access_token);
  });

  it('a hanging token endpoint with a far deadline: the request is still bounded (at most 5 s)', async () => {
    // A refresh the core answers, in this run: what a refresh costs here now.
    const first = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, first);
    const started = performance.now();
    expect(await refreshSingleFlight(args({ seenToken: first.access_token }))).toMatchObject({ kind: 'refreshed' });
    const baselineMs = performance.now() - started;
    // The same refresh in another Cursor dir, started just before the bound ends: what the hanging run's error path
    // costs under the load of that moment (the suite runs other files beside this one).
    const other = tempDir('agentstack-refresh-beside-');
    const otherTokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(other.path, core.baseUrl, otherTokens);
    const otherArgs = { ...args({ seenToken: otherTokens.access_token }), paths: cursorPaths({ AGENTSTACK_CURSOR_DIR: other.path }), env: { AGENTSTACK_CURSOR_DIR: other.path, AGENTSTACK_BASE_URL: core.baseUrl } };
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    core.setFaults({ endpointFaults: { token: { kind: 'hang', times: 1 } } });
    const beside = timerMs(4_900).then(() => timed(() => refreshSingleFlight({ ...otherArgs, deadline: Date.now() + 8_000 })));
    const [{ value: outcome, ms }, deadlineMs, besideRun] = await Promise.all([timed(() => refreshSingleFlight(args({ seenToken: tokens.access_token, deadline: Date.now() + 120_000 }))), timerMs(5_000), beside])
      .finally(() => other.cleanup());
    expect(outcome.kind).toBe('failed');
    expect(besideRun.value).toMatchObject({ kind: 'refreshed' });
    expectWithinDeadline(ms, { deadlineMs, nominalMs: 5_000, baselineMs: Math.max(baselineMs, besideRun.ms), what: 'a refresh against a hanging token endpoint' });
    expect(stored()?.refresh_token).toBe(tokens.refresh_token);
  }, 40_000);

  it('a token endpoint answering in 1.5 s within an 8 s deadline: the request waits for it', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 1_500, times: 1 } } });
    expect(await refreshSingleFlight(args({ seenToken: tokens.access_token }))).toMatchObject({ kind: 'refreshed', byThisProcess: true });
  });

  it('the configured client secret goes only with the configured client id', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    // The record's client (cursor-plugin, which the core registered without a secret) is not the configured one: no
    // secret is sent, and the core accepts the refresh.
    const other = { AGENTSTACK_OAUTH_CLIENT_ID: 'another-client', AGENTSTACK_OAUTH_CLIENT_SECRET: 'another-client-secret-0123456789' };
    const refreshed = await refreshSingleFlight(args({ seenToken: tokens.access_token, env: { ...args().env, ...other } }));
    expect(refreshed).toMatchObject({ kind: 'refreshed', byThisProcess: true });
    // The record's client is the configured one: its secret is sent, and the core, which registered none, refuses it.
    const token = (refreshed as { token: string }).token;
    const same = { AGENTSTACK_OAUTH_CLIENT_ID: 'cursor-plugin', AGENTSTACK_OAUTH_CLIENT_SECRET: 'cursor-plugin-secret-0123456789' };
    const refused = await refreshSingleFlight(args({ seenToken: token, env: { ...args().env, ...same }, now: () => Date.now() + 3_600_000 }));
    expect(refused).toMatchObject({ kind: 'failed', message: expect.stringMatching(/invalid_client/) });
    expect(JSON.stringify(refused)).not.toContain('cursor-plugin-secret-0123456789');
    expect(bearer()).toBe(token);
  });

  it('a token endpoint slower than a near deadline: failed, the request bounded by the deadline rather than 5 s', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 3_000, times: 1 } } });
    const outcome = await refreshSingleFlight(args({ seenToken: tokens.access_token, deadline: Date.now() + 1_500 }));
    expect(outcome).toMatchObject({ kind: 'failed', message: expect.stringMatching(/within 1\.2 s/) });
    expect(stored()?.refresh_token).toBe(tokens.refresh_token);
  });

  it('discovery that hangs (an old record names no token endpoint) fails at its first deadline, not at every try', async () => {
    // The same refresh (discovery, then the grant) with a core that answers, in this run: what it costs here now.
    const first = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, first);
    writeFileSync(paths.refresh, `${first.refresh_token}\n`, { mode: 0o600 });
    const started = performance.now();
    expect(await refreshSingleFlight(args({ seenToken: first.access_token, deadline: Date.now() + 60_000 }))).toMatchObject({ kind: 'refreshed' });
    const baselineMs = performance.now() - started;
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    writeFileSync(paths.refresh, `${tokens.refresh_token}\n`, { mode: 0o600 });
    core.setFaults({ endpointFaults: { protected_resource: { kind: 'hang', times: 2 }, as_metadata: { kind: 'hang', times: 2 } } });
    const [{ value: outcome, ms }, deadlineMs] = await Promise.all([timed(() => refreshSingleFlight(args({ seenToken: tokens.access_token, deadline: Date.now() + 1_500 }))), timerMs(1_500)]);
    // Discovery stops at a deadline rather than trying the next location against a server that did not answer.
    // Each discovery request is given the refresh's own time (1.2 s or less here), not the layer's 10 s default.
    expect(outcome).toMatchObject({ kind: 'failed', message: expect.stringMatching(/^No answer from .* within [01](\.\d)? s$/) });
    expectWithinDeadline(ms, { deadlineMs, nominalMs: 1_500, baselineMs, what: 'a refresh whose discovery hangs' });
  }, 40_000);

  it('mcp.json\'s lock held past its usual 5 s by other writers: the new Bearer still lands (the grant is spent; its token is not dropped)', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    const grants = core.counters.refreshGrants;
    let released = false;
    // Another writer (a busy machine's other session starts, diagnose --fix) holds mcp.json for 7 s.
    const holder = withLock(lockPathFor(paths.mcpJson), () => new Promise<void>((resolve) => setTimeout(() => { released = true; resolve(); }, 7_000)));
    const outcome = await refreshSingleFlight(args({ seenToken: tokens.access_token, deadline: Date.now() + 20_000 }));
    await holder;
    expect(released).toBe(true);
    expect(core.counters.refreshGrants).toBe(grants + 1);
    expect(outcome).toMatchObject({ kind: 'refreshed', byThisProcess: true });
    expect(bearer()).toBe((outcome as { token: string }).token);
    expect(bearer()).not.toBe(tokens.access_token);
  }, 40_000);

  it('signed out while the request was in flight (the refresh file removed): superseded, nothing written back', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, tokens);
    core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 1_500, times: 1 } } });
    const before = tokenRequests();
    const refreshing = refreshSingleFlight(args({ seenToken: tokens.access_token }));
    for (let i = 0; i < 200 && tokenRequests() <= before; i++) await new Promise((r) => setTimeout(r, 25));
    writeFileSync(paths.refresh, '');
    expect(await refreshing).toEqual({ kind: 'superseded' });
    expect(stored()).toBeNull();
    expect(bearer()).toBe(tokens.access_token);
  });

  it('the Bearer replaced while the request was in flight: superseded, the new one kept', async () => {
    const tokens = await core.issueTokens({ accessTokenTtl: 30 });
    const other = await core.issueTokens({ accessTokenTtl: 3_600 });
    await signInWith(dir.path, core.baseUrl, tokens);
    core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 1_500, times: 1 } } });
    const before = tokenRequests();
    const refreshing = refreshSingleFlight(args({ seenToken: tokens.access_token }));
    for (let i = 0; i < 200 && tokenRequests() <= before; i++) await new Promise((r) => setTimeout(r, 25));
    await updateMcpConfigFile(paths.mcpJson, (config) => applyBearer(config, { token: other.access_token, baseUrl: core.baseUrl }));
    expect(await refreshing).toEqual({ kind: 'superseded' });
    expect(bearer()).toBe(other.access_token);
    expect(stored()?.refresh_token).toBe(tokens.refresh_token);
  });
});
