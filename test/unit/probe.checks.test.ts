/**
 * The probe's checks word by word: each row's id, status, summary, fix and details are what a person reads in the
 * report, so every branch is pinned whole, not only its status.
 */
import { describe, expect, it } from 'vitest';
import {
  actionsUrlCheck, authFailureCheck, callCheck, callResultProblem, callSkippedCheck, initializeCheck, resumeCheck, serverIconsCheck,
  sessionCheck, singleToolCheck, terminateCheck, toolIconsCheck, toolNameDotCheck, toolsListCheck,
} from '../../lib/agentstack/probe/checks.js';
import { inspectTool } from '../../lib/agentstack/probe/toolsList.js';
import type { Exchange, ProbeEvent, ToolsWalk } from '../../lib/agentstack/probe/types.js';

const ICON = { src: 'https://x/mcp/icon', mimeType: 'image/png', sizes: ['64x64'] };
const ICON_FIX = 'serve icons: [{src: "<base>/mcp/icon", mimeType: "image/png", sizes: ["64x64"]}]';
const SESSION = 'abcdef0123456789';
const MASKED = 'abcd************';

/** A walk of well-formed tools; `[name, page]` puts a tool on a later page. */
function walkOf(names: Array<string | [string, number]>, extra: Partial<ToolsWalk> = {}): ToolsWalk {
  const tools = names.map((n) => (Array.isArray(n) ? [n[0], n[1]] as const : [n, 1] as const))
    .map(([name, page]) => inspectTool({ name, inputSchema: { type: 'object' }, icons: [ICON] }, page));
  return { pages: Math.max(1, ...tools.map((t) => t.page)), tools, rows: [], actionsUrls: ['https://x/mcp/actions'], ...extra };
}

describe('initializeCheck', () => {
  it('the stateless revision: who answered, the protocol, the time', () => {
    expect(initializeCheck({ era: 'modern', protocolVersion: '2026-07-28', serverInfo: { name: 'core', version: '1.2' } }, 12.6)).toEqual({
      id: 'mcp.initialize', status: 'PASS',
      summary: 'server/discover answered by core 1.2: protocol 2026-07-28 (stateless revision, no initialize), 13 ms',
      details: { era: 'modern', protocolVersion: '2026-07-28' },
    });
    expect(initializeCheck({ era: 'modern' }).summary).toBe('server/discover answered by an unnamed server: protocol 2026-07-28 (stateless revision, no initialize)');
  });

  it('an older protocol than offered: WARN with the masked session and the upgrade to make', () => {
    expect(initializeCheck({ era: 'legacy', protocolVersion: '2025-06-18', serverInfo: { name: 'x' }, sessionId: SESSION }, 3)).toEqual({
      id: 'mcp.initialize', status: 'WARN',
      summary: `initialize answered by x with the older protocol 2025-06-18 (offered 2025-11-25); session ${MASKED}, 3 ms`,
      fix: "upgrade the server's MCP SDK: Cursor sends 2025-11-25, and icons need it",
      details: { era: 'legacy', protocolVersion: '2025-06-18', session: MASKED },
    });
  });

  it('the offered protocol, or a newer one, passes; a server without a session id is stateless', () => {
    expect(initializeCheck({ era: 'legacy', protocolVersion: '2025-11-25', serverInfo: {} })).toEqual({
      id: 'mcp.initialize', status: 'PASS',
      summary: 'initialize answered by ?: protocol 2025-11-25, no session id (stateless server)',
      details: { era: 'legacy', protocolVersion: '2025-11-25', session: null },
    });
    expect(initializeCheck({ era: 'legacy', protocolVersion: '2026-01-01', sessionId: SESSION }).status).toBe('PASS');
    expect(initializeCheck({ era: 'legacy' }).summary).toBe('initialize answered by an unnamed server: protocol ?, no session id (stateless server)');
  });
});

