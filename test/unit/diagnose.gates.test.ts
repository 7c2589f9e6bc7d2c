/** One test per diagnose-local gate: PASS, WARN and FAIL cases over hand-made state (the gates are pure). */
import { describe, expect, it } from 'vitest';
import {
  extraKeys, mcpBearerGate, mcpEntryGate, mcpModeGate, mcpNoToolsGate, mcpReadableGate, nodeGate, pluginInstalledGate, shippedMcpGate,
} from '../../lib/commands/diagnose/gatesConfig.js';
import {
  deviceLockGate, formatDuration, isLiveLock, projectPinGate, refreshFileGate, snapshotGate, tokenExpiryGate,
} from '../../lib/commands/diagnose/gatesState.js';
import type { LocalState, McpState, PluginState } from '../../lib/commands/diagnose/state.js';
import type { CopyReport } from '../../lib/agentstack/plugin/runtimeCopies.js';
import { staleCopiesCheck } from '../../lib/agentstack/plugin/runtimeRefresh.js';
import { credentialStoreFacts } from '../../lib/agentstack/credentials/storeFacts.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const jwtLike = 'eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjE3OTY1NTIwMDB9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
const mcp = (over: Partial<McpState> = {}): McpState => {
  const entry = { type: 'http', url: 'https://agentstack.tech/mcp', headers: { Authorization: `Bearer ${jwtLike}` } };
  return { path: '/c/mcp.json', exists: true, error: null, config: { mcpServers: { agentstack: entry } }, mode: 0o600, entry, notLean: false, ...over };
};
const plugin = (over: Partial<PluginState> = {}): PluginState => ({ install: { kind: 'local', dir: '/c/plugins/local/agentstack' }, installs: 1, manifestPointer: './mcp.json', shippedProblems: [], ...over });
const refresh = (over: Partial<LocalState['refresh']> = {}): LocalState['refresh'] => ({ exists: true, mode: 0o600, error: null, legacy: false, expiresAt: null, record: null, ...over });
const snapshot = (over: Record<string, unknown> = {}, state: Partial<LocalState['snapshot']> = {}): LocalState['snapshot'] => ({
  exists: true, mode: 0o600, error: null, notFlat: false,
  data: { fetched_at: new Date(NOW - 3600_000).toISOString(), audience: 'tenant', total_actions: 2, actions: [{ action: 'system.ping' }, { action: 'data.read' }], ...over },
  ...state,
});
const lock = (over: Partial<LocalState['lock']> = {}, data: Record<string, unknown> = {}): LocalState['lock'] => ({
  exists: true, text: '{}', holderAlive: true, origins: ['https://agentstack.tech'],
  data: { pid: 4242, started_at: new Date(NOW - 10_000).toISOString(), expires_at: new Date(NOW + 600_000).toISOString(), verification_uri: 'https://agentstack.tech/activate', verification_uri_complete: 'https://agentstack.tech/activate?user_code=WDJB-MJHT', user_code: 'WDJB-MJHT', ...data },
  ...over,
});
const copy = (stale: boolean): CopyReport => ({ kind: 'cache', dir: '/c/plugins/cache/m/agentstack/abc', version: stale ? '0.4.2' : '0.5.0', stale, differences: stale ? [{ path: 'assets/logo.png', reason: 'changed' }] : [], mtimeMs: 0 });

describe('node', () => {
  it('PASS on a supported 20+, WARN past its end of life (with the release to install), FAIL below 20', () => {
    const before = Date.parse('2026-04-29T00:00:00Z');
    const after = Date.parse('2026-05-01T00:00:00Z');
    expect(nodeGate('20.11.0', undefined, before).status).toBe('PASS');
    expect(nodeGate('20.11.0', undefined, after)).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/20\.11\.0 is past its end of life \(2026-04-30\)/), fix: expect.stringMatching(/Install Node 22 or newer/) });
    expect(nodeGate('22.1.0', undefined, after).status).toBe('PASS');
    // The Node a hook runs counts: this script's may be newer.
    expect(nodeGate('24.1.0', { path: '/usr/bin/node', version: '20.1.0' }, after).status).toBe('WARN');
    expect(nodeGate('18.19.0')).toMatchObject({ status: 'FAIL', fix: expect.stringMatching(/Node 20/) });
  });
});

