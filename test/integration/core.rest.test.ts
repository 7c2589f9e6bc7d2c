import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITY_SCOPES } from '../../lib/agentstack/auth/scopes.js';
import { ActionsCatalogSchema, ActionsSummarySchema, HealthSchema, MeSchema, SwitchProjectSchema } from '../../lib/schemas/server.js';
import { EXECUTE_TOOL } from '../../lib/agentstack/server/toolNames.js';
import { pngSize, startCore, type RunningCore } from '../../core/index.js';
import { decodeJwt, pollToken, startDevice } from '../../core/testing.js';
import { expectWithinDeadline } from '../helpers/deadline.js';

let core: RunningCore;
let auth: Record<string, string>;
beforeAll(async () => {
  core = await startCore({ interval: 1 });
  auth = { authorization: `Bearer ${(await core.issueTokens()).access_token}` };
});
afterAll(() => core.close());
const get = (path: string, headers: Record<string, string> = auth) => fetch(core.baseUrl + path, { headers });

describe('REST surface', () => {
  it('/mcp/actions matches the plugin schema, has ETag and answers 304', async () => {
    expect((await get('/mcp/actions', {})).status).toBe(401);
    const res = await get('/mcp/actions');
    const catalog = ActionsCatalogSchema.parse(await res.json()) as { entrypoint: string; total_actions: number; catalog_etag: string; domains: Record<string, Array<{ action: string; required_cap: string | null; doc_audience: string; category: string }>> };
    expect(catalog.entrypoint).toBe(EXECUTE_TOOL);
    const all = Object.values(catalog.domains).flat();
    expect(catalog.total_actions).toBe(all.length);
    expect(all.map((a) => a.action)).toEqual(expect.arrayContaining(['system.ping', 'auth.get_profile', 'projects.list', 'admin.users.list', 'internal.reindex']));
    for (const a of all) if (a.required_cap) expect(CAPABILITY_SCOPES).toContain(a.required_cap);
    expect(all.find((a) => a.action === 'admin.users.list')).toMatchObject({ doc_audience: 'operator', category: 'admin' });
    expect(all.find((a) => a.action === 'internal.reindex')?.doc_audience).toBe('internal');
    expect(catalog).toEqual(core.actionsCatalog());
    const etag = res.headers.get('etag')!;
    expect(etag).toBe(`"${catalog.catalog_etag}"`);
    expect((await get('/mcp/actions', { ...auth, 'if-none-match': etag })).status).toBe(304);
    const summary = ActionsSummarySchema.parse(await (await get('/mcp/actions/summary', {})).json());
    expect(summary).toEqual({ total_actions: catalog.total_actions, catalog_etag: catalog.catalog_etag });
  });

  it('cache clear, tools mirrors, discovery, health', async () => {
    expect((await fetch(`${core.baseUrl}/mcp/cache/clear`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${core.baseUrl}/mcp/cache/clear`, { method: 'POST', headers: auth })).status).toBe(204);
    const rows: unknown[] = [];
    for (const [method, path] of [['GET', '/mcp/tools'], ['GET', '/mcp/tools/list'], ['POST', '/mcp/tools/list']] as const) {
      const body = (await (await fetch(core.baseUrl + path, { method, headers: auth })).json()) as { tools: Array<{ name: string }> };
      expect(body.tools.map((t) => t.name)).toEqual([EXECUTE_TOOL]);
      rows.push(body.tools[0]);
    }
    expect(rows[1]).toEqual(rows[0]);
    expect(rows[2]).toEqual(rows[0]);
    const disc = (await (await get('/mcp/discovery')).json()) as { tool: Record<string, unknown>; api_key_context: Record<string, unknown> };
    expect(disc.tool.name).toBe(EXECUTE_TOOL);
    expect(disc.tool.icons).toBeUndefined();
    expect(disc.api_key_context.user_id).toBe('usr_dev_0001');
    expect(HealthSchema.parse(await (await get('/mcp/health', {})).json())).toEqual({ ok: true, mcp_surface_tools: 1 });
  });

  it('/mcp/icon is a real 64x64 PNG with CORS *; badIcon breaks it', async () => {
    const res = await get('/mcp/icon', { origin: 'https://elsewhere.example' });
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(pngSize(new Uint8Array(await res.arrayBuffer()))).toEqual({ width: 64, height: 64 });
    core.setFaults({ badIcon: true });
    expect(pngSize(new Uint8Array(await (await get('/mcp/icon', {})).arrayBuffer()))).toBeNull();
    core.setFaults({ badIcon: false });
  });

  it('/api/auth/me and /api/auth/switch-project', async () => {
    const me = MeSchema.parse(await (await get('/api/auth/me')).json());
    expect(me.data).toEqual({ user_id: 'usr_dev_0001', email: 'dev@agentstack.test', display_name: 'Dev User', role: 'member' });
    const post = (body: string) => fetch(`${core.baseUrl}/api/auth/switch-project`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
    const sw = SwitchProjectSchema.parse(await (await post(JSON.stringify({ target_project_id: 3 }))).json());
    expect(decodeJwt(sw.data.access_token)).toMatchObject({ project_id: 3, aud: core.mcpUrl, sub: 'usr_dev_0001' });
    const asProject = await get('/mcp/discovery', { authorization: `Bearer ${sw.data.access_token}` });
    expect(((await asProject.json()) as { api_key_context: { project_id: number } }).api_key_context.project_id).toBe(3);
    expect((await post(JSON.stringify({ target_project_id: 1 }))).status).toBe(400);
    expect((await post('{bad json')).status).toBe(400);
    expect((await post(JSON.stringify({ target_project_id: 2, pad: 'x'.repeat(20_000) }))).status).toBe(413);
  });
});

describe('fault options', () => {
  it('endpoint faults: 5xx, malformed, oversized, reset, hang (times honoured)', async () => {
    core.setFaults({ endpointFaults: { me: { kind: '5xx', times: 1 }, health: { kind: 'malformed' }, actions: { kind: 'oversized', times: 1 }, icon: { kind: 'reset', times: 1 }, as_metadata: { kind: 'hang', times: 1 } } });
    expect((await get('/api/auth/me')).status).toBe(503);
    expect((await get('/api/auth/me')).status).toBe(200);
    const mal = await get('/mcp/health', {});
    expect(mal.status).toBe(200);
    await expect(mal.json()).rejects.toThrow();
    const big = await get('/mcp/actions');
    expect((await big.arrayBuffer()).byteLength).toBeGreaterThan(10 * 1024 * 1024);
    await expect(get('/mcp/icon', {})).rejects.toThrow();
    await expect(fetch(`${core.baseUrl}/.well-known/oauth-authorization-server`, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    core.setFaults({ endpointFaults: {} });
  });

  it("endpoint faults on OAuth routes: device '5xx', token 'malformed', protected_resource 'reset'", async () => {
    core.setFaults({ endpointFaults: { device: { kind: '5xx', times: 1 }, token: { kind: 'malformed', times: 1 }, protected_resource: { kind: 'reset', times: 1 } } });
    await expect(startDevice(core.baseUrl)).rejects.toThrow(/503/);
    const dev = await startDevice(core.baseUrl);
    const mal = await pollToken(core.baseUrl, dev.device_code);
    expect(mal.status).toBe(200);
    expect(typeof mal.body.raw).toBe('string'); // not JSON
    await expect(get('/.well-known/oauth-protected-resource/mcp', {})).rejects.toThrow();
    expect((await get('/.well-known/oauth-protected-resource/mcp', {})).status).toBe(200);
    core.setFaults({ endpointFaults: {} });
  });

  it('hostileVerificationUri, slowDown, alwaysPending, interval, accessTokenTtl, noRefreshTokens', async () => {
    core.setFaults({ hostileVerificationUri: 'javascript:alert(1)', interval: 3 });
    const d1 = await startDevice(core.baseUrl);
    expect(d1.verification_uri).toBe('javascript:alert(1)');
    expect(d1.verification_uri_complete).toBe('javascript:alert(1)');
    expect(d1.interval).toBe(3);
    core.setFaults({ hostileVerificationUri: null, interval: 1, slowDown: 2 });
    const d2 = await startDevice(core.baseUrl);
    await core.approve(d2.user_code);
    expect((await pollToken(core.baseUrl, d2.device_code)).body.error).toBe('slow_down');
    expect((await pollToken(core.baseUrl, d2.device_code)).body.error).toBe('slow_down');
    core.setFaults({ alwaysPending: true });
    expect((await pollToken(core.baseUrl, d2.device_code)).body.error).toBe('authorization_pending');
    core.setFaults({ alwaysPending: false, enforceInterval: false, accessTokenTtl: 42, noRefreshTokens: true });
    const tok = await pollToken(core.baseUrl, d2.device_code);
    expect(tok.body.expires_in).toBe(42);
    expect(tok.body.refresh_token).toBeUndefined();
    core.setFaults({ enforceInterval: true, accessTokenTtl: 3600, noRefreshTokens: false });
  });

  it('noDiscovery 404s every /.well-known document; actionsCountMismatch skews total_actions', async () => {
    core.setFaults({ noDiscovery: true, actionsCountMismatch: true });
    for (const p of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      expect((await get(p, {})).status).toBe(404);
    }
    const catalog = ActionsCatalogSchema.parse(await (await get('/mcp/actions')).json());
    expect(catalog.total_actions).toBe(Object.values(catalog.domains).flat().length + 3);
    core.setFaults({ noDiscovery: false, actionsCountMismatch: false });
  });

  it('connectStub serves a 200 Connect page at /mcp/.well-known/oauth-authorize; without it the path is not served', async () => {
    expect((await get('/mcp/.well-known/oauth-authorize', {})).status).toBeGreaterThanOrEqual(400);
    core.setFaults({ connectStub: true });
    const res = await get('/mcp/.well-known/oauth-authorize', {});
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('data-page="connect-stub"');
    core.setFaults({ connectStub: false });
    expect((await get('/mcp/.well-known/oauth-authorize', {})).status).toBeGreaterThanOrEqual(400);
  });

  it('close() does not hang on hung requests', async () => {
    // An idle core's close, in this run: what closing costs here now.
    const idle = await startCore();
    let t = performance.now();
    await idle.close();
    const baselineMs = performance.now() - t;
    const c = await startCore({ faults: { endpointFaults: { health: { kind: 'hang' } } } });
    const pending = fetch(`${c.baseUrl}/mcp/health`).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    t = performance.now();
    await c.close();
    const closed = performance.now() - t;
    expect(await pending).toBeInstanceOf(Error);
    expectWithinDeadline(closed, { baselineMs, what: 'closing a core with a hung request' });
  });
});