describe('icons', () => {
  it('serverInfo: none, malformed (each problem), well-formed (count, type, sizes)', () => {
    expect(serverIconsCheck(undefined)).toEqual({
      id: 'mcp.server_icons', status: 'WARN', summary: 'serverInfo has no icons; Cursor shows a generic logo for the server', fix: `${ICON_FIX} on serverInfo`,
    });
    expect(serverIconsCheck({ icons: [{}, { src: 1 }] })).toEqual({
      id: 'mcp.server_icons', status: 'WARN', summary: 'serverInfo.icons is malformed: icons[0] has no string src; icons[1] has no string src', fix: `${ICON_FIX} on serverInfo`,
    });
    expect(serverIconsCheck({ icons: [{ ...ICON, sizes: ['64x64', '128x128'] }] })).toEqual({ id: 'mcp.server_icons', status: 'PASS', summary: 'serverInfo has 1 icon (image/png 64x64,128x128)' });
    expect(serverIconsCheck({ icons: [{ src: 'https://x/a' }, ICON] }).summary).toBe('serverInfo has 2 icons (no mimeType)');
  });

  it('the tool: not there, no icons, malformed, well-formed', () => {
    expect(toolIconsCheck(walkOf(['echo']))).toBeNull();
    const bare = walkOf([]);
    bare.tools.push(inspectTool({ name: 'agentstack.execute', inputSchema: { type: 'object' } }, 1));
    expect(toolIconsCheck(bare)).toEqual({
      id: 'mcp.tool_icons', status: 'FAIL', summary: 'agentstack.execute has no icons; Cursor shows no logo next to the tool', fix: `${ICON_FIX} on the tool`,
    });
    const broken = walkOf([]);
    broken.tools.push(inspectTool({ name: 'agentstack.execute', inputSchema: { type: 'object' }, icons: 'nope' }, 1));
    expect(toolIconsCheck(broken)).toEqual({
      id: 'mcp.tool_icons', status: 'FAIL', summary: 'agentstack.execute icons are malformed: icons is not an array', fix: `${ICON_FIX} on the tool`,
    });
    expect(toolIconsCheck(walkOf(['echo', 'agentstack.execute']))).toEqual({ id: 'mcp.tool_icons', status: 'PASS', summary: 'agentstack.execute has 1 icon (image/png 64x64)' });
  });
});

describe('tools/list', () => {
  it('paging that broke fails with the reason and every tool seen', () => {
    const walk = walkOf([['agentstack.execute', 2]], { stopped: 'the server repeats the cursor "a"' });
    expect(toolsListCheck(walk)).toEqual({
      id: 'mcp.tools_list', status: 'FAIL', summary: 'tools/list paging broke: the server repeats the cursor "a"', fix: 'end paging with no nextCursor once every tool was listed',
      details: { pages: 2, tools: [{ page: 2, name: 'agentstack.execute', problems: [] }] },
    });
  });

  it('malformed tools: counted, the first three named with their first problem', () => {
    const walk = walkOf(['agentstack.execute']);
    walk.tools.push(inspectTool({ inputSchema: { type: 'object' } }, 1));
    const one = toolsListCheck(walk);
    expect(one.status).toBe('FAIL');
    expect(one.summary).toBe('1 malformed tool in tools/list: (no name) on page 1: name is missing or not a string');
    expect(one.fix).toBe('fix the tool definitions (name, inputSchema {type: "object"}, icons)');
    for (const name of ['b', 'c', 'd']) walk.tools.push(inspectTool({ name, inputSchema: { type: 'string' } }, 2));
    expect(toolsListCheck(walk).summary).toBe('4 malformed tools in tools/list: (no name) on page 1: name is missing or not a string; '
      + 'b on page 2: inputSchema is missing or not {type: "object"}; c on page 2: inputSchema is missing or not {type: "object"}');
  });

  it('a clean walk: tools and pages counted in words', () => {
    expect(toolsListCheck(walkOf(['agentstack.execute']))).toEqual({
      id: 'mcp.tools_list', status: 'PASS', summary: '1 tool on 1 page (every nextCursor followed)',
      details: { pages: 1, tools: [{ page: 1, name: 'agentstack.execute', problems: [] }] },
    });
    expect(toolsListCheck(walkOf(['a', ['b', 2]])).summary).toBe('2 tools on 2 pages (every nextCursor followed)');
  });
});

