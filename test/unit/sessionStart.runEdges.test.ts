/**
 * Session start in this process against the reference core on 127.0.0.1, the less common paths of run.ts: a
 * sign-in that lands while the token is being refreshed, an opaque token whose expiry only the refresh record
 * knows, the server taken from mcp.json, mcp.json held by another writer or replaced through a symlink, the API
 * trace, and network steps that fail to load with something other than an Error.
 */
import { SIGN_IN_COMMAND } from '../../lib/agentstack/state/story.js';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { acquireLock } from '../../lib/platform/fs/fileLock.js';
import { setHttpTrace } from '../../lib/platform/net/http.js';
import { processStartTime } from '../../lib/platform/processStart.js';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { signInWith } from '../helpers/sessionStart.js';
import { bearerIn, startSession, todoOf } from '../helpers/sessionStartInProcess.js';

const fx = useCoreAndCursorDirs('agentstack-ss-edges-');
const requests = () => Object.values(fx.core.counters.requests).reduce((a, b) => a + b, 0);
const tokenRequests = () => fx.core.counters.requests['POST /api/oauth2/token'] ?? 0;
const line = (card: string, start: string) => card.split('\n').find((l) => l.startsWith(start));
const NO_AUTO_LOGIN = { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' };

async function waitFor(check: () => boolean): Promise<void> {
  const end = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('session start in process: the refresh, less common paths', () => {
  it('a sign-in that lands while the token is being refreshed is kept, and the card says so', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens({ accessTokenTtl: 30 }));
    const fresh = await fx.core.issueTokens();
    fx.core.setFaults({ endpointFaults: { token: { kind: 'slow', delayMs: 800, times: 1 } } });
    try {
      const before = tokenRequests();
      const running = startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
      await waitFor(() => tokenRequests() > before);
      await signInWith(dir, fx.core.baseUrl, fresh);
      const run = await running;
      expect(run.card).toContain('\n- A new sign-in replaced the credential while it was being refreshed; the new one is kept.');
      expect(bearerIn(dir)).toBe(fresh.access_token);
      expect(run.card).not.toContain(fresh.access_token);
    } finally {
      fx.core.setFaults({ endpointFaults: {} });
    }
  });

  it('an opaque token whose refresh record says it expires in 30 s is refreshed', async () => {
    const dir = fx.cursorDir();
    const issued = await fx.core.issueTokens({ refreshedAccessTokenTtl: 3600 });
    await signInWith(dir, fx.core.baseUrl, { ...issued, access_token: 'opaque-token-without-claims-0123456789' });
    const record = JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8'));
    writeRefreshFile(join(dir, 'agentstack-refresh'), { ...record, expires_at: new Date(Date.now() + 30_000).toISOString() });
    const grants = fx.core.counters.refreshGrants;
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(fx.core.counters.refreshGrants).toBe(grants + 1);
    expect(run.card).toContain('\n- Refreshed the access token.');
    expect(bearerIn(dir)).not.toBe('opaque-token-without-claims-0123456789');
  });
});

