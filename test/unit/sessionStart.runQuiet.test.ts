/**
 * Session start in this process against the reference core on 127.0.0.1: what it leaves alone and what it does not
 * claim. An mcp.json with nothing to clean is only read, a cleanup another writer did first is not claimed, a token
 * it does not hold as signed in is never sent, and files it did not fetch in this start are never removed.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../lib/platform/fs/fileLock.js';
import { writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { signInWith } from '../helpers/sessionStart.js';
import { loadNet, startSession, todoOf } from '../helpers/sessionStartInProcess.js';

const fx = useCoreAndCursorDirs('agentstack-ss-quiet-');
const requests = () => Object.values(fx.core.counters.requests).reduce((a, b) => a + b, 0);
const line = (card: string, start: string) => card.split('\n').find((l) => l.startsWith(start));
const NO_AUTO_LOGIN = { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };

describe('session start in process: mcp.json is written only for a change', () => {
  it('an mcp.json with nothing to clean is only read: another writer holding its lock does not hold up the start', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    await startSession(dir, fx.core.baseUrl);
    const release = await acquireLock(join(dir, 'mcp.json.lock'));
    try {
      const run = await startSession(dir, fx.core.baseUrl);
      expect(todoOf(run.card)).toEqual([]);
      expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
    } finally {
      release();
    }
  });

  it('a cleanup another writer did while this start waited for the lock is not claimed as its own', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const lean = readFileSync(join(dir, 'mcp.json'), 'utf8');
    const config = JSON.parse(lean);
    config.mcpServers.agentstack.headers['X-Extra'] = 'left by hand';
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify(config));
    const release = await acquireLock(join(dir, 'mcp.json.lock'));
    // The start has read the untidy file and waits for the lock when startSession returns; the other writer cleans up.
    const running = startSession(dir, fx.core.baseUrl);
    writeFileSync(join(dir, 'mcp.json'), lean);
    release();
    const run = await running;
    expect(run.card).not.toContain('Cleaned up');
    expect(readFileSync(join(dir, 'mcp.json'), 'utf8')).toBe(lean);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
  });

  it('a cleanup that cannot take the lock (a folder in its place): said, nothing sent, and the card names the credential the file holds', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const config = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8'));
    config.mcpServers.agentstack.headers['X-Extra'] = 'left by hand';
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify(config));
    mkdirSync(join(dir, 'mcp.json.lock'));
    const before = requests();
    const run = await startSession(dir, fx.core.baseUrl);
    expect(requests()).toBe(before);
    expect(todoOf(run.card)).toEqual([expect.stringMatching(/^- Cannot use the lock file .*mcp\.json\.lock \(EISDIR\); move it aside, then try again\.$/)]);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in');
  });
});

describe('session start in process: the token and who', () => {
  it('a refresh record gone by the time the refresh runs: nothing is said about a refresh', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens({ accessTokenTtl: 30 }));
    const grants = fx.core.counters.refreshGrants;
    const removeThenLoad = async () => {
      rmSync(join(dir, 'agentstack-refresh'));
      return loadNet();
    };
    const run = await startSession(dir, fx.core.baseUrl, { loadNet: removeThenLoad, extraEnv: NO_AUTO_LOGIN });
    expect(fx.core.counters.refreshGrants).toBe(grants);
    expect(run.card).not.toMatch(/refresh/i);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test, token expiring');
  });

  it('an opaque token still valid by its refresh record: not refreshed; the server refuses the made-up token, and the card says so', async () => {
    const dir = fx.cursorDir();
    const issued = await fx.core.issueTokens();
    await signInWith(dir, fx.core.baseUrl, { ...issued, access_token: 'opaque-token-without-claims-0123456789' });
    const record = JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8'));
    writeRefreshFile(join(dir, 'agentstack-refresh'), { ...record, expires_at: new Date(Date.now() + 3600_000).toISOString() });
    const grants = fx.core.counters.refreshGrants;
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(fx.core.counters.refreshGrants).toBe(grants);
    // Valid by its record, so no refresh; the core never issued this token, so its catalog fetch answers 401.
    expect(line(run.card, '- Account:')).toBe('- Account: token refused by the server, renewal due');
    // The refresh token renews it at the next start: the card does not ask for a new sign-in.
    expect(run.card).not.toContain('Sign in again');
  });

  it('an expired token with no refresh token is never sent: no catalog fetch, no who', async () => {
    const dir = fx.cursorDir();
    const claims = Buffer.from(JSON.stringify({ sub: 'dev', exp: Math.floor(Date.now() / 1000) - 600, scope: 'actions:read' })).toString('base64url');
    await signInWith(dir, fx.core.baseUrl, { access_token: `eyJhbGciOiJSUzI1NiJ9.${claims}.c2lnbmF0dXJl`, expires_in: 3600, scope: 'actions:read' });
    const before = requests();
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(requests()).toBe(before);
    expect(line(run.card, '- Account:')).toBe('- Account: token expired');
    expect(line(run.card, '- Capabilities:')).toBe('- Capabilities: no snapshot yet');
  });

  it('the network steps cannot load: who is not looked up, so no lookup failure is logged', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const run = await startSession(dir, fx.core.baseUrl, { loadNet: () => Promise.reject(new Error('chunk missing')) });
    expect(line(run.card, '- Account:')).toBe('- Account: signed in');
    expect(run.logs).toEqual([]);
  });

  it('a fresh start signed in ends with the plugin root: no note, nothing to do', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const run = await startSession(dir, fx.core.baseUrl);
    expect(run.card.split('\n').slice(1).map((l) => l.split(':')[0])).toEqual(['- Account', '- Project', '- Token', '- Capabilities', '- Plugin root']);
  });
});

describe('session start in process: files it did not fetch stay', () => {
  it('signed out, with a snapshot and an identity still there: neither is removed', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    await startSession(dir, fx.core.baseUrl);
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${fx.core.baseUrl}/mcp` } } }));
    writeFileSync(join(dir, 'agentstack-signed-out'), JSON.stringify({ signed_out_at: new Date().toISOString(), server_url: `${fx.core.baseUrl}/mcp` }));
    const run = await startSession(dir, fx.core.baseUrl);
    expect(line(run.card, '- Account:')).toBe('- Account: signed out');
    expect(existsSync(join(dir, 'agentstack-capabilities.json'))).toBe(true);
    expect(existsSync(join(dir, 'agentstack-identity.json'))).toBe(true);
  });
});