describe('plugin.installed', () => {
  it('PASS when found with the ./mcp.json pointer, WARN when absent, FAIL on another pointer', () => {
    expect(pluginInstalledGate(plugin()).status).toBe('PASS');
    expect(pluginInstalledGate(plugin({ install: null, installs: 0 })).status).toBe('WARN');
    expect(pluginInstalledGate(plugin({ manifestPointer: { agentstack: {} } })).status).toBe('FAIL');
  });
});

describe('plugin.mcp-json', () => {
  it('PASS URL-only, FAIL with problems or unreadable, WARN when no plugin', () => {
    expect(shippedMcpGate(plugin()).status).toBe('PASS');
    expect(shippedMcpGate(plugin({ shippedProblems: ['mcp.json entry has "headers"'] })).status).toBe('FAIL');
    expect(shippedMcpGate(plugin({ shippedProblems: null })).status).toBe('FAIL');
    expect(shippedMcpGate(plugin({ install: null })).status).toBe('WARN');
  });
});

describe('mcp.readable', () => {
  it('PASS valid JSON or not there yet (a fresh install), FAIL malformed (with the reader message)', () => {
    expect(mcpReadableGate(mcp()).status).toBe('PASS');
    expect(mcpReadableGate(mcp({ exists: false, config: null })).status).toBe('PASS');
    const bad = mcpReadableGate(mcp({ error: '/c/mcp.json is not valid JSON (line 3, column 5: x)', config: null }));
    expect(bad).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/line 3, column 5/) });
  });
});

describe('mcp.entry', () => {
  it('PASS lean, WARN not lean (naming extra keys, not values), FAIL without entry', () => {
    expect(mcpEntryGate(mcp()).status).toBe('PASS');
    const fat = { type: 'http', url: 'https://agentstack.tech/mcp', baseUrl: 'x', headers: { Authorization: 'Bearer zzz', 'X-Note': 'secret-ish' } };
    const c = mcpEntryGate(mcp({ entry: fat, notLean: true }));
    expect(c.status).toBe('WARN');
    expect(c.summary).toContain('baseUrl');
    expect(c.summary).toContain('headers.X-Note');
    expect(c.summary).not.toContain('secret-ish');
    expect(extraKeys(fat)).toEqual(['baseUrl', 'headers.X-Note']);
    expect(mcpEntryGate(mcp({ entry: null })).status).toBe('FAIL');
  });
});

describe('mcp.no-tools', () => {
  it('PASS without tools, FAIL with a tools map, WARN when there is no entry', () => {
    expect(mcpNoToolsGate(mcp()).status).toBe('PASS');
    expect(mcpNoToolsGate(mcp({ entry: { url: 'https://agentstack.tech/mcp', tools: {} } })).status).toBe('FAIL');
    expect(mcpNoToolsGate(mcp({ entry: null })).status).toBe('WARN');
  });
});

describe('mcp.bearer', () => {
  it('PASS real Bearer, FAIL placeholder or missing, WARN API key only', () => {
    expect(mcpBearerGate(mcp()).status).toBe('PASS');
    for (const auth of ['Bearer ${env:AGENTSTACK_TOKEN}', 'Bearer ', 'Bearer AGENTSTACK_ACCESS_TOKEN', 'Bearer <token>']) {
      expect(mcpBearerGate(mcp({ entry: { url: 'u', headers: { Authorization: auth } } })).status).toBe('FAIL');
    }
    expect(mcpBearerGate(mcp({ entry: { url: 'u' } })).status).toBe('FAIL');
    expect(mcpBearerGate(mcp({ entry: { url: 'u', headers: { 'X-API-Key': 'k' } } })).status).toBe('WARN');
    expect(JSON.stringify(mcpBearerGate(mcp()))).not.toContain(jwtLike);
  });
});

