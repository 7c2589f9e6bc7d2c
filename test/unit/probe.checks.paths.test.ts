/**
 * The probe's check rows on the paths probe.checks.test.ts leaves open: a 401/403 with the server's own reason, the
 * ways a lost session ends (re-initialize refused, retry failed, a session id refused without the expiry the probe
 * recognises), and the smaller wordings (two icon problems, a tool error found past an entry without one, the schema's
 * own message). Each row is pinned as a person reads it: id, status, summary, fix, details.
 */
import { describe, expect, it } from 'vitest';
import {
  authFailureCheck, callCheck, callResultProblem, resumeCheck, sessionCheck, toolIconsCheck, toolNameDotCheck, toolsListCheck,
} from '../../lib/agentstack/probe/checks.js';
import { inspectTool } from '../../lib/agentstack/probe/toolsList.js';
import type { Exchange, ProbeEvent, ToolsWalk } from '../../lib/agentstack/probe/types.js';

const ICON = { src: 'https://x/mcp/icon', mimeType: 'image/png', sizes: ['64x64'] };
const ICON_FIX = 'serve icons: [{src: "<base>/mcp/icon", mimeType: "image/png", sizes: ["64x64"]}]';
const SESSION = 'abcdef0123456789';
const MASKED = 'abcd************';

function walkOf(tools: Array<Record<string, unknown>>): ToolsWalk {
  return { pages: 1, tools: tools.map((t) => inspectTool(t, 1)), rows: [], actionsUrls: ['https://x/mcp/actions'] };
}
const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, inputSchema: { type: 'object' }, icons: [ICON], ...extra });

describe('tool rows', () => {
  it('a malformed tool: the whole row, under mcp.tools_list', () => {
    const walk = walkOf([tool('agentstack.execute'), { name: 'b', inputSchema: { type: 'string' } }]);
    expect(toolsListCheck(walk)).toEqual({
      id: 'mcp.tools_list', status: 'FAIL', summary: '1 malformed tool in tools/list: b on page 1: inputSchema is missing or not {type: "object"}',
      fix: 'fix the tool definitions (name, inputSchema {type: "object"}, icons)',
      details: { pages: 1, tools: [{ page: 1, name: 'agentstack.execute', problems: [] }, { page: 1, name: 'b', problems: ['inputSchema is missing or not {type: "object"}'] }] },
    });
  });

  it('the dot warning when agentstack.execute is one of several tools, none when nothing is listed', () => {
    expect(toolNameDotCheck(walkOf([tool('echo'), tool('agentstack.execute')]))?.id).toBe('mcp.tool_name_dot');
    expect(toolNameDotCheck(walkOf([tool('echo'), tool('agentstack.execute')]))?.status).toBe('WARN');
    expect(toolNameDotCheck(walkOf([]))).toBeNull();
  });

  it('every problem of the tool\'s icons, separated by "; "', () => {
    expect(toolIconsCheck(walkOf([tool('agentstack.execute', { icons: [{}, { src: 1 }] })]))).toEqual({
      id: 'mcp.tool_icons', status: 'FAIL', summary: 'agentstack.execute icons are malformed: icons[0] has no string src; icons[1] has no string src', fix: `${ICON_FIX} on the tool`,
    });
  });
});

describe('tools/call wording', () => {
  const what = 'tools/call agentstack.execute {system.ping}';
  const capabilities = "check the token's capabilities and the server logs";

  it('isError with structured content that names no error: the text block is quoted', () => {
    const text = [{ type: 'text', text: 'denied by policy' }];
    for (const structuredContent of [{}, { results: [{}, { ok: true }] }]) {
      expect(callCheck('agentstack.execute', { kind: 'ok', ms: 1, result: { isError: true, structuredContent, content: text } })).toEqual({
        id: 'mcp.call_canonical', status: 'FAIL', summary: `${what} returned isError: denied by policy`, fix: capabilities,
      });
    }
  });

  it('not a CallToolResult: the path and the schema\'s own message; a result that is no object at all is at (root)', () => {
    expect(callResultProblem({ content: [{ type: 'text', text: 'ok' }], isError: 'no' }))
      .toBe('not a valid CallToolResult at isError (Invalid input: expected boolean, received string)');
    const list = Object.assign([], { content: [{ type: 'text', text: 'ok' }] }) as unknown as Record<string, unknown>;
    expect(callResultProblem(list)).toBe('not a valid CallToolResult at (root) (Invalid input: expected object, received array)');
  });
});

