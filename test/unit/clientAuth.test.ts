import { describe, expect, it } from 'vitest';
import { authMethodsOf, clientAuthMethod, publicClientAccepted } from '../../lib/agentstack/auth/clientAuth.js';
import { deviceAuthorizationAccepted, DeviationError, oauthErrorFirst } from '../../lib/platform/net/oauthResponse.js';
import { signedOutLines } from '../../lib/commands/deviceCode/logout.js';
import type { SignOutResult } from '../../lib/agentstack/signIn/signOut.js';

describe('client authentication as the metadata says', () => {
  it('a public client sends none, whatever the list', () => {
    for (const list of [null, [], ['client_secret_basic'], ['none'], ['private_key_jwt']]) expect(clientAuthMethod(list, false)).toBe('none');
  });
  it('a client with a secret: Basic when the list is absent (RFC 8414) or names it (RFC 6749 §2.3.1), the body only when only that is named', () => {
    expect(clientAuthMethod(null, true)).toBe('client_secret_basic');
    expect(clientAuthMethod(undefined, true)).toBe('client_secret_basic');
    expect(clientAuthMethod(['client_secret_post', 'client_secret_basic'], true)).toBe('client_secret_basic');
    expect(clientAuthMethod(['client_secret_basic'], true)).toBe('client_secret_basic');
    expect(clientAuthMethod(['client_secret_post', 'private_key_jwt'], true)).toBe('client_secret_post');
    expect(clientAuthMethod(['none'], true)).toBe('none');
  });
  it('a list that names none of the three stops before anything is sent, naming what the server takes', () => {
    expect(() => clientAuthMethod(['private_key_jwt', 'tls_client_auth'], true, 'revocation endpoint'))
      .toThrow(/revocation endpoint takes client authentication by private_key_jwt, tls_client_auth only/);
  });
  it('reads the metadata field only when it is a list of strings', () => {
    expect(authMethodsOf({ m: ['a', 'b'] }, 'm')).toEqual(['a', 'b']);
    for (const value of [undefined, 'client_secret_basic', [1], {}, null]) expect(authMethodsOf({ m: value }, 'm')).toBeNull();
    expect(authMethodsOf(null, 'm')).toBeNull();
  });
  it('a public client may call an endpoint whose list is absent or names none', () => {
    expect(publicClientAccepted(null)).toBe(true);
    expect(publicClientAccepted(['none', 'client_secret_basic'])).toBe(true);
    expect(publicClientAccepted(['client_secret_basic'])).toBe(false);
  });
});

const answer = (status: number, body: string, headers: Record<string, string> = {}) => new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });

describe('what an OAuth server answers, read before the protocol library', () => {
  it('an OAuth error body wins over WWW-Authenticate (authorization_pending as 401)', async () => {
    const read = await oauthErrorFirst(answer(401, '{"error":"authorization_pending"}', { 'www-authenticate': 'Basic realm="x"' }));
    expect(read.status).toBe(401);
    expect(read.headers.has('www-authenticate')).toBe(false);
    expect(await read.json()).toEqual({ error: 'authorization_pending' });
    // Without an OAuth error body the challenge stays.
    const challenge = await oauthErrorFirst(answer(401, 'no', { 'www-authenticate': 'Basic realm="x"' }));
    expect(challenge.headers.get('www-authenticate')).toBe('Basic realm="x"');
    const ok = answer(200, '{}');
    expect(await oauthErrorFirst(ok)).toBe(ok);
  });
  it('Google\'s verification_url and a digit-string interval are read as RFC 8628\'s', async () => {
    const read = await deviceAuthorizationAccepted(answer(200, JSON.stringify({ device_code: 'd', user_code: 'U', verification_url: 'https://g.example/device', expires_in: '1800', interval: '5' })));
    expect(await read.json()).toMatchObject({ verification_uri: 'https://g.example/device', expires_in: 1800, interval: 5 });
  });
  it('anything else is named: what the server sent, and which field', async () => {
    await expect(deviceAuthorizationAccepted(answer(200, JSON.stringify({ device_code: 'd', user_code: 'U', verification_uri: 'https://x', interval: 'soon' }))))
      .rejects.toThrow(new DeviationError('its interval is "soon", not a number of seconds (RFC 8628 §3.2)'));
    await expect(deviceAuthorizationAccepted(answer(200, JSON.stringify({ device_code: 'd', user_code: 'U' }))))
      .rejects.toThrow(/names no verification_uri \(RFC 8628 §3\.2\), so there is no page/);
    await expect(deviceAuthorizationAccepted(answer(200, JSON.stringify({ device_code: 'd', verification_url: 7 }))))
      .rejects.toThrow(/its verification_url is 7/);
  });
});

const base: SignOutResult = {
  server_url: 'https://mcp.example/mcp', was_signed_in: true, revoked: false, access_token_revoked: false, reason: 'needs_client_auth',
  message: 'the authorization server https://login.example revokes only for clients that authenticate (HTTP 401, invalid_client: its revocation_endpoint_auth_methods_supported names client_secret_basic, not none), and the client "my-client" is a public client with no secret',
  access_token_expires_at: null, revoke_at: 'https://login.example', client_id: 'my-client', revocation_endpoint: null, mcp_json: '/h/.cursor/mcp.json', warnings: [], refresh_kept_in: null,
};

describe('what --logout says when the server does not revoke', () => {
  it('a public client refused where revocation needs client authentication: said as such, the client id and the issuer named', () => {
    const text = signedOutLines(base).join('\n');
    expect(text).toContain('! The sign-in cannot be revoked at the server from here (the authorization server https://login.example revokes only');
    expect(text).toContain('Revoke the "my-client" sign-in in your account at https://login.example');
    expect(text).not.toMatch(/cursor-plugin|AGENTSTACK_OAUTH/);
  });
  it('unsupported_token_type is the server\'s answer, not a failure', () => {
    const lines = signedOutLines({ ...base, reason: 'unsupported_token_type', message: 'x', access_token_expires_at: '2030-01-01T00:00:00.000Z' }, { now: Date.parse('2029-01-01T00:00:00Z') });
    expect(lines[1]).toBe('  The server does not revoke access tokens (it answered unsupported_token_type, RFC 7009 §2.2.1): the last access token stays valid there until 2030-01-01T00:00:00Z. Revoke the "my-client" sign-in in your account at https://login.example to end it sooner.');
    expect(lines.join('\n')).not.toMatch(/could not|!/);
  });
});
