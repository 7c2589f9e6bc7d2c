import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { credentialNotice, credentialNoticeFor, noticeKey, unusableReason, type CredentialFacts } from '../../lib/commands/preMcp/credentialNotice.js';
import { TELL_EVERY_MS, recentTold, tellOnce } from '../../lib/commands/preMcp/toldOnce.js';
import { runPreMcp } from '../../lib/commands/preMcp/run.js';
import { cursorPaths } from '../../lib/agentstack/server/paths.js';
import { writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { markSignedOut } from '../../lib/agentstack/auth/signedOut.js';
import { tempDir } from '../helpers/repo.js';
import { PRIVATE_MODE } from '../helpers/platform.js';

const BASE = 'https://agentstack.tech';
const facts = (more: Partial<CredentialFacts> = {}): CredentialFacts => ({
  entry: true, signedOut: false, state: 'ok', refreshable: false, belongs: true, refused: false, ...more,
});
const flow = { kind: 'running' as const, url: `${BASE}/device?user_code=ABCD-EFGH`, code: 'ABCD-EFGH', expiresAt: '2026-12-02T13:00:00.000Z' };

/** A JWT-shaped token (unsigned: the hook only reads its claims as hints). */
function jwt(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none' })}.${part(claims)}.sig`;
}

describe('unusableReason (pure)', () => {
  it('speaks only when the Device Code entry exists, was not signed out of, and cannot work', () => {
    expect(unusableReason(facts())).toBeNull();
    expect(unusableReason(facts({ entry: false, state: 'expired' }))).toBeNull();
    expect(unusableReason(facts({ signedOut: true, state: 'expired' }))).toBeNull();
    expect(unusableReason(facts({ state: 'expired' }))).toBe('expired');
    expect(unusableReason(facts({ state: 'ok', refused: true }))).toBe('refused');
    expect(unusableReason(facts({ state: 'expired', refused: true, refreshable: true }))).toBe('refused_renewable');
    expect(unusableReason(facts({ belongs: false }))).toBe('other_server');
    expect(unusableReason(facts({ state: 'placeholder' }))).toBe('no_credential');
    expect(unusableReason(facts({ state: 'null_caps' }))).toBe('no_capabilities');
  });

  it('a token that can still be refreshed, or an entry with no credential (Cursor may authorize it), is no reason', () => {
    expect(unusableReason(facts({ state: 'expired', refreshable: true }))).toBeNull();
    expect(unusableReason(facts({ state: 'unsigned' }))).toBeNull();
  });
});

describe('credentialNotice (pure)', () => {
  it('asks (never deny or allow), naming the state and /agentstack-authorize, to the person and to the agent', () => {
    const answer = credentialNotice('expired', null);
    expect(answer.permission).toBe('ask');
    expect(answer.user_message).toMatch(/expired and cannot be refreshed\. Sign in again with \/agentstack-authorize/);
    expect(answer.user_message).toContain('plugin-agentstack-agentstack');
    expect(answer.agent_message).toContain('/agentstack-authorize');
    expect(answer.agent_message).toContain('Never ask for or paste a token');
  });

  it('a running sign-in: its code and link; without a link that may be shown, /agentstack-authorize instead', () => {
    const answer = credentialNotice('expired', flow);
    expect(answer.user_message).toContain(`open ${flow.url} and enter the code ABCD-EFGH`);
    expect(answer.agent_message).toContain('ABCD-EFGH');
    const hidden = credentialNotice('expired', { ...flow, url: null });
    expect(hidden.user_message).toContain("run /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs) to see its code");
    expect(hidden.user_message).not.toContain('ABCD-EFGH');
  });

  it('a new sign-in code is a new state for the throttle', () => {
    expect(noticeKey('expired', null)).toBe('expired');
    expect(noticeKey('expired', flow)).not.toBe(noticeKey('expired', { ...flow, code: 'WXYZ-1234' }));
  });
});

describe('tellOnce: at most once every ten minutes per state', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => { dir = tempDir(); });
  afterEach(() => dir.cleanup());

  it('speaks, then stays quiet for the interval, then speaks again; the file is 0600 and holds no sign-in code', () => {
    const path = join(dir.path, 'told.json');
    const t0 = Date.parse('2026-12-02T12:00:00Z');
    expect(tellOnce(path, 'expired', t0)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(PRIVATE_MODE);
    expect(tellOnce(path, 'expired', t0 + TELL_EVERY_MS - 1)).toBe(false);
    expect(tellOnce(path, 'refused', t0 + 1)).toBe(true);
    expect(tellOnce(path, 'expired', t0 + TELL_EVERY_MS)).toBe(true);
    expect(tellOnce(path, 'waiting:ABCD-EFGH', t0)).toBe(true);
    expect(readFileSync(path, 'utf8')).not.toContain('ABCD-EFGH');
    expect(tellOnce(path, 'waiting:ABCD-EFGH', t0 + 1)).toBe(false);
  });

  it('an unreadable or hand-edited file, or a time in the future, never silences the hook', () => {
    const t0 = Date.parse('2026-12-02T12:00:00Z');
    expect(recentTold('not json', t0)).toEqual({});
    expect(recentTold('[1,2]', t0)).toEqual({});
    expect(recentTold(JSON.stringify({ expired: '2099-01-01T00:00:00Z', refused: 5 }), t0)).toEqual({});
    const path = join(dir.path, 'told.json');
    writeFileSync(path, '{"expired": "garbage"');
    expect(tellOnce(path, 'expired', t0)).toBe(true);
    expect(tellOnce(join(dir.path, 'missing-folder', 'x', 'told.json'), 'expired', t0)).toBe(true);
  });
});

