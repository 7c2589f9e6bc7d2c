import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { refresh as coreRefresh } from '../../core/testing.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { readSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { sessionStart, signInWith, type HookRun } from '../helpers/sessionStart.js';
import { closedPort } from '../helpers/closedPort.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
const outputs: string[] = [];

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
});
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir();
  core.setFaults({ endpointFaults: {} });
});
afterEach(() => dir.cleanup());

/** The session-start timeout hooks.json gives Cursor: the bound a hook's answer must hold whatever the load. */
const CURSOR_TIMEOUT_MS = (JSON.parse(readFileSync(join(REPO_ROOT, 'hooks/hooks.json'), 'utf8')) as { hooks: { sessionStart: Array<{ timeout: number }> } }).hooks.sessionStart[0]!.timeout * 1000;
const file = (name: string) => join(dir.path, name);
const token = () => bearerOf(JSON.parse(readFileSync(file('mcp.json'), 'utf8')));
const context = (run: HookRun) => String(run.json.additional_context ?? '');
const total = () => Object.values(core.counters.requests).reduce((a, b) => a + b, 0);
async function hook(extra: Record<string, string> = {}): Promise<HookRun> {
  const run = await sessionStart(dir.path, core.baseUrl, extra);
  outputs.push(run.stdout, run.stderr);
  expect(run.code).toBe(0);
  return run;
}

