import { describe, expect, it } from 'vitest';
import { callCheck, sessionCheck, singleToolCheck, terminateCheck, toolIconsCheck, toolNameDotCheck, toolsListCheck, initializeCheck, serverIconsCheck } from '../../lib/agentstack/probe/checks.js';
import { describeError, httpStatusOf } from '../../lib/agentstack/probe/describeError.js';
import { describeBody, recordingFetch } from '../../lib/agentstack/probe/recordingFetch.js';
import { sessionExpiryReason } from '../../lib/agentstack/probe/session.js';
import { inspectTool, walkToolsList } from '../../lib/agentstack/probe/toolsList.js';
import type { ToolsWalk } from '../../lib/agentstack/probe/types.js';
import { PluginError } from '../../lib/platform/errors.js';

const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, inputSchema: { type: 'object' }, icons: [{ src: 'https://x/mcp/icon', mimeType: 'image/png', sizes: ['64x64'] }], ...extra });

/** A fake paged tools/list: pages[i] is the result for the i-th request. */
function pager(pages: Array<Record<string, unknown>>) {
  const cursors: Array<string | undefined> = [];
  return { cursors, request: async (cursor: string | undefined, page: number) => (cursors.push(cursor), pages[page - 1]!) };
}

describe('tools/list walk', () => {
  it('follows every nextCursor and keeps each page\'s tools and actions_url', async () => {
    const p = pager([{ tools: [tool('agentstack.execute')], nextCursor: 'a', actions_url: 'https://x/mcp/actions' }, { tools: [tool('extra')] }]);
    const walk = await walkToolsList(p.request);
    expect(p.cursors).toEqual([undefined, 'a']);
    expect(walk.pages).toBe(2);
    expect(walk.tools.map((t) => [t.name, t.page])).toEqual([['agentstack.execute', 1], ['extra', 2]]);
    expect(walk.rows).toHaveLength(2);
    expect(walk.actionsUrls).toEqual(['https://x/mcp/actions', null]);
    expect(walk.stopped).toBeUndefined();
  });

  it('stops on a repeated cursor and reports the loop', async () => {
    const walk = await walkToolsList(async () => ({ tools: [], nextCursor: 'same' }));
    expect(walk.pages).toBe(2);
    expect(walk.stopped).toMatch(/repeats the cursor "same"/);
    expect(toolsListCheck(walk).status).toBe('FAIL');
  });

  it('stops at the page cap', async () => {
    let n = 0;
    const walk = await walkToolsList(async () => ({ tools: [], nextCursor: `c${n++}` }), 5);
    expect(walk.pages).toBe(5);
    expect(walk.stopped).toMatch(/after 5 pages/);
  });

  it('reports a page without a tools array instead of throwing', async () => {
    const walk = await walkToolsList(async () => ({ nope: true }));
    expect(walk.stopped).toMatch(/no tools array/);
  });

  it('validates each tool itself, so one malformed tool is reported and the others kept', async () => {
    const walk = await walkToolsList(async () => ({ tools: [tool('agentstack.execute'), { name: 42 }, tool('bad name!'), 'x', tool('ok', { icons: [{}] })] }));
    expect(walk.tools).toHaveLength(5);
    const check = toolsListCheck(walk);
    expect(check.status).toBe('FAIL');
    expect(check.summary).toMatch(/4 malformed tools/);
    expect(inspectTool({ name: 'a', inputSchema: { type: 'string' } }, 1).problems[0]).toMatch(/inputSchema/);
    expect(inspectTool(tool('agentstack.execute'), 1).problems).toEqual([]);
  });
});

const walkOf = (names: Array<string | [string, number]>, extra: Partial<ToolsWalk> = {}): ToolsWalk => {
  const tools = names.map((n) => (Array.isArray(n) ? inspectTool(tool(n[0]), n[1]) : inspectTool(tool(n), 1)));
  return { pages: Math.max(1, ...tools.map((t) => t.page)), tools, rows: [], actionsUrls: ['https://x/mcp/actions'], ...extra };
};