describe('session start in process: where it starts from', () => {
  it('without AGENTSTACK_BASE_URL (or with only spaces in it) the server is the one mcp.json names', async () => {
    for (const value of [undefined, '   ']) {
      const dir = fx.cursorDir();
      await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
      const run = await startSession(dir, fx.core.baseUrl, { extraEnv: { AGENTSTACK_BASE_URL: value } });
      expect(run.card.split('\n')[0]).toBe(`AgentStack plugin status (server ${fx.core.baseUrl}/mcp)`);
      expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
    }
  });

  it('mcp.json held by another writer: the cleanup gives up after its wait, says so, nothing is sent, and the card still names the credential the file holds', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const config = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8'));
    config.mcpServers.agentstack.headers['X-Extra'] = 'left by hand';
    config.mcpServers.agentstack.type = 'http';
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify(config));
    const release = await acquireLock(join(dir, 'mcp.json.lock'));
    try {
      const before = requests();
      const started = Date.now();
      const run = await startSession(dir, fx.core.baseUrl);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
      expect(requests()).toBe(before);
      expect(todoOf(run.card)[0]).toBe(`- Another process holds ${join(dir, 'mcp.json.lock')}; try again in a moment`);
      expect(run.card).not.toContain('Cleaned up');
      // The token in the file is valid: the card neither says "not signed in" nor sends the person to Connect.
      expect(run.card).not.toContain('not signed in');
      expect(run.card).not.toContain('Connect AgentStack');
    } finally {
      release();
    }
  }, 30_000);

  it('an mcp.json that is a symlink is cleaned into a regular file, and the card says where the link pointed', async () => {
    const dir = fx.cursorDir();
    const target = join(dir, 'elsewhere.json');
    writeFileSync(target, JSON.stringify({ mcpServers: { agentstack: { url: `${fx.core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));
    symlinkSync(target, join(dir, 'mcp.json'));
    const run = await startSession(dir, fx.core.baseUrl, { extraEnv: NO_AUTO_LOGIN });
    expect(lstatSync(join(dir, 'mcp.json')).isSymbolicLink()).toBe(false);
    expect(todoOf(run.card)).toContain(`- ${join(dir, 'mcp.json')} was a symlink to ${target}; it is now a regular file (the plugin never writes through links). If you keep mcp.json elsewhere, copy it back there and re-link it.`);
    expect(JSON.parse(readFileSync(target, 'utf8')).mcpServers.agentstack.headers.Authorization).toBe('Bearer ${env:AGENTSTACK_ACCESS_TOKEN}');
  });

  it('AGENTSTACK_DEBUG=api: the requests of the network steps are traced to the debug log', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    try {
      await startSession(dir, fx.core.baseUrl, { extraEnv: { AGENTSTACK_DEBUG: 'api' } });
      const log = readFileSync(join(dir, 'agentstack-debug.log'), 'utf8');
      expect(log).toContain('/mcp/actions');
      expect(log).toContain('session-start');
      // A debug log that cannot be written: tracing stops, and the step's log says why.
      const blocked = fx.cursorDir();
      await signInWith(blocked, fx.core.baseUrl, await fx.core.issueTokens());
      mkdirSync(join(blocked, 'agentstack-debug.log'));
      const run = await startSession(blocked, fx.core.baseUrl, { extraEnv: { AGENTSTACK_DEBUG: 'api' } });
      expect(run.logs.some((l) => l.includes('cannot be written') && l.includes('tracing stopped'))).toBe(true);
    } finally {
      setHttpTrace(undefined);
    }
    const quiet = fx.cursorDir();
    await signInWith(quiet, fx.core.baseUrl, await fx.core.issueTokens());
    await startSession(quiet, fx.core.baseUrl);
    expect(existsSync(join(quiet, 'agentstack-debug.log'))).toBe(false);
  });

  it('network steps that fail to load with a bare string: its text on the card', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const run = await startSession(dir, fx.core.baseUrl, { loadNet: () => Promise.reject('chunk gone') });
    expect(run.card).toContain("\n- The plugin's network steps could not start (chunk gone); only local checks ran.");
  });

  it('who cannot be looked up and no log is given: the card still comes', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    fx.core.setFaults({ endpointFaults: { me: { kind: '5xx' } } });
    try {
      const run = await startSession(dir, fx.core.baseUrl, { log: undefined });
      expect(line(run.card, '- Account:')).toBe('- Account: signed in');
    } finally {
      fx.core.setFaults({ endpointFaults: {} });
    }
  });
});

describe('session start in process: more of what the card says', () => {
  it('an API key: signed in with it, no Bearer is looked up and nothing is sent', async () => {
    const dir = fx.cursorDir();
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${fx.core.baseUrl}/mcp`, headers: { 'X-API-Key': 'ask_live_0123456789abcdef' } } } }));
    const before = requests();
    const run = await startSession(dir, fx.core.baseUrl);
    expect(requests()).toBe(before);
    expect(line(run.card, '- Account:')).toBe('- Account: signed in (API key)');
  });

  it('network steps that fail to load with nothing at all: still one line, and the card', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const run = await startSession(dir, fx.core.baseUrl, { loadNet: () => Promise.reject(null) });
    expect(run.card).toContain("\n- The plugin's network steps could not start (null); only local checks ran.");
  });

  it('a running sign-in whose page is on the recorded token endpoint\'s origin (not the server\'s) shows that page', async () => {
    const dir = fx.cursorDir();
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const other = 'http://localhost:9/oauth';
    const record = JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8'));
    writeRefreshFile(join(dir, 'agentstack-refresh'), { ...record, token_endpoint: `${other}/token` });
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${fx.core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));
    const lock = (url: string) => writeFileSync(join(dir, 'agentstack-device.lock'), JSON.stringify({
      pid: process.pid, pid_start: processStartTime(process.pid), started_at: new Date().toISOString(), expires_at: new Date(Date.now() + 600_000).toISOString(),
      verification_uri_complete: url, user_code: 'WDJB-MJHT',
    }));
    lock(`${other}/activate?user_code=WDJB-MJHT`);
    const shown = await startSession(dir, fx.core.baseUrl);
    expect(todoOf(shown.card)).toEqual([expect.stringMatching(new RegExp(`^- A sign-in is waiting for your approval: open ${other}/activate\\?user_code=WDJB-MJHT and enter the code WDJB-MJHT `))]);
    lock('http://elsewhere.example/activate?user_code=WDJB-MJHT');
    const hidden = await startSession(dir, fx.core.baseUrl);
    expect(todoOf(hidden.card)).toEqual([`- A sign-in is starting in another window; run ${SIGN_IN_COMMAND} to see its code.`]);
  });
});
