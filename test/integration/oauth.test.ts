import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import {
  discoverEndpoints, pollDeviceToken, refreshAccessToken, requestDeviceCode, type OAuthEndpoints,
} from '../../lib/agentstack/auth/oauth.js';
import { BUILTIN_TOKEN_PATH } from '../../lib/agentstack/auth/discovery.js';
import { scopeStringFor } from '../../lib/agentstack/auth/scopes.js';
import { flattenCatalog } from '../../lib/agentstack/snapshot/catalog.js';
import { fetchCatalog } from '../../lib/agentstack/snapshot/fetch.js';

let core: RunningCore;
beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
});
afterAll(async () => core?.close());

const client = { clientId: 'cursor-plugin' };

describe('oauth kernel against the reference core', () => {
  it('discovers the endpoints through RFC 9728 + RFC 8414', async () => {
    const endpoints = await discoverEndpoints(core.baseUrl);
    expect(endpoints).toMatchObject({ source: 'discovery', resource: `${core.baseUrl}/mcp`, tokenEndpoint: `${core.baseUrl}${BUILTIN_TOKEN_PATH}` });
    expect(endpoints.deviceAuthorizationEndpoint).toBe(`${core.baseUrl}/api/oauth2/device/authorize`);
  });

  it('uses the built-in paths only when the server publishes no metadata at all, and says so', async () => {
    core.setFaults({ noDiscovery: true });
    try {
      const endpoints = await discoverEndpoints(core.baseUrl);
      expect(endpoints.source).toBe('builtin');
      expect(endpoints.note).toBe(`no OAuth metadata (RFC 9728 / RFC 8414) at ${core.mcpUrl}; using AgentStack's built-in endpoints on ${core.baseUrl}`);
    } finally {
      core.setFaults({ noDiscovery: false });
    }
  });

  it('runs a device flow step by step, then refreshes with rotation; a replay is invalid_grant', async () => {
    const endpoints: OAuthEndpoints = await discoverEndpoints(core.baseUrl);
    const device = await requestDeviceCode({ endpoints, client, scope: scopeStringFor('full') });
    expect(device.interval).toBe(1);
    expect(await pollDeviceToken({ endpoints, client, deviceCode: device.device_code })).toEqual({ kind: 'pending' });
    await core.approve(device.user_code);
    await new Promise((r) => setTimeout(r, 1100));
    const result = await pollDeviceToken({ endpoints, client, deviceCode: device.device_code });
    if (result.kind !== 'success') throw new Error(`expected success, got ${JSON.stringify(result)}`);
    expect(result.tokens.refresh_token).toBeTruthy();
    const args = { tokenEndpoint: endpoints.tokenEndpoint, clientId: 'cursor-plugin', resource: endpoints.resource, mcpUrl: core.mcpUrl };
    const next = await refreshAccessToken({ ...args, refreshToken: result.tokens.refresh_token! });
    expect(next.access_token).not.toBe(result.tokens.access_token);
    const replay = await refreshAccessToken({ ...args, refreshToken: result.tokens.refresh_token! }).catch((e) => e);
    expect(replay.code).toBe('invalid_grant');
    expect(replay.message).not.toContain(result.tokens.refresh_token!);

    const catalog = await fetchCatalog({ baseUrl: core.baseUrl, token: next.access_token });
    if (catalog.kind !== 'ok') throw new Error('expected a catalog');
    const snapshot = flattenCatalog(catalog.catalog);
    expect(snapshot.actions.length).toBeGreaterThan(0);
    expect(snapshot.actions.map((a) => a.action)).not.toContain('admin.users.list');
    expect(snapshot.actions.map((a) => a.action)).not.toContain('internal.reindex');
    expect(await fetchCatalog({ baseUrl: core.baseUrl, token: next.access_token, etag: snapshot.catalog_etag })).toEqual({ kind: 'not_modified' });
  });

  it('maps a denial to access_denied and a 5xx to a transient server error', async () => {
    const endpoints = await discoverEndpoints(core.baseUrl);
    const device = await requestDeviceCode({ endpoints, client, scope: scopeStringFor('readonly') });
    core.setFaults({ endpointFaults: { token: { kind: '5xx', times: 1 } } });
    const failed = await pollDeviceToken({ endpoints, client, deviceCode: device.device_code });
    expect(failed).toMatchObject({ kind: 'error', transient: true, error: { code: 'server' } });
    await core.approve(device.user_code, { deny: true });
    await new Promise((r) => setTimeout(r, 1100));
    const denied = await pollDeviceToken({ endpoints, client, deviceCode: device.device_code });
    expect(denied).toMatchObject({ kind: 'error', transient: false, error: { code: 'access_denied' } });
  });
});
