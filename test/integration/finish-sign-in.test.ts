/**
 * finishSignIn (lib/agentstack/signIn/finish.ts) in this process against the reference core: what is stored once a
 * code is approved (the refresh token and its record, then the Bearer), what is fetched after (tool cache cleared,
 * snapshot, identity) and what the caller gets back; a sign-out before or after the approval; best-effort steps that
 * fail or are cancelled; and a credential that cannot be saved, said in words a person can act on.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CAPS_CLAIM, startCore, type RunningCore } from '../../core/index.js';
import { decodeJwt } from '../../core/testing.js';
import { finishSignIn, type FinishArgs } from '../../lib/agentstack/signIn/finish.js';
import { cursorPaths, type CursorPaths } from '../../lib/agentstack/server/paths.js';
import { readRefreshFile, writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { bearerOf, tokenFingerprint } from '../../lib/agentstack/mcpJson/credential.js';
import { markSignedOut } from '../../lib/agentstack/auth/signedOut.js';
import { readSnapshot } from '../../lib/agentstack/snapshot/store.js';
import type { TokenSet } from '../../lib/agentstack/auth/oauth.js';
import { tempDir } from '../helpers/repo.js';
import { readCursorState } from '../../lib/agentstack/state/read.js';

let core: RunningCore;
let dir: ReturnType<typeof tempDir>;
let paths: CursorPaths;
beforeAll(async () => { core = await startCore({ port: 0, interval: 1 }); });
afterAll(async () => core?.close());
beforeEach(() => {
  dir = tempDir('agentstack-finish-');
  paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path });
  core.setFaults({ endpointFaults: {} });
});
afterEach(() => dir.cleanup());

const endpoints = () => ({ issuer: core.baseUrl, deviceAuthorizationEndpoint: `${core.baseUrl}/device`, tokenEndpoint: `${core.baseUrl}/api/oauth2/token`, resource: `${core.baseUrl}/mcp`, source: 'discovery' as const });
const args = (tokens: TokenSet, extra: Partial<FinishArgs> = {}): FinishArgs => ({
  tokens, baseUrl: core.baseUrl, endpoints: endpoints(), client: { clientId: 'cursor-plugin' }, paths, projectId: null, bestEffortTimeoutMs: 10_000, ...extra,
});
const issue = async (opts: Parameters<RunningCore['issueTokens']>[0] = {}): Promise<TokenSet> => ({ ...(await core.issueTokens(opts)), token_type: 'Bearer' });
const config = () => JSON.parse(readFileSync(paths.mcpJson, 'utf8')) as { mcpServers: Record<string, { headers?: Record<string, string> }> };
const cacheClears = () => core.counters.requests['POST /mcp/cache/clear'] ?? 0;

describe('finishSignIn against the core', () => {
  it('stores the refresh token and its record, then the Bearer; clears the tool cache, saves the snapshot, learns who', async () => {
    const tokens = await issue();
    const at = Date.now();
    markSignedOut(paths.signedOut, { serverUrl: `${core.baseUrl}/mcp`, now: new Date(at - 1) }); // before the approval
    const clears = cacheClears();
    const result = await finishSignIn(args(tokens, { projectId: 42, now: () => at, approvedAt: at }));
    const expiresAt = new Date(at + tokens.expires_in! * 1000).toISOString();
    const snapshot = readSnapshot(paths.capabilities)!;
    expect(result).toEqual({
      server_url: `${core.baseUrl}/mcp`, mcp_json: paths.mcpJson, project_id: 42, expires_at: expiresAt, capabilities: snapshot.actions.length,
      skipped: null, who: expect.any(String), scopes: decodeJwt(tokens.access_token)[CAPS_CLAIM], uncovered_actions: 0, refresh_stored: true, refresh_store: 'file', warnings: [],
    });
    expect(result.capabilities).toBeGreaterThan(0);
    expect(result.scopes).toContain('actions:execute');
    expect(readRefreshFile(paths.refresh)).toEqual({
      refresh_token: tokens.refresh_token, scope: tokens.scope, token_type: 'Bearer', obtained_at: new Date(at).toISOString(), expires_at: expiresAt,
      token_endpoint: `${core.baseUrl}/api/oauth2/token`, client_id: 'cursor-plugin', token_endpoint_auth_method: 'none', resource: `${core.baseUrl}/mcp`, access_token_sha256: tokenFingerprint(tokens.access_token),
      // No session bus in the tests' environment: the file, and why.
      store: 'file', store_reason: expect.any(String),
    });
    expect(bearerOf(config())).toBe(tokens.access_token);
    expect(config().mcpServers.agentstack!.headers!['X-Project-ID']).toBe('42');
    expect(cacheClears()).toBe(clears + 1);
    expect(JSON.parse(readFileSync(paths.identity, 'utf8')).who).toBe(result.who);
    expect(existsSync(paths.signedOut)).toBe(false);
  });

  it('a grant without a refresh token removes an old one; the expiry comes from the token when the response has none', async () => {
    writeRefreshFile(paths.refresh, { refresh_token: 'an-old-refresh-token-0123456789' });
    const tokens = await issue();
    const result = await finishSignIn(args({ access_token: tokens.access_token, token_type: 'Bearer', scope: tokens.scope }));
    expect(result).toMatchObject({ refresh_stored: false, expires_at: new Date(Number(decodeJwt(tokens.access_token).exp) * 1000).toISOString() });
    expect(existsSync(paths.refresh)).toBe(false);
    expect(bearerOf(config())).toBe(tokens.access_token);
  });

  it('an opaque token with no expiry anywhere: expires_at null, the scopes from the response', async () => {
    core.setFaults({ endpointFaults: { cache_clear: { kind: '5xx' }, actions: { kind: '5xx' }, me: { kind: '5xx' } } });
    const result = await finishSignIn(args({ access_token: 'opaque-access-token-0123456789', token_type: 'Bearer', scope: 'openid actions:read' }));
    expect(result).toMatchObject({ expires_at: null, scopes: ['openid', 'actions:read'], capabilities: null, uncovered_actions: null });
  });

  it('a grant narrower than the catalog: the actions it does not cover are counted', async () => {
    const tokens = await issue({ scope: 'openid offline_access actions:read' });
    const result = await finishSignIn(args(tokens));
    expect(result.scopes).toEqual(['actions:read']);
    expect(result.uncovered_actions).toBeGreaterThan(0);
    expect(result.uncovered_actions).toBeLessThan(result.capabilities!);
  });

  it('catalog entries left out of the snapshot as malformed are counted, with the reason', async () => {
    const odd = await startCore({ port: 0, variant: 'malformed-entry' });
    try {
      const tokens = { ...(await odd.issueTokens()), token_type: 'Bearer' };
      const result = await finishSignIn(args(tokens, { baseUrl: odd.baseUrl }));
      expect(result.skipped).toEqual({ count: 1, reason: expect.any(String) });
      expect(result.capabilities).toBe(readSnapshot(paths.capabilities)!.actions.length);
    } finally {
      await odd.close();
    }
  });

  it('a sign-in again fetches the whole catalog (never a "not modified" for the snapshot of the sign-in before)', async () => {
    const tokens = await issue();
    await finishSignIn(args(tokens));
    const notModified = core.counters.catalogNotModified;
    const again = await finishSignIn(args(tokens));
    expect(again.capabilities).toBeGreaterThan(0);
    expect(core.counters.catalogNotModified).toBe(notModified);
  });

  it('a credential lock left 22 s ago by a live process is broken (a refresh holds it for one bounded request, under 20 s)', async () => {
    writeFileSync(paths.refreshLock, JSON.stringify({ pid: process.pid, acquired_at: new Date(Date.now() - 22_000).toISOString(), nonce: 'old' }));
    const tokens = await issue();
    await finishSignIn(args(tokens));
    expect(bearerOf(config())).toBe(tokens.access_token);
  });

  it('a sign-out recorded at or after the approval wins: nothing of this sign-in is saved', async () => {
    const tokens = await issue();
    const approvedAt = Date.now();
    markSignedOut(paths.signedOut, { serverUrl: `${core.baseUrl}/mcp`, now: new Date(approvedAt) });
    await expect(finishSignIn(args(tokens, { approvedAt }))).rejects.toMatchObject({ code: 'aborted', message: expect.stringMatching(/^You signed out while this sign-in was finishing, so nothing was saved\./) });
    expect(existsSync(paths.refresh)).toBe(false);
    expect(existsSync(paths.mcpJson)).toBe(false);
    // Without an approval time, the approval is now.
    await expect(finishSignIn(args(tokens, { now: () => approvedAt }))).rejects.toMatchObject({ code: 'aborted' });
    writeFileSync(paths.signedOut, 'not a record'); // unreadable: no date to win with, and cleared by the sign-in
    await finishSignIn(args({ ...tokens, scope: undefined }, { approvedAt }));
    expect(existsSync(paths.signedOut)).toBe(false);
    expect(readRefreshFile(paths.refresh)!.scope).toBeNull(); // a response without scope records none
  });

  it('best-effort steps that fail are warnings; the sign-in stands', async () => {
    core.setFaults({ endpointFaults: { cache_clear: { kind: '5xx' }, actions: { kind: '5xx' }, me: { kind: '5xx' } } });
    const tokens = await issue();
    const result = await finishSignIn(args(tokens));
    expect(result).toMatchObject({ capabilities: null, skipped: null, who: null, uncovered_actions: null, refresh_stored: true });
    expect(result.warnings).toHaveLength(3);
    expect(result.warnings[0]).toMatch(/^Clearing the server tool cache: HTTP 5\d\d$/);
    expect(result.warnings[1]).toMatch(/^Saving the capability snapshot: ./);
    expect(result.warnings[2]).toMatch(/^Looking up who signed in: ./);
    expect(bearerOf(config())).toBe(tokens.access_token);
  });

  it('each best-effort request has the deadline given, said in the warning; a 400 answer is a failure too', async () => {
    core.setFaults({ endpointFaults: { cache_clear: { kind: 'hang' } } });
    const result = await finishSignIn(args(await issue(), { bestEffortTimeoutMs: 300 }));
    expect(result.warnings[0]).toMatch(/^Clearing the server tool cache: No answer from \S+ within 0\.3 s$/);
    const seen: Array<{ url?: string; authorization?: string; accept?: string }> = [];
    const refusing = createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization, accept: req.headers.accept });
      res.writeHead(400, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
      const other = await finishSignIn(args({ access_token: 'opaque-access-token-0123456789', token_type: 'Bearer' }, { baseUrl }));
      expect(other.warnings[0]).toBe('Clearing the server tool cache: HTTP 400');
      expect(seen[0]).toEqual({ url: '/mcp/cache/clear', authorization: 'Bearer opaque-access-token-0123456789', accept: 'application/json' });
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  it('a server that serves no catalog (404) is not AgentStack: said once, and who signed in is not asked', async () => {
    const seen: string[] = [];
    const plain = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
      const result = await finishSignIn(args({ access_token: 'opaque-access-token-0123456789', token_type: 'Bearer', expires_in: 3600 }, { baseUrl }));
      expect(result.warnings).toEqual([`not an AgentStack server: no capability list (GET ${baseUrl}/mcp/actions answered 404)`]);
      expect(result).toMatchObject({ capabilities: null, who: null, refresh_stored: false });
      expect(result.expires_at).not.toBeNull();
      expect(seen).not.toContain('GET /api/auth/me');
      // No refresh token came: the token's end is still kept, so a view never calls it signed in once it is past.
      const env = { AGENTSTACK_CURSOR_DIR: dir.path };
      expect(readCursorState({ env, envBaseUrl: baseUrl }).derived.account).toMatchObject({ state: 'signed_in', expiresAt: result.expires_at!.replace(/\.\d{3}Z$/, 'Z') });
      expect(readCursorState({ env, envBaseUrl: baseUrl, now: Date.now() + 2 * 3600_000 }).derived.account.state).toBe('expired');
    } finally {
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  it('cancelled once saved: every remaining step is skipped and says so, the result is still signed in', async () => {
    const tokens = await issue();
    const clears = cacheClears();
    const result = await finishSignIn(args(tokens, { signal: AbortSignal.abort() }));
    expect(result).toMatchObject({ capabilities: null, who: null, refresh_stored: true });
    expect(cacheClears()).toBe(clears); // not even sent
    expect(existsSync(paths.identity)).toBe(false);
    expect(result.warnings).toEqual(['Clearing the server tool cache', 'Saving the capability snapshot', 'Looking up who signed in'].map((s) => `${s}: skipped, the sign-in was cancelled after it was saved`));
    expect(bearerOf(config())).toBe(tokens.access_token);

    core.setFaults({ endpointFaults: { cache_clear: { kind: 'hang' } } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const during = await finishSignIn(args(tokens, { signal: controller.signal }));
    expect(during.warnings[0]).toBe('Clearing the server tool cache: skipped, the sign-in was cancelled after it was saved');
    expect(during.warnings).toHaveLength(3);
  });

  it('a sign-out while the best-effort steps ran: what they wrote goes, and the sign-out stands', async () => {
    core.setFaults({ endpointFaults: { cache_clear: { kind: 'slow', delayMs: 2_000 } } });
    const tokens = await issue();
    const clears = cacheClears();
    const finishing = finishSignIn(args(tokens));
    // The tool cache is cleared once the credential is saved and its lock released: sign out while that answer waits.
    for (let i = 0; i < 2_000 && cacheClears() === clears; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    markSignedOut(paths.signedOut, { serverUrl: `${core.baseUrl}/mcp` });
    const result = await finishing;
    expect(result.warnings).toContain('You signed out while this sign-in was finishing; the sign-out stands and nothing of this sign-in was kept.');
    expect(existsSync(paths.capabilities)).toBe(false);
    expect(existsSync(paths.identity)).toBe(false);
    expect(result.uncovered_actions).toBe(0); // counted over the snapshot that is gone: no actions
  });

  it('mcp.json that was a symlink: replaced by a file, and said so', async () => {
    const real = join(dir.path, 'real-mcp.json');
    writeFileSync(real, '{"mcpServers": {}}\n');
    symlinkSync(real, paths.mcpJson);
    const result = await finishSignIn(args(await issue()));
    expect(result.warnings[0]).toBe(`${paths.mcpJson} was a symlink to ${real}; it is now a regular file (the plugin never writes through links). If you keep mcp.json elsewhere, copy it back there and re-link it.`);
  });

  it('a credential that cannot be saved: an io error naming the file, the reason and what to do', async () => {
    mkdirSync(paths.refresh);
    writeFileSync(join(paths.refresh, 'x'), '');
    const error = await finishSignIn(args(await issue())).catch((e: unknown) => e);
    // The file named is the one being saved, not the temporary file the system refused to rename onto a folder.
    expect(error).toMatchObject({ code: 'io', details: { path: paths.refresh, errno: 'EISDIR' } });
    const named = (error as { details: { path: string } }).details.path;
    expect((error as Error).message).toMatch(new RegExp(`^Could not save the sign-in to ${named.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(EISDIR\\); check that ${dir.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is writable, then sign in again\\.$`));
  });

  it('keeps the refresh token where the settings it is handed say, not where the environment would', async () => {
    // The environment asks for the keychain; the settings the caller read (a managed file fixing `file`) win, so the
    // token goes to the file and no keychain is asked.
    const settings = { rows: [{ key: 'credential-store' as const, value: 'file', origin: 'managed' as const, source: join(dir.path, 'managed.json') }] };
    const env = { AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_CREDENTIAL_STORE: 'keychain' };
    const tokens = await issue();
    const result = await finishSignIn(args(tokens, { env, settings }));
    expect(result.refresh_store).toBe('file');
    expect(readRefreshFile(paths.refresh)).toMatchObject({ refresh_token: tokens.refresh_token, store: 'file' });
  });

  it('an mcp.json that is not JSON: its own error, unchanged', async () => {
    writeFileSync(paths.mcpJson, '{"mcpServers": {');
    await expect(finishSignIn(args(await issue()))).rejects.toMatchObject({ code: 'malformed_file' });
  });
});
