// Sign-in, status, renewal and sign-out of the built plugin against deployments that are not ours: oidc-provider
// set up directly (test/fixtures/foreignDeployment.ts), one profile per way a real deployment differs. Approval goes
// through oidc-provider's own pages, submitted over plain HTTP (test/helpers/foreignApproval.ts: the same forms the
// browser test clicks in test/e2e/foreign-signin.test.ts, which covers the AS-offers-offline_access and challenge-scope
// profiles in Chromium). What the plugin sent is read where a conformance suite reads it: at the servers.
import { afterEach, describe, expect, it } from 'vitest';
import { FOREIGN_PROFILES, startForeignDeployment, type ForeignDeployment, type ForeignProfile } from '../fixtures/foreignDeployment.js';
import { BASELINE_MARGIN, scriptStartMs } from '../helpers/deadline.js';
import { DEVICE_CODE_SCRIPT } from '../helpers/deviceCode.js';
import { bearer, DEVICE_GRANT, foreignHome, logout, mcpStatus, requestsTo, scopesOf, signIn, startSession, status, type ForeignHome } from '../helpers/foreignSignIn.js';

let deployment: ForeignDeployment | undefined;
let home: ForeignHome | undefined;
afterEach(async () => {
  await deployment?.close();
  home?.cleanup();
  deployment = undefined;
  home = undefined;
});

