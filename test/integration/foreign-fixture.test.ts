// The foreign deployment itself, driven by a plain RFC 8628 client (fetch, no plugin code): proves that what the
// plugin's tests see is the deployment's behaviour, not a fixture bug. Approval goes over HTTP through
// oidc-provider's own pages (test/helpers/foreignApproval.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { FOREIGN_CLIENT_ID, FOREIGN_PROFILES, startForeignDeployment, type ForeignDeployment } from '../fixtures/foreignDeployment.js';
import { approveOverHttp } from '../helpers/foreignApproval.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
let deployment: ForeignDeployment | undefined;
afterEach(async () => { await deployment?.close(); deployment = undefined; });

async function post(url: string, params: Record<string, string>): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

async function mcpInitialize(d: ForeignDeployment, token?: string) {
  return fetch(d.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'plain', version: '1' } } }),
  });
}

async function metadata(d: ForeignDeployment, url = `${d.issuer}/.well-known/openid-configuration`) {
  return (await (await fetch(url)).json()) as Record<string, any>;
}

async function plainSignIn(d: ForeignDeployment, scope: string | null) {
  const as = await metadata(d);
  const device = await post(as.device_authorization_endpoint, { client_id: FOREIGN_CLIENT_ID, resource: d.resource, ...(scope ? { scope } : {}) });
  expect(device.status).toBe(200);
  expect(await approveOverHttp(device.json.verification_uri_complete)).toBe('Sign-in Success');
  const token = await post(as.token_endpoint, { grant_type: DEVICE_GRANT, device_code: device.json.device_code, client_id: FOREIGN_CLIENT_ID, resource: d.resource });
  return { as, token };
}