describe('singleToolCheck', () => {
  const notOurs = "point the URL at AgentStack's <base>/mcp, or make the server list exactly one tool, agentstack.execute";

  it('no agentstack.execute: names what is listed (six at most)', () => {
    expect(singleToolCheck(walkOf([]))).toEqual({ id: 'mcp.single_tool', status: 'FAIL', summary: "no agentstack.execute among 0 tools: this MCP surface is not AgentStack's", fix: notOurs });
    expect(singleToolCheck(walkOf(['echo'])).summary).toBe("no agentstack.execute among 1 tool (echo): this MCP surface is not AgentStack's");
    expect(singleToolCheck(walkOf(['a', 'b', 'c', 'd', 'e', 'f', ['g', 2]])).summary)
      .toBe("no agentstack.execute among 7 tools (a (page 1), b (page 1), c (page 1), d (page 1), e (page 1), f (page 1), …): this MCP surface is not AgentStack's");
    expect(singleToolCheck(walkOf(['a', 'b', 'c', 'd', 'e', 'f'])).summary).toBe("no agentstack.execute among 6 tools (a, b, c, d, e, f): this MCP surface is not AgentStack's");
  });

  it('the alias listed: its own message, with the page', () => {
    expect(singleToolCheck(walkOf(['agentstack.execute', ['agentstack_execute', 2]]))).toEqual({
      id: 'mcp.single_tool', status: 'FAIL',
      summary: 'agentstack_execute is listed (page 2) next to agentstack.execute: the alias must be accepted on tools/call, never listed',
      fix: 'remove agentstack_execute from tools/list',
    });
  });

  it('more than one tool: the others named (or the duplicate), with their pages', () => {
    const fix = 'list only agentstack.execute, on every page behind nextCursor; other operations are actions inside it';
    expect(singleToolCheck(walkOf(['agentstack.execute', 'help']))).toEqual({
      id: 'mcp.single_tool', status: 'FAIL', summary: "2 tools listed (help besides agentstack.execute); AgentStack's contract is exactly one tool", fix,
    });
    expect(singleToolCheck(walkOf(['agentstack.execute', ['agentstack.execute', 2]])).summary)
      .toBe("2 tools listed (agentstack.execute listed twice; agentstack.execute (page 1,2), agentstack.execute (page 1,2) besides agentstack.execute); AgentStack's contract is exactly one tool");
    const unnamed = walkOf(['agentstack.execute']);
    unnamed.tools.push(inspectTool({ inputSchema: { type: 'object' } }, 1));
    expect(singleToolCheck(unnamed).summary).toBe("2 tools listed ((no name) besides agentstack.execute); AgentStack's contract is exactly one tool");
  });

  it('exactly one: PASS; the dot warning only when it is listed', () => {
    expect(singleToolCheck(walkOf(['agentstack.execute']))).toEqual({ id: 'mcp.single_tool', status: 'PASS', summary: 'exactly one tool: agentstack.execute' });
    expect(toolNameDotCheck(walkOf(['echo']))).toBeNull();
    expect(toolNameDotCheck(walkOf(['agentstack.execute']))).toEqual({
      id: 'mcp.tool_name_dot', status: 'WARN', summary: 'agentstack.execute contains a dot; some Cursor builds drop such tool names (reported)',
      fix: 'where the tool is missing, agentstack_execute (accepted on tools/call, never listed) helps clients that pass any tool name to tools/call (the MCP SDK client, an agent told the name); clients that only call names tools/list returned (MCP Inspector) cannot use it',
    });
  });
});

describe('actionsUrlCheck', () => {
  it('missing, not https, https', () => {
    expect(actionsUrlCheck(walkOf([], { actionsUrls: [] }))).toEqual({
      id: 'mcp.actions_url', status: 'FAIL', summary: 'the tools/list result has no actions_url', fix: 'add actions_url: "<base>/mcp/actions" to the tools/list result',
    });
    expect(actionsUrlCheck(walkOf([], { actionsUrls: [null, 'https://x/mcp/actions'] })).status).toBe('FAIL');
    expect(actionsUrlCheck(walkOf([], { actionsUrls: ['http://example.com/mcp/actions'] }))).toEqual({
      id: 'mcp.actions_url', status: 'FAIL', summary: 'actions_url "http://example.com/mcp/actions" is not an https URL', fix: 'serve actions_url as https://<host>/mcp/actions',
    });
    expect(actionsUrlCheck(walkOf([]))).toEqual({ id: 'mcp.actions_url', status: 'PASS', summary: 'actions_url https://x/mcp/actions' });
  });
});