describe('authFailureCheck with the server\'s reason', () => {
  const url = 'https://x/mcp';
  const reasonFix = "do what the server's reason asks (often the host name or address it allows: use that URL, or change its allowed hosts); a token does not change a Host or Origin check";

  it('403: the server\'s words in place of our guess, worded by whether a Bearer was sent', () => {
    expect(authFailureCheck(403, true, url, 'mcp.tools_list', 'Host not allowed')).toEqual({
      id: 'mcp.tools_list', status: 'FAIL', summary: `${url} answered 403 although a Bearer was sent; the server said: "Host not allowed"`, fix: reasonFix,
    });
    expect(authFailureCheck(403, false, url, 'mcp.initialize', 'Origin refused')).toEqual({
      id: 'mcp.initialize', status: 'FAIL', summary: `${url} answered 403 to a request without a Bearer; the server said: "Origin refused"`, fix: reasonFix,
    });
  });

  it('401 keeps its own wording and fix, with the server\'s words added', () => {
    expect(authFailureCheck(401, false, url, 'mcp.initialize', 'token required')).toEqual({
      id: 'mcp.initialize', status: 'FAIL', summary: `${url} answered 401: no Bearer was sent; the server said: "token required"`,
      fix: 'sign in first, or pass a token with --token-env NAME',
    });
  });

  it('a reason with any other status is still no auth failure', () => {
    expect(authFailureCheck(500, true, url, 'mcp.initialize', 'Host not allowed')).toBeNull();
    expect(authFailureCheck(null, true, url, 'mcp.initialize', 'Host not allowed')).toBeNull();
  });
});

describe('sessionCheck: how a lost session ended', () => {
  const reinit = (during: string): ProbeEvent => ({ kind: 'reinitialized', during, reason: 'HTTP 404' });
  const lifetime = "fine after a server restart; if it happens often, check the server's session lifetime";

  it('the new initialize refused: FAIL with both reasons and the events', () => {
    const events: ProbeEvent[] = [reinit('tools/call'), { kind: 'reinitialize_failed', during: 'tools/call', reason: 'HTTP 503' }];
    expect(sessionCheck('legacy', SESSION, events)).toEqual({
      id: 'mcp.session', status: 'FAIL', summary: 'session expired during tools/call (HTTP 404); re-initializing failed: HTTP 503',
      fix: 'the server must accept a new initialize once a session is gone (check its session limit and restarts)', details: { events },
    });
  });

  it('the retry failed for another reason: WARN pointing at that row, with the events', () => {
    const events: ProbeEvent[] = [reinit('tools/list'), { kind: 'retry_failed', during: 'tools/list', reason: 'HTTP 500' }];
    expect(sessionCheck('legacy', SESSION, events)).toEqual({
      id: 'mcp.session', status: 'WARN',
      summary: 'session expired during tools/list (HTTP 404); re-initialized on a new transport, but the retry failed for another reason (HTTP 500, see that row)',
      fix: lifetime, details: { events },
    });
  });
});

describe('sessionCheck: a session id the server refused without an expiry the probe reads', () => {
  const post = (seq: number, status: number, extra: Partial<Exchange> = {}): Exchange =>
    ({ seq, httpMethod: 'POST', url: 'https://x/mcp', sent: { authorization: true, sessionId: MASKED }, atMs: seq, durationMs: 1, status, ...extra });
  const fix = 'answer an unknown or expired session with HTTP 404 (JSON-RPC -32001), so clients start a new one';

  it('once: the status and the method, no count', () => {
    const exchanges = [post(1, 200, { sent: { authorization: true } }), post(2, 404, { rpcMethod: 'tools/list' })];
    expect(sessionCheck('legacy', SESSION, [], exchanges)).toEqual({
      id: 'mcp.session', status: 'WARN',
      summary: 'the session id was answered HTTP 404 on tools/list, in a way the probe does not read as an expired session; it was not re-initialized',
      fix, details: { refused: [{ seq: 2, status: 404, rpcMethod: 'tools/list' }] },
    });
  });

  it('several times: the first one, how many, each in the details (no method: "a request", null)', () => {
    const exchanges = [post(3, 400), post(4, 404, { rpcMethod: 'tools/call' })];
    expect(sessionCheck('legacy', SESSION, [], exchanges)).toEqual({
      id: 'mcp.session', status: 'WARN',
      summary: 'the session id was answered HTTP 400 on a request (2 times), in a way the probe does not read as an expired session; it was not re-initialized',
      fix, details: { refused: [{ seq: 3, status: 400, rpcMethod: null }, { seq: 4, status: 404, rpcMethod: 'tools/call' }] },
    });
  });

  it('only a POST counts: a GET or DELETE answered 404, or a POST without a session id, leaves the session held', () => {
    const exchanges = [post(1, 404, { httpMethod: 'GET' }), post(2, 404, { httpMethod: 'DELETE' }), post(3, 404, { sent: { authorization: true } }), post(4, 500)];
    expect(sessionCheck('legacy', SESSION, [], exchanges)).toEqual({ id: 'mcp.session', status: 'PASS', summary: `session ${MASKED} held for the whole probe` });
  });
});

describe('resumeCheck', () => {
  it('the status shown is the one of the resume that worked, not an earlier 300', () => {
    const resume = (seq: number, status: number): Exchange =>
      ({ seq, httpMethod: 'GET', url: 'https://x/mcp', sent: { authorization: true, lastEventId: `e${seq}` }, atMs: seq, durationMs: 1, status });
    expect(resumeCheck([resume(1, 300), resume(2, 200)])?.summary)
      .toBe('a response stream closed before its result; resumed it with GET + Last-Event-ID (2 times, HTTP 200)');
  });
});