describe('contract checks', () => {
  it('passes exactly one agentstack.execute', () => {
    expect(singleToolCheck(walkOf(['agentstack.execute'])).status).toBe('PASS');
  });

  it('fails a second tool on the same page and names it', () => {
    const c = singleToolCheck(walkOf(['agentstack.execute', 'agentstack.help']));
    expect(c.status).toBe('FAIL');
    expect(c.summary).toContain('agentstack.help');
  });

  it('fails a second tool on page 2 and says which page', () => {
    const c = singleToolCheck(walkOf([['agentstack.execute', 1], ['agentstack.help', 2]]));
    expect(c.summary).toContain('agentstack.help (page 2)');
  });

  it('fails a listed alias with its own message', () => {
    const c = singleToolCheck(walkOf(['agentstack.execute', 'agentstack_execute']));
    expect(c.status).toBe('FAIL');
    expect(c.summary).toMatch(/alias must be accepted on tools\/call, never listed/);
  });

  it('says a surface without agentstack.execute is not AgentStack\'s', () => {
    const c = singleToolCheck(walkOf(['echo', 'add']));
    expect(c.summary).toMatch(/not AgentStack's/);
    expect(toolNameDotCheck(walkOf(['echo']))).toBeNull();
    expect(toolIconsCheck(walkOf(['echo']))).toBeNull();
  });

  it('warns (never fails) about the dot in the tool name', () => {
    expect(toolNameDotCheck(walkOf(['agentstack.execute']))?.status).toBe('WARN');
    // The alias is not listed: clients that check a name against tools/list before calling (MCP Inspector 2.12)
    // refuse it, so the advice must say whom it helps.
    const dot = toolNameDotCheck(walkOf(['agentstack.execute']))!;
    expect(dot.fix).toMatch(/clients that pass any tool name to tools\/call \(the MCP SDK client, an agent told the name\)/);
    expect(dot.fix).toMatch(/clients that only call names tools\/list returned \(MCP Inspector\) cannot/);
  });

  it('fails missing tool icons, warns missing server icons', () => {
    const walk = walkOf([]);
    walk.tools.push(inspectTool({ name: 'agentstack.execute', inputSchema: { type: 'object' } }, 1));
    expect(toolIconsCheck(walk)?.status).toBe('FAIL');
    expect(serverIconsCheck({ name: 's' }).status).toBe('WARN');
    expect(serverIconsCheck({ name: 's', icons: [{ src: 'https://x/i.png', mimeType: 'image/png', sizes: ['64x64'] }] }).status).toBe('PASS');
    expect(serverIconsCheck({ name: 's', icons: 'nope' }).status).toBe('WARN');
  });

  it('warns an older negotiated protocol, passes 2025-11-25 and the 2026 revision', () => {
    expect(initializeCheck({ era: 'legacy', protocolVersion: '2025-06-18' }).status).toBe('WARN');
    expect(initializeCheck({ era: 'legacy', protocolVersion: '2025-11-25', sessionId: 'abcdef0123456789' }).summary).not.toContain('abcdef0123456789');
    expect(initializeCheck({ era: 'modern', protocolVersion: '2026-07-28' }).summary).toMatch(/server\/discover/);
  });

  it('fails a tools/call that errors or returns isError, with the reason', () => {
    expect(callCheck('agentstack_execute', { kind: 'failed', error: 'HTTP 500', ms: 3 }).id).toBe('mcp.call_alias');
    const c = callCheck('agentstack.execute', { kind: 'ok', ms: 2, result: { isError: true, structuredContent: { ok: false, results: [{ error: { message: 'system.ping requires capability x' } }] } } });
    expect(c).toMatchObject({ id: 'mcp.call_canonical', status: 'FAIL' });
    expect(c.summary).toContain('requires capability x');
    expect(callCheck('agentstack.execute', { kind: 'ok', ms: 2, result: { content: [{ type: 'text', text: '{}' }] } }).status).toBe('PASS');
  });

  it('session: PASS when held, WARN after a successful re-initialize, FAIL when it expires again', () => {
    expect(sessionCheck('legacy', 'sid-0123456789', []).status).toBe('PASS');
    const w = sessionCheck('legacy', 'sid', [{ kind: 'reinitialized', during: 'tools/list page 1', reason: 'HTTP 404 (session not found)' }]);
    expect(w.status).toBe('WARN');
    expect(w.summary).toMatch(/re-initialized on a new transport and the retry passed/);
    expect(sessionCheck('legacy', 'sid', [{ kind: 'reinitialized', during: 'x', reason: 'r' }, { kind: 'session_expired_again', during: 'x', reason: 'r' }]).status).toBe('FAIL');
    expect(sessionCheck('modern', undefined, []).status).toBe('PASS');
  });

  it('session: a refused re-initialize FAILs, a retry that failed otherwise is never "the retry passed"', () => {
    const lost = { kind: 'reinitialized' as const, during: 'tools/list page 1', reason: 'HTTP 404 (session not found)' };
    const refused = sessionCheck('legacy', 'sid', [lost, { kind: 'reinitialize_failed', during: 'tools/list page 1', reason: 'HTTP 503' }]);
    expect(refused).toMatchObject({ status: 'FAIL', summary: 'session expired during tools/list page 1 (HTTP 404 (session not found)); re-initializing failed: HTTP 503' });
    const other = sessionCheck('legacy', 'sid', [lost, { kind: 'retry_failed', during: 'tools/list page 1', reason: 'HTTP 500' }]);
    expect(other.status).toBe('WARN');
    expect(other.summary).toMatch(/re-initialized on a new transport, but the retry failed for another reason \(HTTP 500/);
    expect(other.summary).not.toMatch(/retry passed/);
  });

  it('session: never "held" when a request carrying the session id was answered 400 or 404', () => {
    const x = (status: number, sessionId?: string) => ({ seq: 3, httpMethod: 'POST', url: 'u', rpcMethod: 'tools/list', sent: { authorization: false, ...(sessionId ? { sessionId } : {}) }, status, durationMs: 1, atMs: 0 });
    const c = sessionCheck('legacy', 'sid-0123456789', [], [x(400, 'sid-***')]);
    expect(c).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/answered HTTP 400 on tools\/list.*not re-initialized/) });
    expect(sessionCheck('legacy', 'sid-0123456789', [], [x(200, 'sid-***'), x(400)]).status).toBe('PASS');
  });

  it('terminate: 200 and 405 pass, other answers warn', () => {
    const del = (status: number) => [{ seq: 1, httpMethod: 'DELETE', url: 'u', sent: { authorization: true }, status, durationMs: 1, atMs: 0 }];
    expect(terminateCheck('legacy', { terminated: true }, del(200)).status).toBe('PASS');
    expect(terminateCheck('legacy', { terminated: true }, del(405)).status).toBe('PASS');
    expect(terminateCheck('legacy', { terminated: false, error: 'x' }, del(500)).status).toBe('WARN');
    expect(terminateCheck('legacy', { terminated: true }, []).status).toBe('PASS');
  });
});