async function start(profile: ForeignProfile, env: Record<string, string> = {}, options: { accessTokenTtl?: number } = {}): Promise<{ d: ForeignDeployment; h: ForeignHome }> {
  // A 1 s polling interval: what is checked here is what was sent and stored, not the cadence (RFC 8628's default
  // of 5 s when a deployment sends none is the browser test's, test/e2e/foreign-signin.test.ts).
  deployment = await startForeignDeployment({ ...FOREIGN_PROFILES[profile], interval: 1, ...options });
  home = foreignHome(deployment, env);
  return { d: deployment, h: home };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** Requests that went to AgentStack's built-in OAuth paths on the MCP server's origin (never right once metadata names an AS). */
const builtInPaths = (d: ForeignDeployment) => d.mcpRequests.filter((r) => r.path.startsWith('/api/oauth2/'));

describe('sign-in against foreign deployments (approval over HTTP through the provider\'s own pages)', () => {
  it('opaque token with expires_in and no refresh token: the expiry is kept, and after it no view says signed in', async () => {
    // The token must outlive the first --status: its life is the profile's 4 s, or more on a machine where starting
    // the script now takes long (five times that start, and 2 s for the sign-in's own end, measured in this run).
    const ttlMs = Math.max(4_000, Math.ceil((2_000 + BASELINE_MARGIN * await scriptStartMs(DEVICE_CODE_SCRIPT)) / 1_000) * 1_000);
    const { d, h } = await start('expires-no-refresh', {}, { accessTokenTtl: ttlMs / 1_000 });
    const signingInAt = Date.now();
    const result = await signIn(d, h);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized' });
    const signedInAt = Date.now();
    // The AS does not list offline_access (SEP-2207): not asked for.
    expect(scopesOf(requestsTo(d, 'device_authorization')[0]?.params)).toEqual(['mcp:read', 'mcp:write']);
    const before = await status(h);
    expect(before.json).toMatchObject({ signed_in: true, refresh_stored: false });
    expect(before.json.expires_at, 'expires_in must be stored without a refresh token').not.toBeNull();
    // Issued during the sign-in: its end is the token's life after some moment of it (expires_in is whole seconds).
    const expiresAt = Date.parse(before.json.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(signingInAt + ttlMs - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(signedInAt + ttlMs + 1_000);

    await sleep(Math.max(0, expiresAt + 500 - Date.now()));
    expect(await mcpStatus(d, bearer(h))).toBe(401); // the server's view
    const after = await status(h);
    expect(after.json.signed_in).toBe(false);
    expect(after.code).toBe(1);
    const card = String((await startSession(h)).json.additional_context ?? '');
    expect(card).not.toMatch(/Account: signed in/);
  }, 60_000);

  it('refresh token without expires_in: the first 401 invalid_token at session start renews the token', async () => {
    const { d, h } = await start('refresh-no-expires-in');
    const result = await signIn(d, h);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized' });
    const signedInAt = Date.now();
    expect(scopesOf(requestsTo(d, 'device_authorization')[0]?.params)).toEqual(['mcp:read', 'mcp:write', 'offline_access']);
    expect((await status(h)).json).toMatchObject({ signed_in: true, refresh_stored: true });
    const first = bearer(h);

    await sleep(Math.max(0, signedInAt + 4_500 - Date.now()));
    expect(await mcpStatus(d, first)).toBe(401); // the token died; nothing told the plugin when
    const started = await startSession(h);
    expect(started.code).toBe(0);
    const refreshes = requestsTo(d, 'token', 'refresh_token');
    expect(refreshes.length, 'session start must renew after the server answered 401 invalid_token').toBeGreaterThan(0);
    expect(refreshes[0]!.params.resource).toBe(d.resource);
    expect(bearer(h)).not.toBe(first);
    expect(await mcpStatus(d, bearer(h))).toBe(200);
    expect((await status(h)).json.signed_in).toBe(true);
  }, 60_000);

  it('AS metadata only at /.well-known/openid-configuration/<path>: found there (MCP discovery order), no built-in path tried', async () => {
    const { d, h } = await start('openid-path-inserted');
    const result = await signIn(d, h);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized' });
    expect(d.asRequests).toContain('GET /.well-known/openid-configuration/oidc');
    expect(builtInPaths(d)).toEqual([]);
    expect(requestsTo(d, 'token', DEVICE_GRANT).at(-1)?.status).toBe(200);
    expect(await mcpStatus(d, bearer(h))).toBe(200);
    expect((await status(h)).json.signed_in).toBe(true);
  }, 60_000);

  it('resource metadata naming the resource by origin: that resource (RFC 8707) on the device and token requests', async () => {
    const { d, h } = await start('resource-by-origin');
    const result = await signIn(d, h);
    const device = requestsTo(d, 'device_authorization')[0];
    expect(device?.params.resource && new URL(device.params.resource).href).toBe(new URL(d.resource).href);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized' });
    const token = requestsTo(d, 'token', DEVICE_GRANT).at(-1)!;
    expect(new URL(token.params.resource!).href).toBe(new URL(d.resource).href);
    expect(await mcpStatus(d, bearer(h))).toBe(200);
  }, 60_000);

  it('neither metadata lists scopes: no scope parameter at all (the AS applies its default)', async () => {
    const { d, h } = await start('no-scopes-advertised');
    const result = await signIn(d, h);
    expect(requestsTo(d, 'device_authorization').map((r) => scopesOf(r.params))).toEqual([null]);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized' });
    expect(await mcpStatus(d, bearer(h))).toBe(200);
  }, 60_000);

  it('--scopes and --scope-preset use the scopes the deployment advertises, offline_access added because the AS lists it', async () => {
    const { d, h } = await start('offline-access-in-as-only');
    const explicit = await signIn(d, h, { approve: false, args: ['--scopes', 'mcp:read offline_access'] });
    expect(explicit.started, explicit.stderr).not.toBeNull();
    const readonly = await signIn(d, h, { approve: false, args: ['--scope-preset', 'readonly'] });
    expect(readonly.started, readonly.stderr).not.toBeNull();
    expect(requestsTo(d, 'device_authorization').map((r) => scopesOf(r.params))).toEqual([['mcp:read', 'offline_access'], ['mcp:read', 'offline_access']]);
  }, 60_000);

  it('AS metadata whose issuer differs by a trailing slash: sign-in stops naming both, and no secret goes anywhere', async () => {
    const secret = 'foreign-client-secret-0d1b5a7c9e';
    const { d, h } = await start('issuer-trailing-slash', { AGENTSTACK_OAUTH_CLIENT_SECRET: secret });
    const result = await signIn(d, h);
    const said = `${result.stdout}\n${result.stderr}`;
    expect(result.code).not.toBe(0);
    expect(result.started).toBeNull();
    expect(said).toContain(`${d.issuer}/`);
    expect(said).toMatch(new RegExp(`${escape(d.issuer)}(?![/\\w])`));
    expect(said).not.toMatch(/AGENTSTACK_OAUTH_CLIENT_ID/);
    expect(requestsTo(d, 'device_authorization')).toEqual([]);
    expect(builtInPaths(d)).toEqual([]);
    expect(d.mcpRequests.filter((r) => r.body.includes(secret))).toEqual([]);
    expect(said).not.toContain(secret);
  }, 60_000);

  it('an AS without the device grant: "does not offer device sign-in (RFC 8628); use Connect", nothing sent elsewhere', async () => {
    const { d, h } = await start('no-device-grant');
    const result = await signIn(d, h);
    expect(result.code).not.toBe(0);
    expect(result.started).toBeNull();
    expect(`${result.stdout}\n${result.stderr}`).toContain('does not offer device sign-in (RFC 8628); use Connect');
    expect(builtInPaths(d)).toEqual([]);
    expect(requestsTo(d, 'token')).toEqual([]);
  }, 60_000);

  it('a server that is not AgentStack: the card says so once, and --status --online judges the token by MCP initialize', async () => {
    const { d, h } = await start('offline-access-in-as-only');
    const result = await signIn(d, h);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized' });
    const card = String((await startSession(h)).json.additional_context ?? '');
    expect(card.split('not an AgentStack server: no capability list')).toHaveLength(2);
    const online = await status(h, true);
    expect(online.json).toMatchObject({ signed_in: true, online: { accepted: true } });
    const initializes = d.mcpRequests.filter((r) => r.path === '/mcp' && r.body.includes('"initialize"'));
    expect(initializes.length).toBeGreaterThan(0);
  }, 60_000);

  it('sign-out after a sign-in without a refresh token names the revocation endpoint it used', async () => {
    const { d, h } = await start('expires-no-refresh');
    const result = await signIn(d, h);
    expect(result.final, result.stderr).toMatchObject({ event: 'authorized' });
    const out = await logout(h);
    expect(out.code).toBe(0);
    expect(requestsTo(d, 'revocation').length).toBeGreaterThan(0);
    expect(out.text).toContain(d.revocationEndpoint);
    expect(bearer(h)).toBeNull();
  }, 60_000);
});
