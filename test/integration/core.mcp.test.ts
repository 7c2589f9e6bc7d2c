import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListToolsResultSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTE_TOOL, EXECUTE_TOOL_ALIAS } from '../../lib/agentstack/server/toolNames.js';
import { JsonRpcErrorSchema } from '../../lib/schemas/server.js';
import { startCore, type RunningCore } from '../../core/index.js';

let core: RunningCore;
let token: string;
beforeAll(async () => {
  core = await startCore();
  token = (await core.issueTokens()).access_token;
});
afterAll(() => core.close());

async function connect(bearer = token) {
  const client = new Client({ name: 'core-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(core.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } });
  await client.connect(transport);
  return { client, transport };
}

const rpc = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(core.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('MCP over Streamable HTTP', () => {
  it('initialize: protocol 2025-11-25, serverInfo icons; tools/list: one tool with icons and actions_url', async () => {
    const { client, transport } = await connect();
    expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect(transport.sessionId).toBeTruthy();
    const info = client.getServerVersion()!;
    expect(info.name).toBe('agentstack');
    expect(info.icons).toEqual([{ src: `${core.baseUrl}/mcp/icon`, mimeType: 'image/png', sizes: ['64x64'] }]);
    const list = (await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema.passthrough())) as Record<string, unknown> & { tools: Array<Record<string, unknown>> };
    expect(list.tools.map((t) => t.name)).toEqual([EXECUTE_TOOL]);
    expect(list.actions_url).toBe(`${core.baseUrl}/mcp/actions`);
    expect(list.nextCursor).toBeUndefined();
    const tool = list.tools[0]!;
    expect(tool.icons).toHaveLength(1);
    expect((tool.inputSchema as { required: string[] }).required).toEqual(['steps']);
    await client.close();
  });

  it('tools/call by both names runs steps; failures are isError', async () => {
    const { client, transport } = await connect();
    for (const name of [EXECUTE_TOOL, EXECUTE_TOOL_ALIAS]) {
      const res = await client.callTool({ name, arguments: { steps: [{ id: 'a', action: 'system.ping', params: { echo: name } }, { id: 'b', action: 'auth.get_profile' }, { id: 'c', action: 'projects.list' }] } });
      expect(res.isError).toBeFalsy();
      const sc = res.structuredContent as { ok: boolean; results: Array<{ id: string; ok: boolean; data: Record<string, unknown> }> };
      expect(sc.ok).toBe(true);
      expect(sc.results.map((r) => r.id)).toEqual(['a', 'b', 'c']);
      expect(sc.results[0]!.data).toMatchObject({ pong: true, echo: name });
      expect(sc.results[1]!.data).toMatchObject({ email: 'dev@agentstack.test' });
      expect(JSON.parse((res.content as Array<{ text: string }>)[0]!.text)).toEqual(sc);
    }
    const bad = await client.callTool({ name: EXECUTE_TOOL, arguments: { steps: [{ id: 'x', action: 'nope.nothing' }, { id: 'y', action: 'system.ping' }] } });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent as { results: Array<{ error: { code: string } }> }).results).toHaveLength(1);
    const go = await client.callTool({ name: EXECUTE_TOOL, arguments: { steps: [{ id: 'x', action: 'nope' }, { id: 'y', action: 'system.ping' }], options: { stopOnError: false } } });
    expect((go.structuredContent as { results: unknown[] }).results).toHaveLength(2);
    const dry = await client.callTool({ name: EXECUTE_TOOL, arguments: { steps: [{ id: 'w', action: 'projects.create', params: { name: 'x' } }], options: { dry_run: true } } });
    expect(dry.structuredContent).toMatchObject({ ok: true, dry_run: true });
    const invalid = await client.callTool({ name: EXECUTE_TOOL, arguments: { steps: 'no' } });
    expect(invalid.isError).toBe(true);
    await expect(client.callTool({ name: 'other.tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    // DELETE ends the session; the id is then unknown -> 404
    const sid = transport.sessionId!;
    await transport.terminateSession();
    const after = await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/list' }, { 'mcp-session-id': sid, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });
    expect(after.status).toBe(404);
  });

  it('missing capability fails the step', async () => {
    const limited = await core.issueTokens({ scope: 'openid profile:read' });
    const { client } = await connect(limited.access_token);
    const res = await client.callTool({ name: EXECUTE_TOOL, arguments: { steps: [{ id: 'p', action: 'projects.list' }] } });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.structuredContent)).toContain('missing_capability');
    await client.close();
  });

  it('a null-caps API key token verifies on /mcp; operator-only actions are refused to members', async () => {
    const key = await core.issueTokens({ scope: 'openid profile:read', claims: { token_type: 'user_api_key', service_caps: null, caps: null } });
    const { client } = await connect(key.access_token);
    const res = await client.callTool({ name: EXECUTE_TOOL, arguments: { steps: [{ id: 'p', action: 'projects.list' }, { id: 'q', action: 'admin.users.list' }] } });
    const results = (res.structuredContent as { results: Array<{ ok: boolean; error?: { code: string } }> }).results;
    expect(results[0]!.ok).toBe(true);
    expect(results[1]!.error?.code).toBe('forbidden');
    await client.close();
  });

  it('401 with WWW-Authenticate resource_metadata; 403 on a foreign Origin; 400 on bad JSON; 404 on unknown session', async () => {
    const none = await fetch(core.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${core.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
    const forged = await fetch(core.mcpUrl, { method: 'POST', headers: { authorization: 'Bearer abc.def.ghi' }, body: '{}' });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const expired = await core.issueTokens({ accessTokenTtl: 1 });
    await new Promise((r) => setTimeout(r, 2100));
    const exp = await fetch(core.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${expired.access_token}` }, body: '{}' });
    expect(exp.status).toBe(401);
    expect((await rpc({}, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: core.baseUrl })).status).toBe(400); // allowed origin, no session
    expect((await rpc('{not json')).status).toBe(400);
    const unknown = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': 'nope' });
    expect(unknown.status).toBe(404);
  });

  it('counts requests by METHOD /path', () => {
    expect(core.counters.requests['POST /mcp']).toBeGreaterThan(5);
  });
});

describe('MCP faults', () => {
  it('secondTool same-page and page2 (nextCursor)', async () => {
    const { client } = await connect();
    core.setFaults({ secondTool: 'same-page' });
    const same = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    expect(same.tools.map((t) => t.name)).toEqual([EXECUTE_TOOL, 'agentstack.help']);
    core.setFaults({ secondTool: 'page2' });
    const p1 = await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    expect(p1.tools.map((t) => t.name)).toEqual([EXECUTE_TOOL]);
    expect(p1.nextCursor).toBe('page2');
    const p2 = await client.request({ method: 'tools/list', params: { cursor: p1.nextCursor } }, ListToolsResultSchema);
    expect(p2.tools.map((t) => t.name)).toEqual(['agentstack.help']);
    core.setFaults({ secondTool: false });
    await client.close();
  });

  it('expireSessions: known sessions answer 404 once; a new session works', async () => {
    const { client, transport } = await connect();
    core.setFaults({ expireSessions: true });
    await expect(client.listTools()).rejects.toThrow(/404|Session not found/);
    const sid = transport.sessionId!;
    const again = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': sid });
    expect(again.status).toBe(404);
    const fresh = await connect();
    expect((await fresh.client.listTools()).tools).toHaveLength(1);
    await fresh.client.close();
  });

  it('sessionNotFoundCode answers a JSON-RPC error with that code instead of 404', async () => {
    core.setFaults({ sessionNotFoundCode: -32016 });
    const res = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, { 'mcp-session-id': 'gone' });
    expect(res.status).toBe(200);
    const body = JsonRpcErrorSchema.parse(await res.json());
    expect(body.error.code).toBe(-32016);
    core.setFaults({ sessionNotFoundCode: null });
  });

  it('noIcons removes icons from serverInfo and the tool', async () => {
    core.setFaults({ noIcons: true });
    const { client } = await connect();
    expect(client.getServerVersion()!.icons).toBeUndefined();
    expect((await client.listTools()).tools[0]!.icons).toBeUndefined();
    core.setFaults({ noIcons: false });
    await client.close();
  });

  it('restToolsDrift: the REST tool rows lose their icons and change description; tools/list does not', async () => {
    const rest = async (method: string, path: string) =>
      ((await (await fetch(core.baseUrl + path, { method, headers: { authorization: `Bearer ${token}` } })).json()) as { tools: Array<Record<string, unknown>> }).tools;
    const { client } = await connect();
    const rpcTools = (await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema.passthrough())).tools as Array<Record<string, unknown>>;
    expect(await rest('GET', '/mcp/tools')).toEqual(rpcTools);
    core.setFaults({ restToolsDrift: true });
    expect((await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema.passthrough())).tools).toEqual(rpcTools);
    for (const [method, path] of [['GET', '/mcp/tools'], ['GET', '/mcp/tools/list'], ['POST', '/mcp/tools/list']] as const) {
      const [row] = await rest(method, path);
      expect(row!.name).toBe(EXECUTE_TOOL);
      expect(row!.icons).toBeUndefined();
      expect(row!.description).not.toBe(rpcTools[0]!.description);
      expect(row!.inputSchema).toEqual(rpcTools[0]!.inputSchema);
    }
    core.setFaults({ restToolsDrift: false });
    expect(await rest('GET', '/mcp/tools')).toEqual(rpcTools);
    await client.close();
  });

  it('closeCallStream: the SDK\'s own client resumes the closed stream with GET + Last-Event-ID and gets the result', async () => {
    core.setFaults({ closeCallStream: 1, sseRetryMs: 200 });
    const seen: Array<{ method: string; lastEventId: string | null }> = [];
    const watching = (async (input: string | URL | Request, init?: RequestInit) => {
      seen.push({ method: init?.method ?? 'GET', lastEventId: new Headers(init?.headers).get('last-event-id') });
      return fetch(input, init);
    }) as typeof fetch;
    const transport = new StreamableHTTPClientTransport(new URL(core.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: watching });
    const client = new Client({ name: 'core-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const started = Date.now();
      const result = await client.callTool({ name: EXECUTE_TOOL, arguments: { steps: [{ id: 'p', action: 'system.ping' }] } }, undefined, { timeout: 5000 });
      expect(result.isError).not.toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
      expect(seen.filter((s) => s.method === 'GET' && s.lastEventId)).toHaveLength(1);
    } finally {
      core.setFaults({ closeCallStream: false, sseRetryMs: null });
      await client.close();
    }
  });

  it("endpointFaults.mcp '5xx' with times", async () => {
    core.setFaults({ endpointFaults: { mcp: { kind: '5xx', times: 1 } } });
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(503);
    expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(400);
    core.setFaults({ endpointFaults: {} });
  });
});
