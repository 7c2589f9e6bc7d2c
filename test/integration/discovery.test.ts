/**
 * RFC 9728 discovery where servers differ from AgentStack's own layout, against reference-core variants over real
 * HTTP: metadata at the root location (`resource` = the origin, which RFC 9728 ties to that URL and the MCP SDK
 * accepts), and metadata named only by the 401 challenge's `resource_metadata` (which MCP clients must follow).
 * Both the verify checks and the sign-in must find the authorization server through them; with `other-issuer` the
 * authorization server is another origin and AgentStack's fixed paths answer 404, so only discovery can succeed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import type { VariantName } from '../../core/variants.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { discoverEndpoints, discoverServer, pollDeviceToken, requestDeviceCode } from '../../lib/agentstack/auth/oauth.js';
import { resolveScopes, scopeStringFor } from '../../lib/agentstack/auth/scopes.js';
import { oauthChecks } from '../../lib/commands/verify/oauthChecks.js';
import type { Check } from '../../lib/platform/report.js';

let core: RunningCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

async function coreWith(...variant: VariantName[]): Promise<RunningCore> {
  core = await startCore({ port: 0, interval: 1, variant });
  return core;
}

const byId = (checks: Check[], id: string) => checks.find((c) => c.id === id)!;

async function verifyOAuth(c: RunningCore): Promise<Check[]> {
  return oauthChecks({ baseUrl: c.baseUrl, mcpUrl: c.mcpUrl, timeoutMs: 5000 });
}

/** The device flow through whatever discoverEndpoints found, to an access token. */
async function signIn(c: RunningCore): Promise<string> {
  const endpoints = await discoverEndpoints(c.baseUrl, { timeoutMs: 5000 });
  const client = { clientId: 'cursor-plugin' };
  const device = await requestDeviceCode({ endpoints, client, scope: scopeStringFor('readonly') });
  await c.approve(device.user_code);
  await new Promise((r) => setTimeout(r, 1100));
  const result = await pollDeviceToken({ endpoints, client, deviceCode: device.device_code });
  if (result.kind !== 'success') throw new Error(`sign-in did not complete: ${JSON.stringify(result)}`);
  return result.tokens.access_token;
}

describe('protected-resource metadata at the root location (resource = the origin)', () => {
  it('verify passes oauth.protected_resource and goes on to the authorization server and Connect', async () => {
    const c = await coreWith('root-resource-metadata');
    const checks = await verifyOAuth(c);
    expect(byId(checks, 'oauth.protected_resource')).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/\/\.well-known\/oauth-protected-resource( \(named by the 401 challenge\))?: resource http:\/\/127\.0\.0\.1:\d+,/) });
    expect(byId(checks, 'oauth.as_metadata').status).toBe('PASS');
    expect(byId(checks, 'oauth.connect_ready').status).toBe('PASS');
  });

  it('verify still FAILs a resource that names another origin or a path the MCP URL is not under', async () => {
    const c = await coreWith('root-resource-metadata');
    const checks = await oauthChecks({ baseUrl: c.baseUrl, mcpUrl: `${c.baseUrl.replace('127.0.0.1', 'localhost')}/mcp`, timeoutMs: 5000 });
    expect(byId(checks, 'oauth.protected_resource')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/clients must reject it/) });
  });

  it('the sign-in finds an authorization server on another origin through it, without the fixed paths', async () => {
    const c = await coreWith('root-resource-metadata', 'other-issuer');
    const endpoints = await discoverEndpoints(c.baseUrl, { timeoutMs: 5000 });
    // RFC 8707 `resource` is what the metadata names (the origin here): this core, like an authorization server that
    // knows one resource, answers invalid_target to <base>/mcp.
    expect(endpoints).toMatchObject({ source: 'discovery', issuer: c.issuer, resource: c.baseUrl });
    expect(endpoints.tokenEndpoint.startsWith(c.issuer)).toBe(true);
    expect(c.issuer).not.toBe(c.baseUrl);
    expect(await signIn(c)).toMatch(/\S{20,}/);
  });
});

