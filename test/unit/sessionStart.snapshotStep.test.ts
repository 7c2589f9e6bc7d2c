/**
 * Session start's capability snapshot step, run in this process against the reference core on 127.0.0.1: a failed
 * fetch is said, recorded and not retried for 15 minutes; a folder or a broken file in the snapshot's place; the
 * actions added, removed and not yet approved; the card's Capabilities line for each.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { signInWith } from '../helpers/sessionStart.js';
import { PLUGIN_ROOT, startSession, todoOf } from '../helpers/sessionStartInProcess.js';
import { SIGN_IN_COMMAND } from '../../lib/agentstack/state/story.js';

const fx = useCoreAndCursorDirs('agentstack-ss-snap-');
const catalogRequests = () => fx.core.counters.requests['GET /mcp/actions'] ?? 0;
const line = (card: string, start: string) => card.split('\n').find((l) => l.startsWith(start));
const NO_AUTO_LOGIN = { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };
const DIAGNOSE = `node ${PLUGIN_ROOT}/scripts/diagnose-local.mjs`;
const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)}Z`;
const snapshotPath = (dir: string) => join(dir, 'agentstack-capabilities.json');
const failurePath = (dir: string) => join(dir, 'agentstack-capabilities-failed.json');

async function signedIn(): Promise<string> {
  const dir = fx.cursorDir();
  await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
  return dir;
}

describe('session start in process: a failed catalog fetch', () => {
  it('is said and recorded, not tried again for 15 minutes, then tried again; a success clears the record', async () => {
    const dir = await signedIn();
    fx.core.setFaults({ endpointFaults: { actions: { kind: '5xx' } } });
    try {
      const before = catalogRequests();
      const t0 = Date.now();
      const first = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
      expect(catalogRequests()).toBe(before + 1);
      expect(first.card).toMatch(/\n- Could not refresh the capability snapshot: .*HTTP 503.*\.\n/);
      const record = JSON.parse(readFileSync(failurePath(dir), 'utf8'));
      expect(record).toMatchObject({ server_url: `${fx.core.baseUrl}/mcp`, message: expect.stringContaining('HTTP 503') });
      const failedAt = Date.parse(record.at);
      expect(failedAt).toBeGreaterThanOrEqual(t0 - 1_000);
      // Tried again 15 minutes after this start (a second or so after the failure: the same minute, or the next).
      const retries = [hhmm(failedAt + 15 * 60_000), hhmm(failedAt + 15 * 60_000 + 5_000)];
      expect(retries.map((r) => `- Capabilities: the last catalog fetch failed at ${hhmm(failedAt)} (${record.message}); tried again after ${r}`)).toContain(line(first.card, '- Capabilities:'));
      expect(todoOf(first.card)).toEqual([expect.stringMatching(/^- There is no capability snapshot, so AgentStack calls are not checked: GET \/mcp\/actions failed\. Check the server and your sign-in with .* --online; session start tries again after \d\d:\d\dZ\.$/)]);
      expect(todoOf(first.card)[0]).toContain(DIAGNOSE);

      // 14 minutes later: no request; the card names the time of the failure and when it tries again.
      const waiting = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN, now: () => Date.now() + 14 * 60_000 });
      expect(catalogRequests()).toBe(before + 1);
      expect(line(waiting.card, '- Capabilities:')).toBe(`- Capabilities: the last catalog fetch failed at ${hhmm(failedAt)} (${record.message}); tried again after ${hhmm(failedAt + 15 * 60_000)}`);
      expect(todoOf(waiting.card)[0]).toContain(`session start tries again after ${hhmm(failedAt + 15 * 60_000)}.`);
      expect(waiting.card).not.toContain('Could not refresh the capability snapshot');

      // 16 minutes later it tries again, and a success removes the record.
      fx.core.setFaults({ endpointFaults: {} });
      const third = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN, now: () => Date.now() + 16 * 60_000 });
      expect(catalogRequests()).toBe(before + 2);
      expect(line(third.card, '- Capabilities:')).toMatch(/^- Capabilities: \d+ actions in the snapshot$/);
      expect(third.card).not.toContain('Action needed');
      expect(existsSync(failurePath(dir))).toBe(false);
    } finally {
      fx.core.setFaults({ endpointFaults: {} });
    }
  });

  it('with a snapshot already there, says it is out of date and keeps counting its actions', async () => {
    const dir = await signedIn();
    await startSession(dir, fx.core.baseUrl);
    const snap = readSnapshot(snapshotPath(dir))!;
    writeFileSync(snapshotPath(dir), JSON.stringify({ ...snap, fetched_at: new Date(Date.now() - 25 * 3600_000).toISOString() }));
    fx.core.setFaults({ endpointFaults: { actions: { kind: '5xx' } } });
    try {
      const run = await startSession(dir, fx.core.baseUrl);
      const retry = Date.parse(JSON.parse(readFileSync(failurePath(dir), 'utf8')).at) + 15 * 60_000;
      expect(line(run.card, '- Capabilities:')).toMatch(new RegExp(`^- Capabilities: ${snap.actions.length} actions in the snapshot; the last catalog fetch failed at .*; tried again after ${hhmm(retry)}$`));
      expect(todoOf(run.card)).toEqual([expect.stringMatching(/^- The capability snapshot is out of date: GET \/mcp\/actions failed\./)]);
    } finally {
      fx.core.setFaults({ endpointFaults: {} });
    }
  });

  it('a record for another server, or one dated in the future, does not hold off the fetch', async () => {
    const dir = await signedIn();
    const before = catalogRequests();
    writeFileSync(failurePath(dir), JSON.stringify({ at: new Date().toISOString(), server_url: 'https://other.example/mcp', message: 'HTTP 500' }));
    await startSession(dir, fx.core.baseUrl);
    expect(catalogRequests()).toBe(before + 1);
    const later = await signedIn();
    writeFileSync(failurePath(later), JSON.stringify({ at: new Date(Date.now() + 3600_000).toISOString(), server_url: `${fx.core.baseUrl}/mcp`, message: 'HTTP 500' }));
    const run = await startSession(later, fx.core.baseUrl);
    expect(catalogRequests()).toBe(before + 2);
    expect(run.card).not.toContain('failed');
  });

  it('a token the server refuses: asks for a new sign-in', async () => {
    const dir = fx.cursorDir();
    const claims = Buffer.from(JSON.stringify({ sub: 'nobody', exp: Math.floor(Date.now() / 1000) + 3600, scope: 'actions:read' })).toString('base64url');
    const forged = `eyJhbGciOiJSUzI1NiJ9.${claims}.c2lnbmF0dXJl`;
    await signInWith(dir, fx.core.baseUrl, { access_token: forged, expires_in: 3600, scope: 'actions:read' });
    const run = await startSession(dir, fx.core.baseUrl);
    expect(run.card).toContain('\n- Could not refresh the capability snapshot: ');
    expect(todoOf(run.card)[0]).toBe(`- The server refused the token. Sign in again with ${SIGN_IN_COMMAND}.`);
    expect(run.card).not.toContain(forged);
  });

  it('a snapshot out of date with a failure recorded a minute ago: not fetched again yet, the card says when it will be', async () => {
    const dir = await signedIn();
    await startSession(dir, fx.core.baseUrl);
    const snap = readSnapshot(snapshotPath(dir))!;
    writeFileSync(snapshotPath(dir), JSON.stringify({ ...snap, fetched_at: new Date(Date.now() - 25 * 3600_000).toISOString() }));
    const failedAt = Date.now() - 60_000;
    writeFileSync(failurePath(dir), JSON.stringify({ at: new Date(failedAt).toISOString(), server_url: `${fx.core.baseUrl}/mcp`, message: 'HTTP 500' }));
    const before = catalogRequests();
    const run = await startSession(dir, fx.core.baseUrl);
    expect(catalogRequests()).toBe(before);
    expect(line(run.card, '- Capabilities:')).toBe(`- Capabilities: ${snap.actions.length} actions in the snapshot; the last catalog fetch failed at ${hhmm(failedAt)} (HTTP 500); tried again after ${hhmm(failedAt + 15 * 60_000)}`);
  });

  it('a failure recorded over 15 minutes ago and too little time left to fetch: nothing fetched, the old failure not said', async () => {
    const dir = await signedIn();
    writeFileSync(failurePath(dir), JSON.stringify({ at: new Date(Date.now() - 20 * 60_000).toISOString(), server_url: `${fx.core.baseUrl}/mcp`, message: 'HTTP 500' }));
    const before = catalogRequests();
    const run = await startSession(dir, fx.core.baseUrl, { budgetMs: 900 });
    expect(catalogRequests()).toBe(before);
    expect(line(run.card, '- Capabilities:')).toBe('- Capabilities: no snapshot yet');
    expect(run.card).not.toContain('Action needed');
  });

  it('with too little time left, nothing is fetched and no failure is said', async () => {
    const dir = await signedIn();
    const before = catalogRequests();
    const run = await startSession(dir, fx.core.baseUrl, { budgetMs: 900 });
    expect(catalogRequests()).toBe(before);
    expect(line(run.card, '- Capabilities:')).toBe('- Capabilities: no snapshot yet');
    expect(run.card).not.toContain('Action needed');
  });
});

describe('session start in process: what is in the snapshot\'s place', () => {
  it('a folder: moved aside (nothing in it lost) and a fresh snapshot fetched in its place', async () => {
    const dir = await signedIn();
    mkdirSync(snapshotPath(dir));
    writeFileSync(join(snapshotPath(dir), 'kept.txt'), 'mine');
    const before = catalogRequests();
    const run = await startSession(dir, fx.core.baseUrl);
    expect(catalogRequests()).toBe(before + 1);
    expect(readSnapshot(snapshotPath(dir))?.actions.length).toBeGreaterThan(0);
    const aside = readdirSync(dir).find((n) => n.startsWith('agentstack-capabilities.json.moved-'));
    expect(aside && readFileSync(join(dir, aside, 'kept.txt'), 'utf8')).toBe('mine');
    expect(run.card).toContain(`it was moved to ${join(dir, aside!)}`);
    expect(todoOf(run.card)).toEqual([]);
  });

  it('a file that is not a snapshot, signed out: the card says to delete it or run diagnose', async () => {
    const dir = fx.cursorDir();
    writeFileSync(snapshotPath(dir), 'not a snapshot');
    const run = await startSession(dir, fx.core.baseUrl);
    const todo = todoOf(run.card);
    expect(todo).toContain(`- The capability snapshot ${snapshotPath(dir)} ${line(run.card, '- Capabilities:')!.slice(`- Capabilities: ${snapshotPath(dir)} `.length)}; delete it and start a new session, or run ${DIAGNOSE}.`);
  });

  it('a file that is not a snapshot, signed in: replaced by a fresh one', async () => {
    const dir = await signedIn();
    writeFileSync(snapshotPath(dir), 'not a snapshot');
    const run = await startSession(dir, fx.core.baseUrl);
    expect(line(run.card, '- Capabilities:')).toMatch(/^- Capabilities: \d+ actions in the snapshot$/);
    expect(run.card).not.toContain('Action needed');
  });
});

describe('session start in process: the actions in the snapshot', () => {
  it('names the actions added and removed since the last snapshot, and asks to review the new ones', async () => {
    const dir = await signedIn();
    await startSession(dir, fx.core.baseUrl);
    const current = readSnapshot(snapshotPath(dir))!;
    writeFileSync(snapshotPath(dir), JSON.stringify({
      ...current, fetched_at: new Date(Date.now() - 25 * 3600_000).toISOString(), catalog_etag: 'old-etag',
      actions: [...current.actions.filter((a) => a.action !== 'projects.create'), { action: 'legacy.export', domain: 'legacy', required_cap: null }],
    }));
    const run = await startSession(dir, fx.core.baseUrl);
    expect(run.card).toContain("\n- The server's action list changed since the last snapshot: added projects.create; removed legacy.export.");
    expect(todoOf(run.card)).toEqual([`- Review the actions not yet approved (projects.create); calls using them ask first. Approve them with: ${DIAGNOSE} --approve-actions`]);
  });

  it('only added, or only removed: one part each', async () => {
    const dir = await signedIn();
    await startSession(dir, fx.core.baseUrl);
    const current = readSnapshot(snapshotPath(dir))!;
    const old = (actions: typeof current.actions) => writeFileSync(snapshotPath(dir), JSON.stringify({ ...current, fetched_at: new Date(Date.now() - 25 * 3600_000).toISOString(), catalog_etag: 'old-etag', actions }));
    old(current.actions.filter((a) => a.action !== 'projects.create'));
    expect((await startSession(dir, fx.core.baseUrl)).card).toContain("\n- The server's action list changed since the last snapshot: added projects.create.");
    old([...readSnapshot(snapshotPath(dir))!.actions, { action: 'legacy.export', domain: 'legacy', required_cap: null }]);
    const removed = await startSession(dir, fx.core.baseUrl);
    expect(removed.card).toContain("\n- The server's action list changed since the last snapshot: removed legacy.export.");
  });

  it('several actions added and removed: each list comma-separated', async () => {
    const dir = await signedIn();
    await startSession(dir, fx.core.baseUrl);
    const current = readSnapshot(snapshotPath(dir))!;
    const [a, b] = current.actions.map((x) => x.action);
    writeFileSync(snapshotPath(dir), JSON.stringify({
      ...current, fetched_at: new Date(Date.now() - 25 * 3600_000).toISOString(), catalog_etag: 'old-etag',
      actions: [...current.actions.slice(2), ...['legacy.a', 'legacy.b'].map((action) => ({ action, domain: 'legacy', required_cap: null }))],
    }));
    const run = await startSession(dir, fx.core.baseUrl);
    expect(run.card).toContain(`\n- The server's action list changed since the last snapshot: added ${a}, ${b}; removed legacy.a, legacy.b.`);
  });

  it('a snapshot that has no list of unapproved actions: nothing to review', async () => {
    const dir = await signedIn();
    await startSession(dir, fx.core.baseUrl);
    const { unapproved: _, ...current } = readSnapshot(snapshotPath(dir))!;
    writeFileSync(snapshotPath(dir), JSON.stringify(current));
    const run = await startSession(dir, fx.core.baseUrl);
    expect(line(run.card, '- Capabilities:')).toBe(`- Capabilities: ${current.actions.length} actions in the snapshot`);
    expect(run.card).not.toContain('Action needed');
  });

  it('lists at most ten actions to review, then an ellipsis; the skipped catalog entries are counted', async () => {
    const dir = await signedIn();
    await startSession(dir, fx.core.baseUrl);
    const current = readSnapshot(snapshotPath(dir))!;
    const names = Array.from({ length: 11 }, (_, i) => `extra.a${i}`);
    const withNames = (n: number) => JSON.stringify({ ...current, actions: [...current.actions, ...names.map((action) => ({ action, domain: 'extra', required_cap: null }))], unapproved: names.slice(0, n), skipped_entries: 2, skipped_reason: 'domains.x.1.action: bad' });
    writeFileSync(snapshotPath(dir), withNames(11));
    const eleven = await startSession(dir, fx.core.baseUrl);
    expect(todoOf(eleven.card)).toEqual([`- Review the actions not yet approved (${names.slice(0, 10).join(', ')}, …); calls using them ask first. Approve them with: ${DIAGNOSE} --approve-actions`]);
    expect(line(eleven.card, '- Capabilities:')).toBe(`- Capabilities: ${current.actions.length + 11} actions in the snapshot; 2 malformed catalog entries were left out (first: domains.x.1.action: bad)`);
    writeFileSync(snapshotPath(dir), withNames(10));
    const ten = await startSession(dir, fx.core.baseUrl);
    expect(todoOf(ten.card)[0]).toContain(`(${names.slice(0, 10).join(', ')}); calls`);
  });
});