describe('runPreMcp with the files a Cursor dir holds', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => { dir = tempDir(); });
  afterEach(() => dir.cleanup());

  const env = () => ({ AGENTSTACK_CURSOR_DIR: dir.path });
  const now = Date.parse('2026-12-02T12:00:00Z');
  const call = (extra: Record<string, unknown> = {}) => ({ tool_name: 'agentstack.execute', tool_input: JSON.stringify({ steps: [{ action: 'projects.list' }] }), mcp_server_name: 'agentstack', url: `${BASE}/mcp`, ...extra });
  const writeEntry = (token: string | null) => writeFileSync(join(dir.path, 'mcp.json'), JSON.stringify({
    mcpServers: { other: { url: 'https://x.example/mcp' }, agentstack: { type: 'http', url: `${BASE}/mcp`, ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}) } },
  }));
  const run = (input = call(), at = now) => runPreMcp(input, { env: env(), now: at });

  it('an expired token with no refresh token: ask once, then the usual checks for ten minutes', () => {
    writeEntry(jwt({ sub: 'u', exp: now / 1000 - 60 }));
    const first = run();
    expect(first.permission).toBe('ask');
    expect(first.user_message).toContain('/agentstack-authorize');
    expect(run(call(), now + 1_000).permission).toBeUndefined();
    expect(run(call(), now + TELL_EVERY_MS + 1).permission).toBe('ask');
  });

  it("the person's deny rule is answered before the notice, and leaves the notice for the next call", () => {
    writeEntry(jwt({ sub: 'u', exp: now / 1000 - 60 }));
    const denied = runPreMcp(call(), { env: { ...env(), AGENTSTACK_DENY_ACTIONS: 'projects.*' }, now });
    expect(denied.permission).toBe('deny');
    expect(denied.user_message).toContain('projects.*');
    // Not counted as told: the next call the rules let through still hears about the credential.
    expect(run(call(), now + 1_000).permission).toBe('ask');
  });

  it('a token the server refused (its last catalog fetch answered 401 after it was issued): ask', () => {
    writeEntry(jwt({ sub: 'u', iat: now / 1000 - 600, exp: now / 1000 + 3600 }));
    writeFileSync(cursorPaths(env()).capabilitiesFailure, JSON.stringify({ at: new Date(now - 60_000).toISOString(), server_url: `${BASE}/mcp`, message: '401', unauthorized: true }));
    expect(run().user_message).toContain('was refused by the server');
  });

  it('a 401 recorded before the token was issued says nothing about it', () => {
    writeEntry(jwt({ sub: 'u', iat: now / 1000 - 10, exp: now / 1000 + 3600 }));
    writeFileSync(cursorPaths(env()).capabilitiesFailure, JSON.stringify({ at: new Date(now - 60_000).toISOString(), server_url: `${BASE}/mcp`, message: '401', unauthorized: true }));
    expect(run().permission).toBeUndefined();
  });

  it('nothing changes: no Device Code entry, a sign-out, a refreshable token, a fresh token, a Connect call, another server', () => {
    expect(run().permission).toBeUndefined();
    writeEntry(jwt({ sub: 'u', exp: now / 1000 - 60 }));
    markSignedOut(cursorPaths(env()).signedOut, { serverUrl: `${BASE}/mcp` });
    expect(run().permission).toBeUndefined();
    dir.cleanup();
    dir = tempDir();
    writeEntry(jwt({ sub: 'u', exp: now / 1000 - 60 }));
    writeRefreshFile(cursorPaths(env()).refresh, { refresh_token: 'r'.repeat(20), resource: `${BASE}/mcp`, token_endpoint: `${BASE}/api/oauth2/token` });
    expect(run().permission).toBeUndefined();
    writeEntry(jwt({ sub: 'u', exp: now / 1000 + 60 }));
    expect(run().permission).toBeUndefined();
    writeEntry(jwt({ sub: 'u', exp: now / 1000 - 60 }));
    writeFileSync(cursorPaths(env()).refresh, '');
    expect(run(call({ mcp_server_name: 'plugin-agentstack-agentstack' })).permission).toBeUndefined();
    expect(run(call({ mcp_server_name: 'user-other', url: 'https://x.example/mcp' }))).toEqual({});
    expect(run().permission).toBe('ask');
  });

  it('a sign-in waiting for approval: its code and link (on the server\'s origin) reach the person', () => {
    writeEntry(jwt({ sub: 'u', exp: now / 1000 - 60 }));
    const lock = { pid: process.pid, started_at: new Date(now - 1_000).toISOString(), expires_at: new Date(now + 600_000).toISOString(), verification_uri: `${BASE}/device`, verification_uri_complete: `${BASE}/device?user_code=ABCD-EFGH`, user_code: 'ABCD-EFGH' };
    writeFileSync(cursorPaths(env()).deviceLock, JSON.stringify(lock));
    const answer = run();
    expect(answer.user_message).toContain(`open ${BASE}/device?user_code=ABCD-EFGH and enter the code ABCD-EFGH`);
    writeFileSync(cursorPaths(env()).deviceLock, JSON.stringify({ ...lock, user_code: 'WXYZ-2345', verification_uri_complete: 'https://evil.example/device' }));
    const moved = run(call(), now + 1);
    expect(moved.user_message).toContain('WXYZ-2345');
    expect(moved.user_message).not.toContain('evil.example');
  });

  it('credentialNoticeFor reads only local files (no network) and returns null when nothing is wrong', () => {
    writeEntry(jwt({ sub: 'u', exp: now / 1000 + 3600 }));
    expect(credentialNoticeFor({ paths: cursorPaths(env()), config: JSON.parse(readFileSync(join(dir.path, 'mcp.json'), 'utf8')), env: env(), serverName: 'agentstack', now, log: () => {} })).toBeNull();
  });
});