describe('protected-resource metadata named only by the 401 challenge (resource_metadata)', () => {
  it('verify follows resource_metadata: oauth.protected_resource passes with oauth.www_authenticate', async () => {
    const c = await coreWith('challenge-metadata');
    const checks = await verifyOAuth(c);
    expect(byId(checks, 'oauth.www_authenticate').status).toBe('PASS');
    expect(byId(checks, 'oauth.protected_resource')).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/\/auth\/protected-resource-metadata \(named by the 401 challenge\)/) });
    expect(byId(checks, 'oauth.as_metadata').status).toBe('PASS');
  });

  it('the sign-in follows it too, to an authorization server on another origin', async () => {
    const c = await coreWith('challenge-metadata', 'other-issuer');
    const endpoints = await discoverEndpoints(c.baseUrl, { timeoutMs: 5000 });
    expect(endpoints).toMatchObject({ source: 'discovery', issuer: c.issuer });
    expect(await signIn(c)).toMatch(/\S{20,}/);
    expect(c.counters.requests['GET /auth/protected-resource-metadata']).toBeGreaterThan(0);
  });
});

describe('the other-issuer variant on its own (metadata at the usual place)', () => {
  it('signs in through discovery; the fixed paths on the base URL answer 404', async () => {
    const c = await coreWith('other-issuer');
    expect((await fetch(`${c.baseUrl}/api/oauth2/token`, { method: 'POST' })).status).toBe(404);
    expect(await signIn(c)).toMatch(/\S{20,}/);
  });
});

/**
 * A hand-written peer on 127.0.0.1 that serves only the documents a test gives it, and records every request: the
 * MCP endpoint's 401 and whatever metadata an authorization server deployed elsewhere would publish. Nothing else
 * answers, so a credential sent anywhere the metadata does not point shows up as a request to an unknown path.
 */