describe('session expiry and error text', () => {
  it('treats a 404, -32001 and -32016 as an expired session, but not the SDK\'s own timeout', () => {
    expect(sessionExpiryReason(Object.assign(new Error('Streamable HTTP error: Error POSTing to endpoint: {}'), { code: 404 }))).toMatch(/HTTP 404/);
    expect(sessionExpiryReason(Object.assign(new Error('MCP error -32001: Session not found'), { code: -32001 }))).toMatch(/-32001/);
    expect(sessionExpiryReason(Object.assign(new Error('MCP error -32016: Session not found'), { code: -32016 }))).toMatch(/-32016/);
    expect(sessionExpiryReason(Object.assign(new Error('MCP error -32001: Request timed out'), { code: -32001, data: { timeout: 10 } }))).toBeNull();
    expect(sessionExpiryReason(Object.assign(new Error('Streamable HTTP error: x'), { code: 400 }))).toBeNull();
    const httpRpc = (status: number, code: number) => Object.assign(new Error(`Streamable HTTP error: Error POSTing to endpoint: {"jsonrpc":"2.0","id":null,"error":{"code":${code},"message":"Session not found"}}`), { code: status });
    expect(sessionExpiryReason(httpRpc(400, -32001))).toBe('HTTP 400, JSON-RPC error -32001 (Session not found)');
    expect(sessionExpiryReason(httpRpc(500, -32016))).toBe('HTTP 500, JSON-RPC error -32016 (Session not found)');
    expect(sessionExpiryReason(httpRpc(500, -32603))).toBeNull();
    expect(sessionExpiryReason(new PluginError('timeout', 'No answer'))).toBeNull();
  });

  it('never quotes a raw body: only the status and a JSON-RPC or OAuth error, cut short', () => {
    const e = Object.assign(new Error('Streamable HTTP error: Error POSTing to endpoint: <html>secret stack trace</html>'), { code: 502 });
    expect(httpStatusOf(e)).toBe(502);
    expect(describeError(e)).toBe('HTTP 502');
    const rpc = Object.assign(new Error('Streamable HTTP error: Error POSTing to endpoint: {"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}}'), { code: 400 });
    expect(describeError(rpc)).toBe('HTTP 400 (JSON-RPC -32000 Bad Request)');
    const oauth = Object.assign(new Error('Streamable HTTP error: Error POSTing to endpoint: {"error":"invalid_token","error_description":"expired"}'), { code: 401 });
    expect(describeError(oauth)).toBe('HTTP 401 (invalid_token: expired)');
    expect(describeError(new PluginError('timeout', 'No answer from u within 1 s'))).toBe('No answer from u within 1 s');
  });
});