describe('tools/call', () => {
  const what = 'tools/call agentstack.execute {system.ping}';

  it('callResultProblem: no content, empty or not a list, invalid block, valid', () => {
    expect(callResultProblem({})).toBe('no content (a CallToolResult must carry content)');
    expect(callResultProblem({ content: [] })).toBe('content is not a non-empty list of content blocks');
    expect(callResultProblem({ content: 'text' })).toBe('content is not a non-empty list of content blocks');
    expect(callResultProblem({ content: [{ type: 'text', text: 'ok' }], isError: 'no' })).toMatch(/^not a valid CallToolResult at isError \(\S.*\)$/);
    expect(callResultProblem({ content: [{ type: 'text', text: 'ok' }] })).toBeNull();
  });

  it('a failed call: FAIL with the error, under the id of the name called', () => {
    expect(callCheck('agentstack.execute', { kind: 'failed', error: 'HTTP 500', ms: 3 })).toEqual({
      id: 'mcp.call_canonical', status: 'FAIL', summary: `${what} failed: HTTP 500`, fix: 'the server must accept agentstack.execute on tools/call and run system.ping',
    });
    expect(callCheck('agentstack_execute', { kind: 'failed', error: 'x', ms: 3 }).id).toBe('mcp.call_alias');
  });

  it('isError: the structured message, else the first text block, else none; an unknown tool gets its own fix', () => {
    const capabilities = "check the token's capabilities and the server logs";
    expect(callCheck('agentstack.execute', { kind: 'ok', ms: 1, result: { isError: true, structuredContent: { error: { message: 'boom' } }, content: [{ type: 'text', text: 'other' }] } })).toEqual({
      id: 'mcp.call_canonical', status: 'FAIL', summary: `${what} returned isError: boom`, fix: capabilities,
    });
    expect(callCheck('agentstack.execute', { kind: 'ok', ms: 1, result: { isError: true, structuredContent: { results: [{}, { error: { message: 'second' } }] } } }).summary)
      .toBe(`${what} returned isError: second`);
    const byText = callCheck('agentstack_execute', { kind: 'ok', ms: 1, result: { isError: true, content: [{ type: 'image', text: 'not this' }, { type: 'text', text: 'Unknown tool: agentstack_execute' }] } });
    expect(byText).toEqual({
      id: 'mcp.call_alias', status: 'FAIL', summary: 'tools/call agentstack_execute {system.ping} returned isError: Unknown tool: agentstack_execute',
      fix: "the server does not know agentstack_execute: not AgentStack's endpoint, or the alias is missing",
    });
    expect(callCheck('agentstack.execute', { kind: 'ok', ms: 1, result: { isError: true, content: [{ type: 'text', text: 'Tool NOT FOUND' }] } }).fix).toMatch(/^the server does not know/);
    expect(callCheck('agentstack.execute', { kind: 'ok', ms: 1, result: { isError: true, content: 'x' } })).toMatchObject({ summary: `${what} returned isError: no error text`, fix: capabilities });
    expect(callCheck('agentstack.execute', { kind: 'ok', ms: 1, result: { isError: true, content: [{ type: 'text', text: 5 }] } }).summary).toBe(`${what} returned isError: no error text`);
  });

  it('answered without isError but not a CallToolResult: FAIL naming the problem; a good one PASSes with its time', () => {
    expect(callCheck('agentstack.execute', { kind: 'ok', ms: 1, result: { isError: 'true' } })).toEqual({
      id: 'mcp.call_canonical', status: 'FAIL', summary: `${what} answered, but no content (a CallToolResult must carry content)`,
      fix: 'answer tools/call with {content: [{type: "text", text: …}], structuredContent?, isError?}',
    });
    expect(callCheck('agentstack.execute', { kind: 'ok', ms: 2.6, result: { content: [{ type: 'text', text: '{}' }] } })).toEqual({
      id: 'mcp.call_canonical', status: 'PASS', summary: `${what} answered a CallToolResult without error (3 ms)`,
    });
  });

  it('nothing called: one WARN per name, under the ids a call would have had', () => {
    const fix = "point the URL at AgentStack's <base>/mcp; the probe only calls agentstack.execute where the server lists it";
    expect(callSkippedCheck('no agentstack.execute listed')).toEqual([
      { id: 'mcp.call_alias', status: 'WARN', summary: 'tools/call agentstack_execute not called: no agentstack.execute listed', fix },
      { id: 'mcp.call_canonical', status: 'WARN', summary: 'tools/call agentstack.execute not called: no agentstack.execute listed', fix },
    ]);
  });
});