describe('mcp.mode', () => {
  it('PASS 0600, FAIL group/other readable, PASS on Windows', () => {
    expect(mcpModeGate(mcp(), 'linux').status).toBe('PASS');
    expect(mcpModeGate(mcp({ mode: 0o644 }), 'linux')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/0644/) });
    expect(mcpModeGate(mcp({ mode: 0o644 }), 'win32').status).toBe('PASS');
    // No token in the file: it does not say there is one to read.
    const unsigned = mcpModeGate(mcp({ mode: 0o644, config: { mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp' } } } }), 'linux');
    expect(unsigned).toMatchObject({ status: 'WARN' });
    expect(unsigned.summary).not.toMatch(/read the token/);
    expect(mcpModeGate(mcp({ mode: null, exists: false }), 'linux').status).toBe('WARN');
  });
});

describe('token.expiry', () => {
  const base = { bearer: jwtLike, refresh: refresh(), now: NOW };
  it('PASS with time left, showing the token masked gh-style', () => {
    const c = tokenExpiryGate({ ...base, jwtExpMs: NOW + 3600_000 });
    expect(c.status).toBe('PASS');
    expect(c.summary).toMatch(/token eyJh\*+ valid for 60 min .*JWT exp/);
    expect(c.summary).not.toContain(jwtLike);
  });
  it('uses the stored expires_at when the token is not a JWT', () => {
    const c = tokenExpiryGate({ ...base, bearer: 'opaque-token-0123456789', jwtExpMs: null, refresh: refresh({ expiresAt: new Date(NOW + 7200_000).toISOString() }) });
    expect(c).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/stored expires_at/) });
  });
  it('PASS when expiring or expired with a refresh token (the plugin renews it, as the account row says), FAIL expired without one', () => {
    expect(tokenExpiryGate({ ...base, jwtExpMs: NOW + 60_000 }).status).toBe('PASS');
    expect(tokenExpiryGate({ ...base, jwtExpMs: NOW - 60_000 })).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/renews the token at the next agent session start/) });
    expect(tokenExpiryGate({ ...base, jwtExpMs: NOW - 60_000, refresh: refresh({ exists: false, mode: null }) }).status).toBe('FAIL');
  });
  it('PASS with unknown expiry; WARN (not checked) without a token', () => {
    expect(tokenExpiryGate({ ...base, jwtExpMs: null }).status).toBe('PASS');
    expect(tokenExpiryGate({ ...base, bearer: null, jwtExpMs: null }).status).toBe('WARN');
  });
});

describe('refresh.file', () => {
  it('PASS JSON 0600, WARN missing or legacy, FAIL loose mode or unreadable', () => {
    expect(refreshFileGate(refresh(), '/c/r', 'linux').status).toBe('PASS');
    expect(refreshFileGate(refresh({ exists: false, mode: null }), '/c/r', 'linux').status).toBe('WARN');
    expect(refreshFileGate(refresh({ legacy: true }), '/c/r', 'linux').status).toBe('WARN');
    expect(refreshFileGate(refresh({ mode: 0o640 }), '/c/r', 'linux').status).toBe('FAIL');
    expect(refreshFileGate(refresh({ error: '/c/r is not valid JSON; sign in again to replace it' }), '/c/r', 'linux').status).toBe('FAIL');
  });
  it('names a credential-store other than auto; WARN a token in the file an organization\'s keychain refuses', () => {
    const placement = { store: 'file' as const, keychain: null, reason: 'the keyring is locked' };
    const managed = credentialStoreFacts({ value: 'keychain', origin: 'managed', source: '/etc/agentstack/managed-settings.json' }, placement);
    expect(refreshFileGate(refresh({ placement }), '/c/r', 'linux', managed)).toMatchObject({ status: 'WARN', summary: expect.stringContaining('credential-store keychain (required by /etc/agentstack/managed-settings.json); refresh token in file: your organization requires the system keychain') });
    const chosen = credentialStoreFacts({ value: 'file', origin: 'settings', source: '~/.cursor/agentstack-settings.json' }, { store: 'file', keychain: null, reason: 'credential-store is file' });
    expect(refreshFileGate(refresh({ placement: { store: 'file', keychain: null, reason: 'credential-store is file' } }), '/c/r', 'linux', chosen)).toMatchObject({ status: 'PASS', summary: expect.stringContaining('refresh token in file: credential-store is file; credential-store file (set by ~/.cursor/agentstack-settings.json)') });
    const auto = credentialStoreFacts(undefined, placement);
    expect(refreshFileGate(refresh({ placement }), '/c/r', 'linux', auto).summary).not.toContain('credential-store auto');
  });
});

describe('project.pin', () => {
  it('PASS none or > 1, FAIL 1, 0 or text (file or env)', () => {
    expect(projectPinGate({ text: null, env: null, mode: null }, '/c/p').status).toBe('PASS');
    expect(projectPinGate({ text: '42\n', env: null, mode: 0o600 }, '/c/p')).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/project 42/) });
    for (const text of ['1', '0', 'abc', '-5']) expect(projectPinGate({ text, env: null, mode: 0o600 }, '/c/p').status).toBe('FAIL');
    expect(projectPinGate({ text: null, env: '7', mode: null }, '/c/p').status).toBe('PASS');
    expect(projectPinGate({ text: '42', env: '1', mode: null }, '/c/p').status).toBe('FAIL');
  });
});

