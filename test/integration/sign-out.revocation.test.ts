/**
 * signOut (lib/agentstack/signIn/signOut.ts) in this process against a small OAuth server of the test's own, for
 * what the reference core cannot show: a server that revokes access tokens too, one that refuses them in other words,
 * metadata naming a revocation endpoint elsewhere or none, and where each token is sent (only to the server that
 * issued it, with the client id it was issued to).
 */
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { signOut } from '../../lib/agentstack/signIn/signOut.js';
import { cursorPaths, type CursorPaths } from '../../lib/agentstack/server/paths.js';
import { writeRefreshFile, type StoredRefresh } from '../../lib/agentstack/auth/refreshStore.js';
import { applyBearer } from '../../lib/agentstack/mcpJson/entry.js';
import { updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';
import { tokenFingerprint } from '../../lib/agentstack/mcpJson/credential.js';
import { writeFileSync } from 'node:fs';
import { tempDir } from '../helpers/repo.js';
import { closedPort } from '../helpers/closedPort.js';
import { startRevocationServer, type RevocationServer } from '../helpers/revocationServer.js';

const BEARER = 'opaque-access-token-0123456789';
const REFRESH = 'opaque-refresh-token-0123456789';
const STORED_EXPIRY = '2031-01-01T00:00:00.000Z';

let own: RevocationServer;
let elsewhere: string;
let dir: ReturnType<typeof tempDir>;
let paths: CursorPaths;
beforeAll(async () => {
  own = await startRevocationServer();
  elsewhere = `http://127.0.0.1:${await closedPort()}`;
});
afterAll(async () => own?.close());
beforeEach(() => {
  dir = tempDir('agentstack-revoke-');
  paths = cursorPaths({ AGENTSTACK_CURSOR_DIR: dir.path });
  own.revoked.length = 0;
  own.revocationEndpoint = `${own.baseUrl}/revoke`;
  own.accessTokenError = null;
  own.resetRevocation = false;
  own.accessTokenReply = null;
});
afterEach(() => dir.cleanup());

const env = (extra: Record<string, string> = {}) => ({ AGENTSTACK_CURSOR_DIR: dir.path, HOME: dir.path, ...extra });
const record = (extra: Partial<StoredRefresh> = {}) => writeRefreshFile(paths.refresh, {
  refresh_token: REFRESH, scope: 'openid offline_access', token_type: 'Bearer', obtained_at: '2030-01-01T00:00:00.000Z', expires_at: STORED_EXPIRY,
  token_endpoint: `${own.baseUrl}/token`, client_id: 'cursor-plugin', resource: `${own.baseUrl}/mcp`, access_token_sha256: tokenFingerprint(BEARER), ...extra,
});
const bearerFor = (baseUrl: string, token = BEARER) => updateMcpConfigFile(paths.mcpJson, (config) => applyBearer(config, { token, baseUrl }));
const sent = () => own.revoked.map((r) => `${r.hint} ${r.token === REFRESH ? 'refresh' : r.token === BEARER ? 'bearer' : r.token} ${r.clientId}`);

describe('revocation at a server of our own', () => {
  it('a server that revokes access tokens too: both revoked, and no expiry left to tell', async () => {
    record();
    await bearerFor(own.baseUrl);
    expect(await signOut({ env: env() })).toMatchObject({ was_signed_in: true, revoked: true, access_token_revoked: true, reason: null, message: null, access_token_expires_at: null });
    expect(sent()).toEqual(['refresh_token refresh cursor-plugin', 'access_token bearer cursor-plugin']);
  });

  it('a server that refuses the access token: revoked (the refresh token), and the stored expiry of the last access token', async () => {
    own.accessTokenError = 'unsupported_token_type';
    record();
    await bearerFor(own.baseUrl);
    expect(await signOut({ env: env() })).toMatchObject({ revoked: true, access_token_revoked: false, reason: null, message: null, access_token_expires_at: STORED_EXPIRY });
  });

  it('only an access token: revoked when accepted; refused in the server\'s words when not', async () => {
    await bearerFor(own.baseUrl);
    expect(await signOut({ env: env() })).toMatchObject({ revoked: true, access_token_revoked: true, reason: null, access_token_expires_at: null });
    own.accessTokenError = 'invalid_grant';
    await bearerFor(own.baseUrl);
    const refused = await signOut({ env: env() });
    expect(refused).toMatchObject({ revoked: false, access_token_revoked: false, reason: 'refused', access_token_expires_at: null });
    expect(refused.message).toMatch(/^Revoking the token failed: invalid_grant/);
    // RFC 7009 §2.2.1: the server's answer that it does not revoke this type of token, said as such (not a failure).
    own.accessTokenError = 'unsupported_token_type';
    await bearerFor(own.baseUrl);
    const unsupported = await signOut({ env: env() });
    expect(unsupported).toMatchObject({ revoked: false, access_token_revoked: false, reason: 'unsupported_token_type' });
    expect(unsupported.message).toBe('the server does not revoke access tokens (it answered unsupported_token_type, RFC 7009 §2.2.1)');
  });

  it.each([
    ['an OAuth error with a 5xx (temporarily_unavailable, 503)', 'server', 503, 'application/json', '{"error":"temporarily_unavailable"}'],
    ['an OAuth error with HTTP 500', 'server', 500, 'application/json', '{"error":"server_error"}'],
    ['HTTP 429 that is not OAuth\'s (text)', 'server', 429, 'text/plain', 'slow down'],
    ['HTTP 400 with broken JSON', 'refused', 400, 'application/json', '{oops'],
  ])('only an access token, and the server answers %s: reason %s', async (_name, reason, status, contentType, body) => {
    own.accessTokenReply = { status, contentType, body };
    await bearerFor(own.baseUrl);
    expect(await signOut({ env: env() })).toMatchObject({ revoked: false, access_token_revoked: false, reason });
  });

  it('no revocation endpoint in the metadata: no_revocation_endpoint, nothing sent', async () => {
    own.revocationEndpoint = null;
    record();
    expect(await signOut({ env: env() })).toMatchObject({ revoked: false, access_token_revoked: false, reason: 'no_revocation_endpoint' });
    expect(own.revoked).toEqual([]);
  });

  it('a revocation endpoint on another origin than the one that issued the token: refused, nothing sent', async () => {
    own.revocationEndpoint = `${own.baseUrl.replace('127.0.0.1', 'localhost')}/revoke`;
    record();
    const result = await signOut({ env: env() });
    expect(result).toMatchObject({ revoked: false, access_token_revoked: false, reason: 'refused', message: `the revocation endpoint ${own.revocationEndpoint} is not on the server that issued the token` });
    expect(own.revoked).toEqual([]);
  });

  it('the issuer is the token endpoint the refresh token came from, not the one the server names now', async () => {
    record({ token_endpoint: `${own.baseUrl.replace('127.0.0.1', 'localhost')}/token` });
    expect(await signOut({ env: env() })).toMatchObject({ revoked: false, reason: 'refused' });
    expect(own.revoked).toEqual([]);
    record({ token_endpoint: null });
    expect(await signOut({ env: env() })).toMatchObject({ revoked: true });
  });

  it('the client id the refresh token was issued to is sent; without one, the environment\'s (with its secret)', async () => {
    record({ client_id: 'other-client' });
    await bearerFor(own.baseUrl);
    await signOut({ env: env({ AGENTSTACK_OAUTH_CLIENT_SECRET: 'env-secret-0123456789' }) });
    expect(sent()).toEqual(['refresh_token refresh other-client', 'access_token bearer other-client']);
    expect(own.revoked.map((r) => r.clientSecret)).toEqual([null, null]);
    own.revoked.length = 0;
    record({ client_id: null });
    await signOut({ env: env({ AGENTSTACK_OAUTH_CLIENT_ID: 'env-client', AGENTSTACK_OAUTH_CLIENT_SECRET: 'env-secret-0123456789' }) });
    // The metadata lists no revocation_endpoint_auth_methods_supported: HTTP Basic, RFC 8414's default.
    expect(own.revoked).toEqual([expect.objectContaining({ clientId: 'env-client', clientSecret: 'env-secret-0123456789', basic: true })]);
    own.revoked.length = 0;
    record({ client_id: 'env-client' });
    await signOut({ env: env({ AGENTSTACK_OAUTH_CLIENT_ID: 'env-client', AGENTSTACK_OAUTH_CLIENT_SECRET: 'env-secret-0123456789' }) });
    expect(own.revoked).toEqual([expect.objectContaining({ clientId: 'env-client', clientSecret: 'env-secret-0123456789', basic: true })]);
  });

  it('a refresh token goes back to the server it was issued for; a Bearer pasted for the entry\'s server is not sent there', async () => {
    record({ access_token_sha256: tokenFingerprint('some-other-access-token-0123456789') });
    await bearerFor(elsewhere, 'pasted-bearer-for-the-entry-0123456789');
    const result = await signOut({ env: env() });
    // Where to revoke by hand is the authorization server that issued the grant, not the entry's server.
    expect(result).toMatchObject({ server_url: `${elsewhere}/mcp`, revoke_at: own.baseUrl, revoked: true, access_token_revoked: false, access_token_expires_at: STORED_EXPIRY });
    expect(sent()).toEqual(['refresh_token refresh cursor-plugin']);
  });

  it('only a refresh token (no credential in mcp.json) was a sign-in: revoked', async () => {
    record();
    expect(await signOut({ env: env() })).toMatchObject({ was_signed_in: true, revoked: true, access_token_revoked: false });
    expect(sent()).toEqual(['refresh_token refresh cursor-plugin']);
  });

  it('a record whose token endpoint is not a URL: nothing sent, not revoked, the failure in words', async () => {
    record({ token_endpoint: 'not a url' });
    const result = await signOut({ env: env() });
    expect(result).toMatchObject({ was_signed_in: true, revoked: false, reason: 'server', message: expect.stringMatching(/Invalid URL/) });
    expect(own.revoked).toEqual([]);
  });

  it('a refresh token recorded without a usable server (an old plain file, a resource that is not a URL) goes to the entry\'s', async () => {
    writeFileSync(paths.refresh, `${REFRESH}\n`, { mode: 0o600 });
    await bearerFor(own.baseUrl);
    expect(await signOut({ env: env() })).toMatchObject({ revoked: true, access_token_revoked: true });
    expect(sent()).toEqual(['refresh_token refresh cursor-plugin', 'access_token bearer cursor-plugin']);
    own.revoked.length = 0;
    record({ resource: 'not a url' });
    await bearerFor(own.baseUrl, 'another-opaque-token-0123456789');
    expect(await signOut({ env: env() })).toMatchObject({ revoked: true });
    expect(sent()[0]).toBe('refresh_token refresh cursor-plugin');
  });

  it('the server of the environment wins over the entry\'s: a Bearer issued for the entry\'s server is not sent to it', async () => {
    await bearerFor(elsewhere);
    const result = await signOut({ env: env({ AGENTSTACK_BASE_URL: own.baseUrl }) });
    expect(result).toMatchObject({
      server_url: `${own.baseUrl}/mcp`, was_signed_in: true, revoked: false, access_token_revoked: false, reason: 'refused',
      message: 'the server did not accept the access token for revocation',
    });
    expect(own.revoked).toEqual([]);
  });

  it('a blank server in the environment is none: the entry\'s server is the one asked', async () => {
    await bearerFor(elsewhere);
    expect(await signOut({ env: env({ AGENTSTACK_BASE_URL: '  ' }) })).toMatchObject({ server_url: `${elsewhere}/mcp`, revoked: false });
  });

  it('a revocation endpoint that drops the connection: reason network', async () => {
    own.resetRevocation = true;
    record();
    expect(await signOut({ env: env() })).toMatchObject({ revoked: false, reason: 'network' });
  });
});