describe('authFailureCheck', () => {
  const url = 'https://x/mcp';
  it('401 and 403, with and without a Bearer; any other status is not an auth failure', () => {
    expect(authFailureCheck(401, true, url)).toEqual({
      id: 'mcp.initialize', status: 'FAIL', summary: `${url} answered 401 although a Bearer was sent: the Bearer was not accepted (expired or revoked?)`,
      fix: 'sign in again (device-code login), or pass a fresh token with --token-env NAME',
    });
    expect(authFailureCheck(401, false, url, 'mcp.tools_list')).toEqual({
      id: 'mcp.tools_list', status: 'FAIL', summary: `${url} answered 401: no Bearer was sent`, fix: 'sign in first, or pass a token with --token-env NAME',
    });
    expect(authFailureCheck(403, true, url)).toEqual({
      id: 'mcp.initialize', status: 'FAIL', summary: `${url} answered 403 although a Bearer was sent: the token was refused (scope, account, or Origin policy)`,
      fix: "sign in with an account and scopes that may use this MCP server; check the server's Origin rules",
    });
    expect(authFailureCheck(403, false, url)).toEqual({
      id: 'mcp.initialize', status: 'FAIL', summary: `${url} answered 403 to a request without a Bearer: the server forbids it before any token is checked (Origin, IP or policy)`,
      fix: "sign in first, or pass a token with --token-env NAME; if it persists, check the server's Origin and network rules",
    });
    expect(authFailureCheck(500, true, url)).toBeNull();
    expect(authFailureCheck(null, false, url)).toBeNull();
  });
});

describe('sessionCheck', () => {
  const expired: ProbeEvent = { kind: 'session_expired_again', during: 'tools/list', reason: 'HTTP 404' };
  const reinit = (during: string): ProbeEvent => ({ kind: 'reinitialized', during, reason: 'HTTP 404' });

  it('stateless revision, expired twice, re-initialized (once, twice), held, no session', () => {
    expect(sessionCheck('modern', SESSION, [expired])).toEqual({ id: 'mcp.session', status: 'PASS', summary: '2026-07-28 has no sessions; every request stood alone' });
    const both = [reinit('tools/call'), expired];
    expect(sessionCheck('legacy', SESSION, both)).toEqual({
      id: 'mcp.session', status: 'FAIL', summary: 'session expired during tools/list (session not found), and again (HTTP 404) even right after a fresh initialize',
      fix: 'the server (or a proxy in front of it) forgets sessions immediately: check its session store, sticky routing, restarts', details: { events: both },
    });
    const once = [reinit('tools/call')];
    expect(sessionCheck('legacy', SESSION, once)).toEqual({
      id: 'mcp.session', status: 'WARN', summary: 'session expired during tools/call (HTTP 404); re-initialized on a new transport and the retry passed',
      fix: "fine after a server restart; if it happens often, check the server's session lifetime", details: { events: once },
    });
    expect(sessionCheck('legacy', SESSION, [reinit('tools/list'), reinit('tools/call')]).summary)
      .toBe('session expired during tools/list (HTTP 404); re-initialized on a new transport and the retry passed (2 times)');
    expect(sessionCheck('legacy', SESSION, [])).toEqual({ id: 'mcp.session', status: 'PASS', summary: `session ${MASKED} held for the whole probe` });
    expect(sessionCheck('legacy', undefined, [])).toEqual({ id: 'mcp.session', status: 'PASS', summary: 'stateless server (no Mcp-Session-Id); nothing to expire' });
  });
});

const exchange = (seq: number, httpMethod: string, extra: Partial<Exchange> = {}): Exchange =>
  ({ seq, httpMethod, url: 'https://x/mcp', sent: { authorization: true }, atMs: seq * 10, durationMs: 1, ...extra });

