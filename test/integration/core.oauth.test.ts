import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtectedResourceMetadataSchema } from '../../lib/schemas/server.js';
import { CAPABILITY_SCOPES } from '../../lib/agentstack/auth/scopes.js';
import { startCore, type RunningCore } from '../../core/index.js';
import { decodeJwt, form, pollToken, refresh, startDevice } from '../../core/testing.js';

let core: RunningCore;
beforeAll(async () => {
  core = await startCore({ interval: 1 });
});
afterAll(() => core.close());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('discovery', () => {
  it('plain default: RFC 9728 metadata where §3.1 puts it for /mcp only, with the resource\'s own scopes', async () => {
    const res = await fetch(`${core.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(res.status).toBe(200);
    const meta = ProtectedResourceMetadataSchema.parse(await res.json());
    expect(meta.resource).toBe(core.mcpUrl);
    expect(meta.authorization_servers).toEqual([core.issuer]);
    expect(meta.scopes_supported).toEqual([...CAPABILITY_SCOPES]);
    expect((await fetch(`${core.baseUrl}/.well-known/oauth-protected-resource`)).status).toBe(404);
  });

  it('the agentstack variant: the same document at both paths, with openid and offline_access among its scopes', async () => {
    const hosted = await startCore({ port: 0, variant: 'agentstack' });
    try {
      for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
        const res = await fetch(hosted.baseUrl + path);
        expect(res.status).toBe(200);
        const meta = ProtectedResourceMetadataSchema.parse(await res.json());
        expect(meta.resource).toBe(hosted.mcpUrl);
        expect(meta.scopes_supported).toEqual(expect.arrayContaining([...CAPABILITY_SCOPES, 'openid', 'offline_access']));
      }
    } finally {
      await hosted.close();
    }
  });

  it('serves RFC 8414 and OpenID metadata with device, token, registration endpoints and S256', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const meta = (await (await fetch(core.baseUrl + path)).json()) as Record<string, unknown>;
      expect(meta.issuer).toBe(core.issuer);
      expect(meta.device_authorization_endpoint).toBe(`${core.baseUrl}/api/oauth2/device/authorize`);
      expect(meta.token_endpoint).toBe(`${core.baseUrl}/api/oauth2/token`);
      expect(meta.registration_endpoint).toBe(`${core.baseUrl}/api/oauth2/register`);
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
      expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']));
    }
  });

  it('accepts dynamic client registration (public client, PKCE)', async () => {
    const res = await fetch(`${core.baseUrl}/api/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Cursor', redirect_uris: ['http://127.0.0.1:5555/callback'], application_type: 'native', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }),
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { client_id: string }).client_id).toBeTruthy();
  });

  it('dynamic client registration accepts every scope the metadata advertises, alone and all together', async () => {
    const prm = (await (await fetch(`${core.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as { scopes_supported: string[] };
    const as = (await (await fetch(`${core.baseUrl}/.well-known/oauth-authorization-server`)).json()) as { scopes_supported: string[] };
    const advertised = [...new Set([...prm.scopes_supported, ...as.scopes_supported])];
    expect(advertised).toEqual(expect.arrayContaining(['profile:read', 'actions:execute']));
    for (const scope of [...advertised, advertised.join(' ')]) {
      const res = await fetch(`${core.baseUrl}/api/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Connect', redirect_uris: ['http://127.0.0.1:5555/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], scope }),
      });
      expect({ scope, status: res.status }).toEqual({ scope, status: 201 });
      expect(((await res.json()) as { scope?: string }).scope?.split(' ').sort()).toEqual(scope.split(' ').sort());
    }
  });

  it('/activate?user_code= leads to the verification page', async () => {
    const res = await fetch(`${core.baseUrl}/activate?user_code=BCDF-GHJK`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('BCDF-GHJK');
  });
});