async function peer(routes: (base: string) => Record<string, unknown>, challenge: (base: string) => string) {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(`${req.method} ${path}`);
    if (path === '/mcp') {
      res.writeHead(401, { 'www-authenticate': challenge(base), 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const doc = routes(base)[path];
    if (doc === undefined) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  peers.push(server);
  return { base, requests };
}
const peers: Server[] = [];
afterEach(async () => {
  for (const s of peers.splice(0)) await new Promise((r) => s.close(r));
});

const asDoc = (issuer: string, extra: Record<string, unknown> = {}) => ({
  issuer, token_endpoint: `${issuer}/token`, device_authorization_endpoint: `${issuer}/device/auth`, revocation_endpoint: `${issuer}/token/revocation`,
  scopes_supported: ['openid', 'offline_access', 'mcp:read', 'mcp:write'], ...extra,
});

describe('authorization servers deployed elsewhere (a hand-written peer)', () => {
  it('an issuer on a path with metadata only at /.well-known/openid-configuration/<path>: found in the MCP spec order', async () => {
    const p = await peer((b) => ({
      '/.well-known/oauth-protected-resource': { resource: b, authorization_servers: [`${b}/oidc`], scopes_supported: ['mcp:read', 'mcp:write'] },
      '/.well-known/openid-configuration/oidc': asDoc(`${b}/oidc`),
    }), (b) => `Bearer resource_metadata="${b}/.well-known/oauth-protected-resource"`);
    const endpoints = await discoverEndpoints(p.base, { timeoutMs: 5000 });
    expect(endpoints).toMatchObject({ source: 'discovery', issuer: `${p.base}/oidc`, tokenEndpoint: `${p.base}/oidc/token`, resource: p.base, revocationEndpoint: `${p.base}/oidc/token/revocation` });
    expect(p.requests).toEqual([
      'POST /mcp',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-authorization-server/oidc',
      'GET /.well-known/openid-configuration/oidc',
    ]);
    expect(resolveScopes({ preset: 'full' }, endpoints)).toBe('offline_access mcp:read mcp:write');
  });

  it('an issuer that differs by a trailing slash stops discovery naming both values; nothing is sent to built-in paths', async () => {
    const p = await peer((b) => ({
      '/.well-known/oauth-protected-resource/mcp': { resource: `${b}/mcp`, authorization_servers: [`${b}/oidc/`] },
      '/.well-known/oauth-authorization-server/oidc': asDoc(`${b}/oidc`),
    }), () => 'Bearer');
    const error = await discoverEndpoints(p.base, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect((error as Error).message).toContain(`names "${p.base}/oidc", not "${p.base}/oidc/" (RFC 8414 §3.3`);
    expect(p.requests.filter((r) => r.includes('/api/oauth2/'))).toEqual([]);
  });

  it('an authorization server without the device grant: "does not offer device sign-in (RFC 8628); use Connect"', async () => {
    const { device_authorization_endpoint: _d, ...noDevice } = asDoc('x');
    const p = await peer((b) => ({
      '/.well-known/oauth-protected-resource/mcp': { resource: `${b}/mcp`, authorization_servers: [b] },
      '/.well-known/oauth-authorization-server': { ...noDevice, issuer: b, token_endpoint: `${b}/token` },
    }), () => 'Bearer');
    await expect(discoverEndpoints(p.base, { timeoutMs: 5000 })).rejects.toThrow(/does not offer device sign-in \(RFC 8628\); use Connect/);
    // Sign-out and renewal do not need the grant: they still find the token and revocation endpoints.
    expect(await discoverServer(p.base, { timeoutMs: 5000 })).toMatchObject({ tokenEndpoint: `${p.base}/token` });
  });

  it('resource metadata naming a server with no metadata of its own: a clear error, no fallback to the MCP server', async () => {
    const p = await peer((b) => ({ '/.well-known/oauth-protected-resource/mcp': { resource: `${b}/mcp`, authorization_servers: [`${b}/idp`] } }), () => 'Bearer');
    await expect(discoverEndpoints(p.base, { timeoutMs: 5000 })).rejects.toThrow(/publishes no OAuth metadata \(RFC 8414 \/ OpenID\)/);
    expect(p.requests.filter((r) => r.includes('/api/oauth2/'))).toEqual([]);
  });

  it('the challenge\'s scope is what the sign-in asks for', async () => {
    const p = await peer((b) => ({
      '/.well-known/oauth-protected-resource/mcp': { resource: `${b}/mcp`, authorization_servers: [b], scopes_supported: ['mcp:read', 'mcp:write'] },
      '/.well-known/oauth-authorization-server': asDoc(b),
    }), (b) => `Bearer resource_metadata="${b}/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`);
    const endpoints = await discoverEndpoints(p.base, { timeoutMs: 5000 });
    expect(endpoints).toMatchObject({ scopesSupported: ['mcp:read'], scopeSource: 'challenge' });
    expect(resolveScopes({ preset: 'full' }, endpoints)).toBe('offline_access mcp:read');
  });
});

describe('the core\'s plain default and its agentstack variant', () => {
  it('plain: offline_access is only in the authorization server\'s metadata, and the sign-in still gets a refresh token', async () => {
    const c = await coreWith();
    const prm = await (await fetch(`${c.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json() as { scopes_supported: string[] };
    expect(prm.scopes_supported).not.toContain('offline_access');
    expect((await fetch(`${c.baseUrl}/.well-known/oauth-authorization-server/mcp`)).status).toBe(404);
    const endpoints = await discoverEndpoints(c.baseUrl, { timeoutMs: 5000 });
    const scope = resolveScopes({ preset: 'full' }, endpoints);
    expect(scope.split(' ')).toContain('offline_access');
    const client = { clientId: 'cursor-plugin' };
    const device = await requestDeviceCode({ endpoints, client, scope });
    await c.approve(device.user_code);
    await new Promise((r) => setTimeout(r, 1100));
    const result = await pollDeviceToken({ endpoints, client, deviceCode: device.device_code });
    expect(result.kind === 'success' && result.tokens.refresh_token).toBeTruthy();
  });

  it('agentstack: the resource metadata lists openid and offline_access, and every RFC 8414 path answers', async () => {
    const c = await coreWith('agentstack');
    const prm = await (await fetch(`${c.baseUrl}/.well-known/oauth-protected-resource/mcp`)).json() as { scopes_supported: string[] };
    expect(prm.scopes_supported).toEqual(expect.arrayContaining(['openid', 'offline_access']));
    expect((await fetch(`${c.baseUrl}/.well-known/oauth-authorization-server/mcp`)).status).toBe(200);
    expect(resolveScopes({ preset: 'full' }, await discoverEndpoints(c.baseUrl, { timeoutMs: 5000 }))).toMatch(/^openid offline_access /);
  });
});
