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
import { discoverEndpoints, pollDeviceToken, requestDeviceCode } from '../../lib/agentstack/auth/oauth.js';
import { scopeStringFor } from '../../lib/agentstack/auth/scopes.js';
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
