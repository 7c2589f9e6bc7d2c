/**
 * Session start's steps run in this process against the reference core on 127.0.0.1: the settings and base URL it
 * starts from, mcp.json's normalization, the token refresh, who is signed in, and the card it returns. The sign-in
 * step and the snapshot step have their own files (sessionStart.signInStep, sessionStart.snapshotStep).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refresh as coreRefresh } from '../../core/testing.js';
import { readSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { signInWith } from '../helpers/sessionStart.js';
import { bearerIn, loadNet, startSession, todoOf } from '../helpers/sessionStartInProcess.js';

const fx = useCoreAndCursorDirs('agentstack-ss-run-');
const requests = () => Object.values(fx.core.counters.requests).reduce((a, b) => a + b, 0);
const meRequests = () => fx.core.counters.requests['GET /api/auth/me'] ?? 0;
const line = (card: string, start: string) => card.split('\n').find((l) => l.startsWith(start));
const NO_AUTO_LOGIN = { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };

describe('session start in process: signed in', () => {
  it('a fresh token: the first start fetches the snapshot and who, the next answers from local files alone', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const first = await startSession(dir, fx.core.baseUrl);
    expect(first.card.split('\n')[0]).toBe(`AgentStack plugin status (server ${fx.core.baseUrl}/mcp)`);
    expect(line(first.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
    expect(line(first.card, '- Capabilities:')).toMatch(/^- Capabilities: \d+ actions in the snapshot$/);
    expect(line(first.card, '- Token:')).toMatch(/^- Token: valid until .* \(\d+ min left\)$/);
    expect(first.card).not.toContain('Action needed');
    expect(readSnapshot(join(dir, 'agentstack-capabilities.json'))?.server_url).toBe(`${fx.core.baseUrl}/mcp`);
    expect(JSON.parse(readFileSync(join(dir, 'agentstack-identity.json'), 'utf8')).who).toBe('dev@agentstack.test');

    const before = requests();
    const second = await startSession(dir, fx.core.baseUrl);
    expect(requests()).toBe(before);
    expect(second.card).toBe(first.card.replace(/\(\d+ min left\)/, second.card.match(/\(\d+ min left\)/)![0]));
  });

  it('a snapshot older than 24 h is revalidated with its ETag (a 304), and who is asked again after it', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    await startSession(dir, fx.core.baseUrl);
    const path = join(dir, 'agentstack-capabilities.json');
    const snap = readSnapshot(path)!;
    writeFileSync(path, JSON.stringify({ ...snap, fetched_at: new Date(Date.now() - 25 * 3600_000).toISOString() }));
    const notModified = fx.core.counters.catalogNotModified;
    const me = meRequests();
    const run = await startSession(dir, fx.core.baseUrl);
    expect(fx.core.counters.catalogNotModified).toBe(notModified + 1);
    expect(meRequests()).toBe(me + 1);
    expect(Date.now() - Date.parse(readSnapshot(path)!.fetched_at)).toBeLessThan(3600_000);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
    expect(run.card).not.toContain('action list changed');
  });

  it('names the project pinned in mcp.json, else the one in the token', async () => {
    const pinned = fx.cursorDir();
    const tokens = await fx.core.issueTokens({ claims: { project_id: 7 } });
    await signInWith(pinned, fx.core.baseUrl, tokens);
    expect(line((await startSession(pinned, fx.core.baseUrl)).card, '- Project:')).toBe("- Project: 7 (your account's default)");
    const config = JSON.parse(readFileSync(join(pinned, 'mcp.json'), 'utf8'));
    config.mcpServers.agentstack.headers['X-Project-ID'] = '42';
    writeFileSync(join(pinned, 'mcp.json'), JSON.stringify(config));
    expect(line((await startSession(pinned, fx.core.baseUrl)).card, '- Project:')).toBe('- Project: 42 (pinned)');
    const none = fx.cursorDir();
    await signInWith(none, fx.core.baseUrl, await fx.core.issueTokens());
    expect(line((await startSession(none, fx.core.baseUrl)).card, '- Project:')).toBe("- Project: your account's default");
  });

  it('with under a second left, asks no server and still names the person from the cache', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    await startSession(dir, fx.core.baseUrl);
    const before = requests();
    const run = await startSession(dir, fx.core.baseUrl, { budgetMs: 900 });
    expect(requests()).toBe(before);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
    const uncached = fx.cursorDir();
    await signInWith(uncached, fx.core.baseUrl, await fx.core.issueTokens());
    const cold = await startSession(uncached, fx.core.baseUrl, { budgetMs: 900 });
    expect(requests()).toBe(before);
    expect(line(cold.card, '- Account:')).toBe('- Account: signed in');
  });

  it('who cannot be looked up: the card says signed in, and the step logs why', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    fx.core.setFaults({ endpointFaults: { me: { kind: '5xx' } } });
    try {
      const run = await startSession(dir, fx.core.baseUrl);
      expect(line(run.card, '- Account:')).toBe('- Account: signed in');
      expect(run.logs.some((l) => l.startsWith('who: '))).toBe(true);
    } finally {
      fx.core.setFaults({ endpointFaults: {} });
    }
  });

  it('a name from the server that holds the credential is masked on the card', async () => {
    const dir = fx.cursorDir();
    const tokens = await fx.core.issueTokens();
    await signInWith(dir, fx.core.baseUrl, tokens);
    await startSession(dir, fx.core.baseUrl);
    const identity = JSON.parse(readFileSync(join(dir, 'agentstack-identity.json'), 'utf8'));
    writeFileSync(join(dir, 'agentstack-identity.json'), JSON.stringify({ ...identity, who: `echo ${tokens.access_token}` }));
    const run = await startSession(dir, fx.core.baseUrl);
    expect(line(run.card, '- Account:')).toMatch(/^- Account: signed in as echo \S+$/);
    expect(run.card).not.toContain(tokens.access_token);
  });

  it('a sign-out that finishes while the start runs: the snapshot and identity it fetched do not stay', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const signOutThenLoad = async () => {
      writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${fx.core.baseUrl}/mcp` } } }));
      writeFileSync(join(dir, 'agentstack-signed-out'), JSON.stringify({ signed_out_at: new Date().toISOString(), server_url: `${fx.core.baseUrl}/mcp` }));
      return loadNet();
    };
    await startSession(dir, fx.core.baseUrl, { loadNet: signOutThenLoad });
    expect(existsSync(join(dir, 'agentstack-capabilities.json'))).toBe(false);
    expect(existsSync(join(dir, 'agentstack-identity.json'))).toBe(false);
    // Signed out but still holding a Bearer (a sign-in under way): what was fetched stays.
    const kept = fx.cursorDir();
    await signInWith(kept, fx.core.baseUrl, await fx.core.issueTokens());
    const markOnly = async () => {
      writeFileSync(join(kept, 'agentstack-signed-out'), JSON.stringify({ signed_out_at: new Date().toISOString(), server_url: `${fx.core.baseUrl}/mcp` }));
      return loadNet();
    };
    const run = await startSession(kept, fx.core.baseUrl, { loadNet: markOnly });
    expect(existsSync(join(kept, 'agentstack-capabilities.json'))).toBe(true);
    expect(existsSync(join(kept, 'agentstack-identity.json'))).toBe(true);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
    // An mcp.json that cannot be read then: nothing is removed on a guess.
    const unreadable = fx.cursorDir();
    await signInWith(unreadable, fx.core.baseUrl, await fx.core.issueTokens());
    const breakThenLoad = async () => {
      writeFileSync(join(unreadable, 'mcp.json'), '{ half written');
      writeFileSync(join(unreadable, 'agentstack-signed-out'), '{}');
      return loadNet();
    };
    await startSession(unreadable, fx.core.baseUrl, { loadNet: breakThenLoad });
    expect(existsSync(join(unreadable, 'agentstack-capabilities.json'))).toBe(true);
  });
});

describe('session start in process: the token refresh', () => {
  it('a token near expiry is refreshed once, the new Bearer written, and neither secret is on the card', async () => {
    const dir = fx.cursorDir();
    const issued = await fx.core.issueTokens({ accessTokenTtl: 30, refreshedAccessTokenTtl: 3600 });
    await signInWith(dir, fx.core.baseUrl, issued);
    const grants = fx.core.counters.refreshGrants;
    const run = await startSession(dir, fx.core.baseUrl);
    expect(fx.core.counters.refreshGrants).toBe(grants + 1);
    expect(bearerIn(dir)).not.toBe(issued.access_token);
    expect(run.card).toContain('\n- Refreshed the access token.');
    expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
    expect(line(run.card, '- Token:')).toMatch(/\((59|60) min left\)$/);
    const stored = JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8'));
    for (const secret of [issued.access_token, issued.refresh_token!, bearerIn(dir)!, stored.refresh_token]) expect(run.card).not.toContain(secret);
  });

  it('a name from the server that echoes the old token and the refresh token: both masked after a refresh', async () => {
    const dir = fx.cursorDir();
    const issued = await fx.core.issueTokens({ refreshedAccessTokenTtl: 3600 });
    await signInWith(dir, fx.core.baseUrl, issued);
    await startSession(dir, fx.core.baseUrl);
    const record = JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8'));
    const identity = JSON.parse(readFileSync(join(dir, 'agentstack-identity.json'), 'utf8'));
    writeFileSync(join(dir, 'agentstack-identity.json'), JSON.stringify({ ...identity, who: `opaque-token-without-claims-0123456789 ${record.refresh_token}` }));
    // The refresh record says the token expires now: it is refreshed, and the name cached for it is kept.
    writeFileSync(join(dir, 'agentstack-refresh'), JSON.stringify({ ...record, expires_at: new Date().toISOString() }));
    const mcp = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8'));
    mcp.mcpServers.agentstack.headers.Authorization = 'Bearer opaque-token-without-claims-0123456789';
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify(mcp));
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(run.card).toContain('\n- Refreshed the access token.');
    expect(line(run.card, '- Account:')).toMatch(/^- Account: signed in as \S+ \S+$/);
    for (const secret of ['opaque-token-without-claims-0123456789', issued.access_token, record.refresh_token]) expect(run.card).not.toContain(secret);
  });

  it('two starts at once: one refresh reaches the server, the other says another session refreshed it', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens({ accessTokenTtl: 30, refreshedAccessTokenTtl: 3600 }));
    const grants = fx.core.counters.refreshGrants;
    const runs = await Promise.all([startSession(dir, fx.core.baseUrl), startSession(dir, fx.core.baseUrl)]);
    expect(fx.core.counters.refreshGrants).toBe(grants + 1);
    const notes = runs.map((r) => r.card.split('\n').find((l) => /refreshed/i.test(l)));
    expect(notes.sort()).toEqual(['- Refreshed the access token.', '- The access token was refreshed by another session.']);
  }, 30_000);

  it('invalid_grant: the stored refresh token is removed, the renewal is called refused, and a sign-in is asked for', async () => {
    const dir = fx.cursorDir();
    const issued = await fx.core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir, fx.core.baseUrl, issued);
    await coreRefresh(fx.core.baseUrl, issued.refresh_token!); // used once: the stored one is now refused
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(run.card).toContain('\n- The stored refresh token was refused (invalid_grant) and removed; a new sign-in is needed.');
    expect(line(run.card, '- Account:')).toBe('- Account: renewal refused');
    expect(todoOf(run.card)).toEqual(['- Automatic sign-in is off: AGENTSTACK_DISABLE_AUTO_LOGIN=1. Sign in again with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).']);
    expect(existsSync(join(dir, 'agentstack-refresh'))).toBe(false);
  });

  it('a refresh that fails keeps the token and says why; a token with no refresh token is not refreshed', async () => {
    const dir = fx.cursorDir();
    const issued = await fx.core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir, fx.core.baseUrl, issued);
    fx.core.setFaults({ endpointFaults: { token: { kind: '5xx' } } });
    try {
      const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
      expect(run.card).toMatch(/\n- Could not refresh the token: .*answered HTTP 503\.$/);
      expect(bearerIn(dir)).toBe(issued.access_token);
      expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test, token expiring');
    } finally {
      fx.core.setFaults({ endpointFaults: {} });
    }
    const bare = fx.cursorDir();
    await signInWith(bare, fx.core.baseUrl, { ...issued, refresh_token: undefined });
    const grants = fx.core.counters.refreshGrants;
    const run = await startSession(bare, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(fx.core.counters.refreshGrants).toBe(grants);
    expect(run.card).not.toMatch(/refresh/i);
  });

  it('the network steps cannot load: said once, the local card still comes, nothing is sent', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens({ accessTokenTtl: 30 }));
    const before = requests();
    const run = await startSession(dir, fx.core.baseUrl, { loadNet: () => Promise.reject(new Error('chunk missing')) });
    expect(requests()).toBe(before);
    expect(run.card.split('\n').filter((l) => l.includes('network steps could not start'))).toEqual([
      "- The plugin's network steps could not start (chunk missing); only local checks ran.",
    ]);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in, token expiring');
  });
});

describe('session start in process: what it starts from', () => {
  it('a bad AGENTSTACK_BASE_URL: said, and nothing is sent to any server', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens({ accessTokenTtl: 30 }));
    const before = requests();
    const run = await startSession(dir, 'ftp://agentstack.example');
    expect(requests()).toBe(before);
    expect(todoOf(run.card)[0]).toMatch(/^- .*AGENTSTACK_BASE_URL.*; nothing was sent to any server\.$/);
    expect(line(run.card, '- Capabilities:')).toBe('- Capabilities: no snapshot yet');
  });

  it('a malformed mcp.json is left byte for byte, said, and nothing is sent', async () => {
    const dir = fx.cursorDir();
    writeFileSync(join(dir, 'mcp.json'), '{"mcpServers": {');
    const before = requests();
    const run = await startSession(dir, fx.core.baseUrl);
    expect(requests()).toBe(before);
    expect(readFileSync(join(dir, 'mcp.json'), 'utf8')).toBe('{"mcpServers": {');
    expect(todoOf(run.card)[0]).toMatch(/^- .*mcp\.json.*not valid JSON/);
    expect(line(run.card, '- Account:')).toBe('- Account: mcp.json unreadable');
  });

  it('a placeholder Bearer: cleaned out of mcp.json, and the card still says what was there', async () => {
    const dir = fx.cursorDir();
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${fx.core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(run.card).toContain('\n- Cleaned up the agentstack entry in mcp.json (lean form).');
    expect(line(run.card, '- Account:')).toBe('- Account: not signed in (a placeholder in mcp.json)');
    expect(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')).mcpServers.agentstack.headers).toBeUndefined();
    const again = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(again.card).not.toContain('Cleaned up');
  });

  it('a broken settings file and an unreadable refresh file: each one line on the card, never a failure', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    writeFileSync(join(dir, 'agentstack-settings.json'), '{ not json');
    writeFileSync(join(dir, 'agentstack-refresh'), '{ not json either');
    const run = await startSession(dir, fx.core.baseUrl);
    expect(run.card).toContain(`\n- The settings file ${join(dir, 'agentstack-settings.json')} is not valid JSON`);
    expect(run.card).toContain(`\n- ${join(dir, 'agentstack-refresh')} is not valid JSON; sign in again to replace it`);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
  });

  it('a credential for another server is neither used nor refreshed here', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, 'https://other.example', await fx.core.issueTokens({ accessTokenTtl: 30 }));
    const grants = fx.core.counters.refreshGrants;
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(fx.core.counters.refreshGrants).toBe(grants);
    expect(line(run.card, '- Account:')).toBe('- Account: not signed in');
    expect(bearerIn(dir)).toBeNull();
    // AGENTSTACK_BASE_URL names the server: the entry now points there.
    expect(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')).mcpServers.agentstack.url).toBe(`${fx.core.baseUrl}/mcp`);
  });
});