describe('resumeCheck', () => {
  const resume = (seq: number, extra: Partial<Exchange> = {}) => exchange(seq, 'GET', { ...extra, sent: { authorization: true, lastEventId: `e${seq}` } });
  const fix = 'keep response streams open until their result, or answer GET with Last-Event-ID from an event store (Streamable HTTP resumability)';

  it('no resumed stream: no row (a GET without Last-Event-ID, a POST with one)', () => {
    expect(resumeCheck([exchange(1, 'POST', { sent: { authorization: true, lastEventId: 'e1' } }), exchange(2, 'GET', { status: 405 })])).toBeNull();
  });

  it('every resume refused: FAIL with the first status, error, or none', () => {
    expect(resumeCheck([exchange(1, 'POST', { status: 200 }), resume(2, { status: 404 }), resume(3, { status: 300 })])).toEqual({
      id: 'mcp.resume', status: 'FAIL', summary: 'a response stream closed before its result; resuming it with GET + Last-Event-ID failed (HTTP 404)', fix,
      details: { resumes: [{ seq: 2, atMs: 20, status: 404, lastEventId: 'e2' }, { seq: 3, atMs: 30, status: 300, lastEventId: 'e3' }] },
    });
    expect(resumeCheck([resume(1, { error: 'timed out' })])?.summary).toMatch(/failed \(timed out\)$/);
    expect(resumeCheck([resume(1)])).toMatchObject({ status: 'FAIL', details: { resumes: [{ seq: 1, atMs: 10, status: null, lastEventId: 'e1' }] } });
    expect(resumeCheck([resume(1)])?.summary).toMatch(/failed \(no answer\)$/);
  });

  it('a resume that worked: PASS with how many and the status of the one that worked', () => {
    expect(resumeCheck([resume(1, { status: 500 }), resume(2, { status: 299 })])).toMatchObject({
      status: 'PASS', summary: 'a response stream closed before its result; resumed it with GET + Last-Event-ID (2 times, HTTP 299)',
    });
    expect(resumeCheck([resume(1, { status: 200 })])?.summary).toBe('a response stream closed before its result; resumed it with GET + Last-Event-ID (1 time, HTTP 200)');
  });
});

describe('terminateCheck', () => {
  const fix = 'answer DELETE on /mcp with 200/204 (or 405 if sessions cannot be ended)';

  it('nothing to end: the stateless revision, or no DELETE sent', () => {
    expect(terminateCheck('modern', { terminated: false }, [exchange(1, 'DELETE', { status: 500 })])).toEqual({ id: 'mcp.terminate', status: 'PASS', summary: 'nothing to end (2026-07-28 is stateless)' });
    expect(terminateCheck('legacy', { terminated: false }, [exchange(1, 'POST', { status: 500 })])).toEqual({ id: 'mcp.terminate', status: 'PASS', summary: 'no session to end' });
  });

  it('405 is allowed; the last DELETE ending the session passes', () => {
    expect(terminateCheck('legacy', { terminated: false }, [exchange(1, 'DELETE', { status: 405 })])).toEqual({
      id: 'mcp.terminate', status: 'PASS', summary: 'DELETE answered 405: the server does not end sessions on request (allowed)',
    });
    expect(terminateCheck('legacy', { terminated: true }, [exchange(1, 'DELETE', { status: 500 }), exchange(2, 'DELETE', { status: 204 })])).toEqual({
      id: 'mcp.terminate', status: 'PASS', summary: 'DELETE ended the session (HTTP 204)',
    });
    expect(terminateCheck('legacy', { terminated: true }, [exchange(1, 'DELETE', { status: 299 })]).status).toBe('PASS');
  });

  it('not ended: WARN with the status, the close error, the exchange error, or none', () => {
    expect(terminateCheck('legacy', { terminated: true }, [exchange(1, 'DELETE', { status: 300 })])).toEqual({
      id: 'mcp.terminate', status: 'WARN', summary: 'DELETE did not end the session: HTTP 300', fix,
    });
    expect(terminateCheck('legacy', { terminated: false }, [exchange(1, 'DELETE', { status: 200 })]).summary).toBe('DELETE did not end the session: HTTP 200');
    expect(terminateCheck('legacy', { terminated: true }, [exchange(1, 'DELETE', { error: 'reset' })]).summary).toBe('DELETE did not end the session: reset');
    expect(terminateCheck('legacy', { terminated: false, error: 'closed early' }, [exchange(1, 'DELETE', { error: 'reset' })]).summary).toBe('DELETE did not end the session: closed early');
    expect(terminateCheck('legacy', { terminated: false }, [exchange(1, 'DELETE')]).summary).toBe('DELETE did not end the session: no answer');
  });
});