describe('recording fetch', () => {
  it('records method, tool name, status, content type and masked session ids, never the Authorization value', async () => {
    // The server takes at least 60 ms to answer: the recorded duration covers the wait (a lower bound holds under load).
    const inner = (async () => {
      await new Promise((r) => setTimeout(r, 60));
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': 'session-secret-1234567890' } });
    }) as typeof fetch;
    const rec = recordingFetch(inner);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'agentstack.execute' } });
    await rec.fetch('http://127.0.0.1/mcp', { method: 'POST', headers: { authorization: 'Bearer tok-SECRET-abcdefghijkl', 'mcp-session-id': 'session-secret-1234567890', 'mcp-protocol-version': '2025-11-25' }, body });
    const [x] = rec.exchanges;
    expect(x).toMatchObject({ httpMethod: 'POST', rpcMethod: 'tools/call', toolName: 'agentstack.execute', status: 200, contentType: 'application/json', sent: { authorization: true, protocolVersion: '2025-11-25' } });
    const text = JSON.stringify(rec.exchanges);
    expect(text).not.toContain('tok-SECRET');
    expect(text).not.toContain('session-secret-1234567890');
    expect(x!.durationMs).toBeGreaterThanOrEqual(55);
  });

  it('answers the standalone GET stream locally with 405 and records why', async () => {
    let called = false;
    const rec = recordingFetch((async () => ((called = true), new Response(''))) as typeof fetch);
    const res = await rec.fetch('http://127.0.0.1/mcp', { method: 'GET' });
    expect(res.status).toBe(405);
    expect(called).toBe(false);
    expect(rec.exchanges[0]!.note).toMatch(/not opened/);
  });

  it('records a failed exchange and rethrows', async () => {
    const rec = recordingFetch((async () => { throw new PluginError('network', 'Could not reach x'); }) as typeof fetch);
    await expect(rec.fetch('http://127.0.0.1/mcp', { method: 'POST', body: '[{"method":"a"},{"method":"b"}]' })).rejects.toThrow('Could not reach');
    expect(rec.exchanges[0]).toMatchObject({ rpcMethod: 'a,b', error: 'Could not reach x' });
    expect(describeBody('not json')).toEqual({});
  });
});