describe('session-start.cjs: refresh, snapshot, status card', () => {
  it('fresh token: fetches the snapshot and who once, then answers from local files with no request', async () => {
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    const first = await hook();
    expect(context(first)).toContain('signed in as dev@agentstack.test');
    expect(context(first)).toMatch(/Capabilities: \d+ actions/);
    expect(context(first)).toContain('Plugin root: ');
    expect(readSnapshot(file('agentstack-capabilities.json'))?.unapproved).toEqual([]);
    const before = total();
    const second = await hook();
    expect(total()).toBe(before);
    expect(context(second)).toContain('signed in as dev@agentstack.test');
  });

  it('refreshes a token that expires within 120 s: new refresh token stored, new Bearer written', async () => {
    const issued = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, issued);
    const grants = core.counters.refreshGrants;
    const run = await hook();
    expect(core.counters.refreshGrants).toBe(grants + 1);
    expect(token()).not.toBe(issued.access_token);
    const stored = JSON.parse(readFileSync(file('agentstack-refresh'), 'utf8'));
    expect(stored.refresh_token).not.toBe(issued.refresh_token);
    expect(context(run)).toContain('Refreshed the access token');
    expect(run.stdout + run.stderr).not.toContain(stored.refresh_token);
    expect(run.stdout + run.stderr).not.toContain(token()!);
  });

  it('a Bearer of unknown expiry that /mcp refuses (401 invalid_token) is renewed by that same session start', async () => {
    const issued = await core.issueTokens();
    await signInWith(dir.path, core.baseUrl, issued);
    // An opaque token with no expiry of its own, and a refresh record that never learnt one (no expires_in).
    const stored = JSON.parse(readFileSync(file('agentstack-refresh'), 'utf8'));
    writeFileSync(file('agentstack-refresh'), JSON.stringify({ ...stored, expires_at: null }), { mode: 0o600 });
    const opaque = 'opaque-token-the-server-does-not-know-0123456789';
    const config = JSON.parse(readFileSync(file('mcp.json'), 'utf8'));
    config.mcpServers.agentstack.headers.Authorization = `Bearer ${opaque}`;
    writeFileSync(file('mcp.json'), JSON.stringify(config), { mode: 0o600 });
    const grants = core.counters.refreshGrants;
    const first = await hook({ AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(core.counters.refreshGrants).toBe(grants + 1);
    expect(token()).not.toBe(opaque);
    expect(context(first)).toContain('Refreshed the access token');
    expect(context(first)).toContain('signed in as dev@agentstack.test');
    expect(context(first)).not.toContain(opaque);
  });

  it('invalid_grant: clears the stored refresh token, asks for sign-in, and does not try again', async () => {
    const issued = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, issued);
    await coreRefresh(core.baseUrl, issued.refresh_token!); // the stored token is now used: replaying it is refused
    const run = await hook({ AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(existsSync(file('agentstack-refresh'))).toBe(false);
    expect(context(run)).toContain('invalid_grant');
    expect(context(run)).toContain('/agentstack-authorize');
    const grants = core.counters.refreshGrants;
    await hook({ AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(core.counters.refreshGrants).toBe(grants);
  });

  it('8 session starts at once with an expiring token: one refresh reaches the server, all end with the same valid token', async () => {
    // The refreshed token lives an hour: a session start that begins after the refresh (the machine may be slow to
    // start eight processes) finds it fresh, as it would in use. A refreshed token that is itself inside the refresh
    // window is refreshed again, rightly.
    const issued = await core.issueTokens({ accessTokenTtl: 30, refreshedAccessTokenTtl: 3600 });
    await signInWith(dir.path, core.baseUrl, issued);
    const grants = core.counters.refreshGrants;
    const revoked = core.counters.grantsRevoked;
    const runs = await Promise.all(Array.from({ length: 8 }, () => sessionStart(dir.path, core.baseUrl)));
    for (const run of runs) expect(run.code).toBe(0);
    expect(core.counters.refreshGrants).toBe(grants + 1);
    expect(core.counters.grantsRevoked).toBe(revoked);
    const final = token()!;
    expect(final).not.toBe(issued.access_token);
    const res = await fetch(`${core.baseUrl}/mcp/actions`, { headers: { authorization: `Bearer ${final}` } });
    expect(res.status).toBe(200);
    for (const run of runs) expect(context(run)).toMatch(/Refreshed the access token|refreshed by another session/);
  }, 60_000);

  it('names actions added and removed since the previous snapshot and records the added ones as unapproved', async () => {
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    await hook();
    const current = readSnapshot(file('agentstack-capabilities.json'))!;
    const old = {
      ...current,
      fetched_at: new Date(Date.now() - 25 * 3600_000).toISOString(),
      catalog_etag: 'old-etag',
      actions: [...current.actions.filter((a) => a.action !== 'projects.create'), { action: 'legacy.export', domain: 'legacy', required_cap: null }],
    };
    writeFileSync(file('agentstack-capabilities.json'), JSON.stringify(old));
    const run = await hook();
    expect(context(run)).toContain('added projects.create');
    expect(context(run)).toContain('removed legacy.export');
    expect(context(run)).toContain('--approve-actions');
    const after = readSnapshot(file('agentstack-capabilities.json'))!;
    expect(after.unapproved).toEqual(['projects.create']);
    expect(after.last_diff).toMatchObject({ added: ['projects.create'], removed: ['legacy.export'] });
  });

  it('a fresh snapshot older than 24 h with an unchanged catalog costs a 304 that only moves fetched_at', async () => {
    await signInWith(dir.path, core.baseUrl, await core.issueTokens());
    await hook();
    const snap = readSnapshot(file('agentstack-capabilities.json'))!;
    const oldAt = new Date(Date.now() - 25 * 3600_000).toISOString();
    writeFileSync(file('agentstack-capabilities.json'), JSON.stringify({ ...snap, fetched_at: oldAt }));
    const catalogRequests = core.counters.requests['GET /mcp/actions'] ?? 0;
    const notModified = core.counters.catalogNotModified;
    await hook();
    // One catalog request, which sent the stored ETag and got the 304 (not the whole catalog again).
    expect(core.counters.requests['GET /mcp/actions']).toBe(catalogRequests + 1);
    expect(core.counters.catalogNotModified).toBe(notModified + 1);
    const after = readSnapshot(file('agentstack-capabilities.json'))!;
    expect(Date.parse(after.fetched_at)).toBeGreaterThan(Date.parse(oldAt));
    expect({ ...after, fetched_at: 'x' }).toEqual({ ...snap, fetched_at: 'x' });
  });

  it('server down or hanging: answers within the deadline with a useful card', async () => {
    const issued = await core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir.path, core.baseUrl, issued);
    core.setFaults({ endpointFaults: { token: { kind: 'hang' }, me: { kind: 'hang' }, actions: { kind: 'hang' } } });
    const hung = await hook();
    // Answered by the hook's own deadline (the servers never answer): its step says so, not the last-resort card,
    // and well within the timeout Cursor enforces (wall clock includes starting node on a loaded machine).
    expect(context(hung)).toContain('Could not refresh the token');
    expect(context(hung)).not.toContain('did not finish in time');
    expect(hung.ms).toBeLessThan(CURSOR_TIMEOUT_MS);
    core.setFaults({ endpointFaults: {} });
    const gone = `http://127.0.0.1:${await closedPort()}`;
    const down = await sessionStart(dir.path, gone);
    expect(down.code).toBe(0);
    expect(down.ms).toBeLessThan(CURSOR_TIMEOUT_MS);
    expect(String(down.json.additional_context)).toContain(`${gone}/mcp`);
  }, 40_000);

  it('leaves a malformed mcp.json byte for byte and says so; garbage stdin still gets one answer', async () => {
    writeFileSync(file('mcp.json'), '{"mcpServers": {');
    const run = await hook();
    expect(readFileSync(file('mcp.json'), 'utf8')).toBe('{"mcpServers": {');
    expect(context(run)).toContain('not valid JSON');
    const garbage = await sessionStart(dir.path, core.baseUrl, {}, 'not json at all');
    expect(garbage.code).toBe(0);
    expect(garbage.json).toHaveProperty('additional_context');
  });
});

describe('session-start.mjs: a token already past its expiry', () => {
  it('is refreshed (not only one about to expire): new Bearer and refresh token, the card says so', async () => {
    // The refreshed token lives an hour: on a loaded machine a 1 s one could expire again before the hook's later
    // steps use it, and the card would then rightly ask for a sign-in.
    const issued = await core.issueTokens({ accessTokenTtl: 1, refreshedAccessTokenTtl: 3600 });
    await signInWith(dir.path, core.baseUrl, issued);
    const exp = Number(JSON.parse(Buffer.from(issued.access_token.split('.')[1]!, 'base64url').toString()).exp) * 1000;
    while (Date.now() <= exp + 50) await new Promise((resolve) => setTimeout(resolve, 100));
    const grants = core.counters.refreshGrants;
    const run = await hook({ AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(core.counters.refreshGrants).toBe(grants + 1);
    expect(token()).not.toBe(issued.access_token);
    expect(JSON.parse(readFileSync(file('agentstack-refresh'), 'utf8')).refresh_token).not.toBe(issued.refresh_token);
    expect(context(run)).toContain('Refreshed the access token');
    expect(context(run)).not.toContain('/agentstack-authorize');
  });
});