describe('device flow', () => {
  it('full sign-in approved by approve(): interval, pending, then JWT for /mcp with caps and email', async () => {
    const before = core.counters.deviceAuthorizations;
    const dev = await startDevice(core.baseUrl);
    expect(core.counters.deviceAuthorizations).toBe(before + 1);
    expect(dev.interval).toBe(1);
    expect(dev.verification_uri).toBe(`${core.baseUrl}/activate`);
    expect(dev.verification_uri_complete).toContain(`user_code=${dev.user_code}`);
    expect((await pollToken(core.baseUrl, dev.device_code)).body.error).toBe('authorization_pending');
    await core.approve(dev.user_code, { account: 'dev@agentstack.test' });
    await sleep(1000);
    const tok = await pollToken(core.baseUrl, dev.device_code);
    expect(tok.status).toBe(200);
    expect(tok.body.token_type).toBe('Bearer');
    expect(tok.body.expires_in).toBe(3600);
    const c = decodeJwt(String(tok.body.access_token));
    expect(c).toMatchObject({ sub: 'usr_dev_0001', aud: core.mcpUrl, iss: core.issuer, email: 'dev@agentstack.test', client_id: 'cursor-plugin' });
    expect(c.caps).toEqual(['profile:read', 'projects:read', 'actions:read', 'actions:execute', 'data:read']);
    expect(c.scope).toBe('profile:read projects:read actions:read actions:execute data:read');
    expect(typeof c.exp).toBe('number');
    // the device code is single use
    expect((await pollToken(core.baseUrl, dev.device_code)).body.error).toBe('invalid_grant');
  });

  it('defaults the resource to <base>/mcp when none is sent', async () => {
    const res = await form(`${core.baseUrl}/api/oauth2/device/authorize`, { client_id: 'cursor-plugin', scope: 'openid profile:read' });
    await core.approve(String(res.body.user_code));
    const tok = await form(`${core.baseUrl}/api/oauth2/token`, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: String(res.body.device_code), client_id: 'cursor-plugin' });
    expect(decodeJwt(String(tok.body.access_token)).aud).toBe(core.mcpUrl);
    expect(tok.body.refresh_token).toBeUndefined(); // no offline_access
  });

  it('approve({deny: true}) -> access_denied', async () => {
    const dev = await startDevice(core.baseUrl);
    await core.approve(dev.user_code, { deny: true });
    expect((await pollToken(core.baseUrl, dev.device_code)).body.error).toBe('access_denied');
  });

  it('enforces slow_down when a client polls faster than the interval', async () => {
    const dev = await startDevice(core.baseUrl);
    expect((await pollToken(core.baseUrl, dev.device_code)).body.error).toBe('authorization_pending');
    expect((await pollToken(core.baseUrl, dev.device_code)).body.error).toBe('slow_down');
  });

  it('expires device codes after deviceCodeTtl', async () => {
    const short = await startCore({ deviceCodeTtl: 1, interval: 1 });
    try {
      const dev = await startDevice(short.baseUrl);
      expect(dev.expires_in).toBe(1);
      await sleep(2100);
      expect((await pollToken(short.baseUrl, dev.device_code)).body.error).toBe('expired_token');
    } finally {
      await short.close();
    }
  });
});

describe('refresh tokens', () => {
  it('rotate on every use; a replayed refresh token revokes the grant', async () => {
    const t0 = await core.issueTokens();
    const c = { ...core.counters };
    const r1 = await refresh(core.baseUrl, t0.refresh_token!);
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(t0.refresh_token);
    expect(decodeJwt(String(r1.body.access_token)).aud).toBe(core.mcpUrl);
    expect(decodeJwt(String(r1.body.access_token)).caps).toEqual([...CAPABILITY_SCOPES]);
    const replay = await refresh(core.baseUrl, t0.refresh_token!);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    const r2 = await refresh(core.baseUrl, String(r1.body.refresh_token));
    expect(r2.body.error).toBe('invalid_grant'); // the grant is gone
    expect(core.counters.refreshGrants).toBe(c.refreshGrants + 3);
    expect(core.counters.refreshReplays).toBe(c.refreshReplays + 1);
    expect(core.counters.grantsRevoked).toBeGreaterThan(c.grantsRevoked);
  });

  it('issueTokens honours account, scope, TTL and custom claims, and refreshed tokens keep the claims', async () => {
    const t = await core.issueTokens({ account: 'ops@agentstack.test', scope: 'openid offline_access profile:read', accessTokenTtl: 120, claims: { token_type: 'user_api_key', service_caps: null } });
    expect(t.expires_in).toBe(120);
    expect(t.scope).toBe('profile:read');
    const c = decodeJwt(t.access_token);
    expect(c).toMatchObject({ sub: 'usr_ops_0002', caps: ['profile:read'], token_type: 'user_api_key', service_caps: null });
    const r = await refresh(core.baseUrl, t.refresh_token!);
    expect(decodeJwt(String(r.body.access_token))).toMatchObject({ token_type: 'user_api_key', service_caps: null });
    const noRt = await core.issueTokens({ scope: 'openid profile:read' });
    expect(noRt.refresh_token).toBeUndefined();
  });
});