describe('the foreign deployment (oidc-provider, issuer on a path, opaque tokens, MCP server on another origin)', () => {
  it('publishes RFC 9728 and RFC 8414 metadata the way the profile says, and challenges without a token', async () => {
    deployment = await startForeignDeployment(FOREIGN_PROFILES['offline-access-in-as-only']);
    const unauthenticated = await mcpInitialize(deployment);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${deployment.resourceMetadataUrl}"`);
    const prm = await metadata(deployment, deployment.resourceMetadataUrl);
    expect(prm).toMatchObject({ resource: deployment.mcpUrl, authorization_servers: [deployment.issuer], scopes_supported: ['mcp:read', 'mcp:write'] });
    const as = await metadata(deployment);
    expect(as.issuer).toBe(deployment.issuer);
    expect(as.scopes_supported).toEqual(['openid', 'offline_access']);
    expect(as.device_authorization_endpoint).toBe(`${deployment.issuer}/device/auth`);
    expect(as.revocation_endpoint).toBe(deployment.revocationEndpoint);
    expect((await fetch(`${new URL(deployment.issuer).origin}/.well-known/oauth-authorization-server/oidc`)).status).toBe(404);
    expect((await fetch(`${new URL(deployment.issuer).origin}/.well-known/openid-configuration/oidc`)).status).toBe(404);
  });

  it('a plain device client gets an opaque token for the resource and a refresh token; renewal and revocation work', async () => {
    deployment = await startForeignDeployment(FOREIGN_PROFILES['offline-access-in-as-only']);
    const { as, token } = await plainSignIn(deployment, 'mcp:read mcp:write offline_access');
    expect(token.status).toBe(200);
    expect(token.json).toMatchObject({ token_type: 'Bearer', expires_in: 90, scope: 'mcp:read mcp:write' });
    expect(token.json.access_token.split('.')).toHaveLength(1); // opaque, not a JWT
    expect(typeof token.json.refresh_token).toBe('string');
    expect((await mcpInitialize(deployment, token.json.access_token)).status).toBe(200);
    const refreshed = await post(as.token_endpoint, { grant_type: 'refresh_token', refresh_token: token.json.refresh_token, client_id: FOREIGN_CLIENT_ID, resource: deployment.resource });
    expect(refreshed.status).toBe(200);
    expect((await mcpInitialize(deployment, refreshed.json.access_token)).status).toBe(200);
    const revoked = await fetch(as.revocation_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: token.json.refresh_token, client_id: FOREIGN_CLIENT_ID }) });
    expect(revoked.status).toBe(200);
    expect((await deployment.introspect(token.json.refresh_token)).active).toBe(false);
  });

  it('a token for another resource is refused: invalid_target at the AS', async () => {
    deployment = await startForeignDeployment(FOREIGN_PROFILES['resource-by-origin']);
    const as = await metadata(deployment);
    const wrong = await post(as.device_authorization_endpoint, { client_id: FOREIGN_CLIENT_ID, resource: deployment.mcpUrl, scope: 'mcp:read' });
    expect(wrong.json.error).toBe('invalid_target');
    const right = await post(as.device_authorization_endpoint, { client_id: FOREIGN_CLIENT_ID, resource: deployment.resource, scope: 'mcp:read' });
    expect(right.status).toBe(200);
  });

  it('an expired token is answered 401 error="invalid_token" with the resource metadata', async () => {
    deployment = await startForeignDeployment(FOREIGN_PROFILES['expires-no-refresh']);
    const { token } = await plainSignIn(deployment, 'mcp:read mcp:write');
    expect(token.json.expires_in).toBe(4);
    expect(token.json.refresh_token).toBeUndefined();
    expect((await mcpInitialize(deployment, token.json.access_token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 4_500));
    const expired = await mcpInitialize(deployment, token.json.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", .*resource_metadata="/);
  });

  it('each profile changes only its own fact', async () => {
    const origin = (d: ForeignDeployment) => new URL(d.issuer).origin;
    deployment = await startForeignDeployment(FOREIGN_PROFILES['refresh-no-expires-in']);
    const noExpiry = await plainSignIn(deployment, 'mcp:read offline_access');
    expect(noExpiry.token.json.expires_in).toBeUndefined();
    expect(typeof noExpiry.token.json.refresh_token).toBe('string');
    await deployment.close();
    deployment = await startForeignDeployment(FOREIGN_PROFILES['openid-path-inserted']);
    expect((await fetch(`${deployment.issuer}/.well-known/openid-configuration`)).status).toBe(404);
    expect((await metadata(deployment, `${origin(deployment)}/.well-known/openid-configuration/oidc`)).issuer).toBe(deployment.issuer);
    await deployment.close();
    deployment = await startForeignDeployment(FOREIGN_PROFILES['issuer-trailing-slash']);
    expect((await metadata(deployment)).issuer).toBe(`${deployment.issuer}/`);
    await deployment.close();
    deployment = await startForeignDeployment(FOREIGN_PROFILES['challenge-scope']);
    expect((await mcpInitialize(deployment)).headers.get('www-authenticate')).toContain('scope="mcp:read"');
    await deployment.close();
    deployment = await startForeignDeployment(FOREIGN_PROFILES['no-scopes-advertised']);
    expect((await metadata(deployment)).scopes_supported).toBeUndefined();
    expect((await metadata(deployment, deployment.resourceMetadataUrl)).scopes_supported).toBeUndefined();
    const unscoped = await plainSignIn(deployment, null);
    expect(unscoped.token.status).toBe(200);
    expect((await mcpInitialize(deployment, unscoped.token.json.access_token)).status).toBe(200);
    await deployment.close();
    deployment = await startForeignDeployment(FOREIGN_PROFILES['no-device-grant']);
    expect((await metadata(deployment)).device_authorization_endpoint).toBeUndefined();
    await deployment.close();
    deployment = await startForeignDeployment(FOREIGN_PROFILES['resource-by-origin']);
    expect(await metadata(deployment, `${new URL(deployment.mcpUrl).origin}/.well-known/oauth-protected-resource`)).toMatchObject({ resource: new URL(deployment.mcpUrl).origin });
  }, 30_000);
});