describe('capabilities.snapshot', () => {
  it('PASS fresh and flat', () => {
    expect(snapshotGate(snapshot(), '/c/s', NOW)).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/2 actions, flat, fetched 60 min ago/) });
  });
  it('WARN missing, older than 24 h, or holding unapproved actions', () => {
    expect(snapshotGate({ exists: false, mode: null, error: null, data: null, notFlat: false }, '/c/s', NOW).status).toBe('WARN');
    expect(snapshotGate(snapshot({ fetched_at: new Date(NOW - 30 * 3600_000).toISOString() }), '/c/s', NOW).status).toBe('WARN');
    expect(snapshotGate(snapshot({ unapproved: ['data.delete'] }), '/c/s', NOW)).toMatchObject({ status: 'WARN', fix: expect.stringMatching(/--approve-actions/) });
  });
  it('FAIL when it holds the raw catalog instead of the flat list', () => {
    const c = snapshotGate({ exists: true, mode: 0o600, data: null, notFlat: true, error: 'holds the raw catalog (domains), not the flat action list' }, '/c/s', NOW);
    expect(c).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/raw catalog/) });
  });
});

describe('device.lock', () => {
  it('PASS none, PASS live flow with its URL and code', () => {
    expect(deviceLockGate({ exists: false, text: null, data: null, holderAlive: false, origins: [] }, NOW).status).toBe('PASS');
    const live = deviceLockGate(lock(), NOW);
    expect(live.status).toBe('PASS');
    expect(live.summary).toContain('WDJB-MJHT');
    expect(live.summary).toContain('https://agentstack.tech/activate?user_code=WDJB-MJHT');
    expect(isLiveLock(lock(), NOW)).toBe(true);
  });
  it('WARN stale (dead pid or expired) or malformed', () => {
    expect(deviceLockGate(lock({ holderAlive: false }), NOW)).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/process 4242 is gone/) });
    expect(deviceLockGate(lock({}, { expires_at: new Date(NOW - 60_000).toISOString() }), NOW).summary).toMatch(/expired/);
    expect(deviceLockGate(lock({ data: null }), NOW).status).toBe('WARN');
    expect(isLiveLock(lock({ holderAlive: false }), NOW)).toBe(false);
  });
  it('WARN (removable) a lock dated in the future or past its 30-minute cap, however far its expires_at', () => {
    const forged = lock({}, { started_at: new Date(NOW + 3600_000).toISOString(), expires_at: '2999-01-01T00:00:00Z' });
    expect(isLiveLock(forged, NOW)).toBe(false);
    expect(deviceLockGate(forged, NOW).summary).toMatch(/dated in the future/);
    const old = lock({}, { started_at: new Date(NOW - 31 * 60_000).toISOString(), expires_at: '2999-01-01T00:00:00Z' });
    expect(isLiveLock(old, NOW)).toBe(false);
    expect(deviceLockGate(old, NOW).summary).toMatch(/expired 60 s ago/);
    expect(isLiveLock(lock({}, { expires_at: '2999-01-01T00:00:00Z' }), NOW)).toBe(true);
  });
  it('a live lock whose page is on another origin: its code is shown, its URL is not', () => {
    const foreign = deviceLockGate(lock({}, { verification_uri: 'https://evil.example/activate', verification_uri_complete: null }), NOW);
    expect(foreign.status).toBe('PASS');
    expect(foreign.summary).not.toContain('evil.example');
    expect(foreign.summary).toContain('not shown');
  });
});

describe('plugin.caches', () => {
  it('PASS none or identical, WARN stale naming the file', () => {
    expect(staleCopiesCheck([]).status).toBe('PASS');
    expect(staleCopiesCheck([copy(false)]).status).toBe('PASS');
    expect(staleCopiesCheck([copy(true), copy(false)])).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/assets\/logo\.png changed/) });
  });
});

describe('formatDuration', () => {
  it('reads like a person would say it', () => {
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(-600_000)).toBe('10 min');
    expect(formatDuration(5 * 3600_000)).toBe('5 h');
    expect(formatDuration(3 * 86_400_000)).toBe('3 d');
  });
});
