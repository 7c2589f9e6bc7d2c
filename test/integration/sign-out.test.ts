/**
 * signOut (lib/agentstack/signIn/signOut.ts) in this process against the reference core: what the caller gets
 * back in each outcome (revoked, not signed in, a failing, hanging or cancelled server, no revocation endpoint), what
 * is left on disk, and the local part's warnings (files that cannot be read, written or removed; a sign-in running).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { decodeJwt, refresh } from '../../core/testing.js';
import { signOut } from '../../lib/agentstack/signIn/signOut.js';
import { cursorPaths, type CursorPaths } from '../../lib/agentstack/server/paths.js';
import { tempDir } from '../helpers/repo.js';
import { NEVER_A_PID } from '../helpers/deadPid.js';
import { signInWith } from '../helpers/sessionStart.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
let paths: CursorPaths;
beforeAll(async () => { core = await startCore({ port: 0, interval: 1 }); });
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir('agentstack-signout-');
  paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path });
  core.setFaults({ endpointFaults: {}, noDiscovery: false });
});
afterEach(() => dir.cleanup());

const NOW = Date.parse('2030-05-06T07:08:09.000Z');
const env = (extra: Record<string, string> = {}) => ({ AGENTSTACK_CURSOR_DIR: dir.path, HOME: dir.path, ...extra });
const allRequests = () => Object.values(core.counters.requests).reduce((a, b) => a + b, 0);
const entry = () => (JSON.parse(readFileSync(paths.mcpJson, 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers.agentstack;
const expiryOf = (token: string) => new Date(Number(decodeJwt(token).exp) * 1000).toISOString();

async function signedIn(options: { refreshToken?: boolean } = {}) {
  const tokens = await core.issueTokens();
  await signInWith(dir.path, core.baseUrl, options.refreshToken === false ? { ...tokens, refresh_token: undefined } : tokens);
  writeFileSync(paths.identity, '{}');
  writeFileSync(paths.capabilities, '{}');
  return tokens;
}

describe('signOut against the core', () => {
  it('revokes the grant and removes the credential, the refresh token, the identity and the snapshot; records the sign-out', async () => {
    const tokens = await signedIn();
    const revoked = core.counters.grantsRevoked;
    const result = await signOut({ env: env(), now: () => NOW });
    expect(result).toEqual({
      server_url: `${core.baseUrl}/mcp`, was_signed_in: true, revoked: true, access_token_revoked: false, reason: null, message: null,
      access_token_expires_at: expiryOf(tokens.access_token), revoke_at: core.baseUrl, client_id: 'cursor-plugin', revocation_endpoint: `${core.issuer}/api/oauth2/revoke`,
      mcp_json: paths.mcpJson, warnings: [], refresh_kept_in: null,
    });
    expect(core.counters.grantsRevoked).toBe(revoked + 1);
    expect((await refresh(core.baseUrl, tokens.refresh_token!)).body.error).toBe('invalid_grant');
    expect(entry()).toEqual({ type: 'http', url: `${core.baseUrl}/mcp` });
    for (const path of [paths.refresh, paths.identity, paths.capabilities]) expect(existsSync(path), path).toBe(false);
    expect(JSON.parse(readFileSync(paths.signedOut, 'utf8'))).toEqual({ signed_out_at: new Date(NOW).toISOString(), server_url: `${core.baseUrl}/mcp` });
  });

  it('not signed in: says so, asks the server nothing, and still records the sign-out (for the server of the environment)', async () => {
    const before = allRequests();
    const result = await signOut({ env: env({ AGENTSTACK_BASE_URL: core.baseUrl }) });
    expect(result).toMatchObject({ server_url: `${core.baseUrl}/mcp`, was_signed_in: false, revoked: false, access_token_revoked: false, reason: 'not_signed_in', message: 'there was no token to revoke', access_token_expires_at: null, revoke_at: core.baseUrl });
    expect(allRequests()).toBe(before);
    expect(existsSync(paths.signedOut)).toBe(true);
  });

  it('an API key in the entry (no token) was a sign-in: it is removed, and there is nothing to revoke', async () => {
    writeFileSync(paths.mcpJson, JSON.stringify({ mcpServers: { agentstack: { url: `${core.baseUrl}/mcp`, headers: { 'X-API-Key': 'key-0123456789' } } } }));
    const result = await signOut({ env: env() });
    expect(result).toMatchObject({ was_signed_in: true, revoked: false, reason: 'not_signed_in' });
    expect(entry()).toEqual({ url: `${core.baseUrl}/mcp` });
  });

  it('a revocation endpoint that fails: signed out here, reason server, the refresh token still works there', async () => {
    const tokens = await signedIn();
    core.setFaults({ endpointFaults: { revocation: { kind: '5xx' } } });
    const result = await signOut({ env: env() });
    expect(result).toMatchObject({ was_signed_in: true, revoked: false, access_token_revoked: false, reason: 'server', access_token_expires_at: expiryOf(tokens.access_token) });
    expect(result.message).toEqual(expect.any(String));
    expect(existsSync(paths.refresh)).toBe(false);
    core.setFaults({ endpointFaults: {} });
    expect((await refresh(core.baseUrl, tokens.refresh_token!)).status).toBe(200);
  });

  it('a revocation endpoint that hangs past the overall deadline: reason timeout, naming the deadline in seconds', async () => {
    await signedIn();
    core.setFaults({ endpointFaults: { revocation: { kind: 'hang' } } });
    const result = await signOut({ env: env(), timeoutMs: 20_000, totalTimeoutMs: 1_500 });
    expect(result).toMatchObject({ revoked: false, reason: 'timeout', message: 'the server did not answer within 2 s' });
  });

  it('a revocation endpoint that hangs past the deadline of the request: reason timeout, in the request\'s words', async () => {
    await signedIn();
    core.setFaults({ endpointFaults: { revocation: { kind: 'hang' } } });
    const result = await signOut({ env: env(), timeoutMs: 800, totalTimeoutMs: 20_000 });
    expect(result).toMatchObject({ revoked: false, reason: 'timeout' });
    expect(result.message).toMatch(/No answer from \S+ within 0\.8 s/);
  });

  it('cancelled by the caller, before or during the request: reason aborted, signed out here all the same', async () => {
    await signedIn();
    const before = core.counters.grantsRevoked;
    const result = await signOut({ env: env(), signal: AbortSignal.abort() });
    expect(result).toMatchObject({ was_signed_in: true, revoked: false, reason: 'aborted' });
    expect(core.counters.grantsRevoked).toBe(before);

    await signedIn();
    core.setFaults({ endpointFaults: { revocation: { kind: 'hang' } } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const during = await signOut({ env: env(), signal: controller.signal, timeoutMs: 20_000, totalTimeoutMs: 20_000 });
    expect(during).toMatchObject({ revoked: false, reason: 'aborted' });
    expect(existsSync(paths.refresh)).toBe(false);
  });

  it('no OAuth metadata, so no revocation endpoint: reason no_revocation_endpoint', async () => {
    await signedIn();
    core.setFaults({ noDiscovery: true });
    expect(await signOut({ env: env() })).toMatchObject({
      was_signed_in: true, revoked: false, access_token_revoked: false, reason: 'no_revocation_endpoint', message: 'the server publishes no OAuth metadata: there is no endpoint to revoke at',
      revocation_endpoint: null,
    });
  });

  it('only an access token, which the core cannot revoke (a JWT): not revoked, the server\'s words, until when it still works', async () => {
    const tokens = await signedIn({ refreshToken: false });
    const result = await signOut({ env: env() });
    expect(result).toMatchObject({ was_signed_in: true, revoked: false, access_token_revoked: false, reason: 'unsupported_token_type', access_token_expires_at: expiryOf(tokens.access_token) });
    expect(result.message).toBe('the server does not revoke access tokens (it answered unsupported_token_type, RFC 7009 §2.2.1)');
  });

  it('an mcp.json that cannot be read stops it with nothing changed', async () => {
    await signedIn();
    writeFileSync(paths.mcpJson, '{"mcpServers": {');
    const refreshBefore = readFileSync(paths.refresh, 'utf8');
    await expect(signOut({ env: env() })).rejects.toMatchObject({ code: 'malformed_file' });
    expect(readFileSync(paths.refresh, 'utf8')).toBe(refreshBefore);
    expect(existsSync(paths.signedOut)).toBe(false);
  });
});

describe('the local part', () => {
  it('breaks a credential lock left 22 s ago by a live process (a holder keeps it under 20 s)', async () => {
    writeFileSync(paths.refreshLock, JSON.stringify({ pid: process.pid, acquired_at: new Date(Date.now() - 22_000).toISOString(), nonce: 'old' }));
    expect(await signOut({ env: env() })).toMatchObject({ was_signed_in: false });
    expect(existsSync(paths.signedOut)).toBe(true);
  });

  it('leaves no timer and no listener on the caller\'s signal behind', async () => {
    const controller = new AbortController();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await signOut({ env: env(), signal: controller.signal });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
  });
});

describe('the local part\'s warnings', () => {
  const folderAt = (path: string) => { mkdirSync(path); writeFileSync(join(path, 'x'), 'x'); };

  it('a refresh token file that cannot be read is removed without being revoked, and said so', async () => {
    writeFileSync(paths.refresh, '{not json');
    const result = await signOut({ env: env() });
    expect(result.warnings).toEqual([`${paths.refresh} could not be read; it was removed without being revoked.`]);
    expect(existsSync(paths.refresh)).toBe(false);
  });

  it('a sign-out record that cannot be written, a file that cannot be removed: each said, with the reason', async () => {
    folderAt(paths.signedOut);
    folderAt(paths.identity);
    const { warnings } = await signOut({ env: env() });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(new RegExp(`^${paths.signedOut.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} could not be written \\(E[A-Z]+\\); a session start may offer a sign-in by itself\\.$`));
    expect(warnings[1]).toMatch(/^.*agentstack-identity\.json could not be removed \(E[A-Z]+\); remove it by hand\.$/);
  });

  it('a sign-in still waiting for approval, or approved and finishing, is named; a stale or unreadable lock is not', async () => {
    const lock = (extra: Record<string, unknown>) => writeFileSync(paths.deviceLock, JSON.stringify({
      pid: process.pid, started_at: new Date().toISOString(), expires_at: new Date(Date.now() + 600_000).toISOString(), ...extra,
    }));
    lock({});
    expect((await signOut({ env: env() })).warnings).toEqual([
      `A sign-in is still waiting for approval (pid ${process.pid}); approving its code signs this machine in again. Stop it with Ctrl-C in its window, or let it expire.`,
    ]);
    lock({ approved_at: new Date().toISOString() });
    expect((await signOut({ env: env() })).warnings).toEqual([
      `A sign-in approved before this sign-out (pid ${process.pid}) was finishing; it keeps nothing: the sign-out stands.`,
    ]);
    lock({ pid: NEVER_A_PID });
    expect((await signOut({ env: env() })).warnings).toEqual([]);
    lock({ expires_at: new Date(Date.now() - 1_000).toISOString() });
    expect((await signOut({ env: env() })).warnings).toEqual([]);
    lock({}); // live, but judged at the caller's clock: an hour on, its code has expired
    expect((await signOut({ env: env(), now: () => Date.now() + 3_600_000 })).warnings).toEqual([]);
    writeFileSync(paths.deviceLock, 'not json');
    expect((await signOut({ env: env() })).warnings).toEqual([]);
    rmSync(paths.deviceLock);
    folderAt(paths.deviceLock);
    expect((await signOut({ env: env() })).warnings).toEqual([]);
  });
});
