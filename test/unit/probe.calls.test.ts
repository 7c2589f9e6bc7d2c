/** The probe's side-effect policy and what counts as a tool answer: pure decisions, no server. */
import { describe, expect, it } from 'vitest';
import { authFailureCheck, callCheck, callSkippedCheck, resumeCheck } from '../../lib/agentstack/probe/checks.js';
import { recordingFetch } from '../../lib/agentstack/probe/recordingFetch.js';
import { toolsToCall } from '../../lib/agentstack/probe/callPolicy.js';
import { describeWithBearer } from '../../lib/agentstack/probe/describeError.js';
import { inspectTool } from '../../lib/agentstack/probe/toolsList.js';
import type { ToolsWalk } from '../../lib/agentstack/probe/types.js';

function walkOf(...names: string[]): ToolsWalk {
  const rows = names.map((name) => ({ name, inputSchema: { type: 'object' } }));
  return { pages: 1, rows, tools: rows.map((r) => inspectTool(r, 1)), actionsUrls: [null] };
}

describe('which tools the probe calls', () => {
  it('AgentStack\'s surface: the alias and the canonical name, because the canonical one is listed', () => {
    expect(toolsToCall(walkOf('agentstack.execute')).names).toEqual(['agentstack_execute', 'agentstack.execute']);
    expect(toolsToCall(walkOf('agentstack.execute', 'agentstack_execute')).names).toEqual(['agentstack_execute', 'agentstack.execute']);
  });

  it('a server that does not list agentstack.execute: nothing, whatever else it lists', () => {
    for (const walk of [walkOf(), walkOf('browser_navigate', 'browser_install'), walkOf('agentstack_execute'), walkOf('echo', 'agentstack.execute2')]) {
      const decision = toolsToCall(walk);
      expect(decision.names).toEqual([]);
      expect(decision.reason).toMatch(/does not list agentstack\.execute/);
    }
  });

  it('tools/list failed: nothing, since the probe does not know what the server offers', () => {
    expect(toolsToCall(undefined)).toEqual({ names: [], reason: expect.stringMatching(/tools\/list did not answer/) });
  });

  it('a skipped call is a WARN row naming why, under the same ids', () => {
    const rows = callSkippedCheck('the server does not list agentstack.execute');
    expect(rows.map((r) => [r.id, r.status])).toEqual([['mcp.call_alias', 'WARN'], ['mcp.call_canonical', 'WARN']]);
    expect(rows[0]!.summary).toMatch(/not called/);
  });
});

describe('a tools/call answer passes only as a valid CallToolResult with content', () => {
  const ok = (result: Record<string, unknown>) => callCheck('agentstack.execute', { kind: 'ok', ms: 1, result });

  it('a bare {} or an empty content list fails', () => {
    expect(ok({})).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/no content/) });
    expect(ok({ content: [] }).status).toBe('FAIL');
    expect(ok({ structuredContent: { ok: true } }).status).toBe('FAIL');
  });

  it('a malformed content block or isError of the wrong type fails, naming where', () => {
    expect(ok({ content: [{ type: 'text' }] })).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/not a valid CallToolResult at content\.0/) });
    expect(ok({ content: 'pong' }).status).toBe('FAIL');
    expect(ok({ content: [{ type: 'text', text: 'pong' }], isError: 'no' }).summary).toMatch(/isError/);
  });

  it('text content passes; extra fields do not matter', () => {
    expect(ok({ content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true }, _meta: { x: 1 }, extra: [1] }).status).toBe('PASS');
  });
});

describe('a 401/403 says whether a Bearer was sent', () => {
  const url = 'https://mcp.example/mcp';
  it('403 without a Bearer does not blame a token', () => {
    const c = authFailureCheck(403, false, url)!;
    expect(c.status).toBe('FAIL');
    expect(c.summary).toMatch(/403 to a request without a Bearer/);
    expect(c.summary).not.toMatch(/token may not/);
  });

  it('403 with a Bearer: the Bearer was sent and refused', () => {
    expect(authFailureCheck(403, true, url)!.summary).toMatch(/403 although a Bearer was sent/);
  });

  it('401 with and without a Bearer', () => {
    expect(authFailureCheck(401, true, url)!.summary).toMatch(/401 although a Bearer was sent/);
    expect(authFailureCheck(401, false, url)!.summary).toMatch(/401: no Bearer was sent/);
    expect(authFailureCheck(500, false, url)).toBeNull();
  });
});

describe('a resumed response stream', () => {
  const get = (seq: number, status: number | undefined, lastEventId?: string) =>
    ({ seq, httpMethod: 'GET', url: 'u', sent: { authorization: true, ...(lastEventId ? { lastEventId } : {}) }, ...(status ? { status } : {}), durationMs: 1, atMs: seq * 10 });

  it('no row when nothing was resumed (the standalone GET stream is not a resume)', () => {
    expect(resumeCheck([get(1, 405)])).toBeNull();
  });

  it('PASS when the GET with Last-Event-ID was answered, FAIL when every resume was refused', () => {
    expect(resumeCheck([get(1, 200, '3.abc')])).toMatchObject({ id: 'mcp.resume', status: 'PASS' });
    expect(resumeCheck([get(1, 405, '3.abc'), get(2, 405, '3.abc')])).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/HTTP 405/) });
  });

  it('the recorder answers the standalone GET itself but lets a resume through, noting Last-Event-ID', async () => {
    const seen: string[] = [];
    const recorder = recordingFetch((async (_input: unknown, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get('last-event-id') ?? 'none');
      return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }) as typeof fetch);
    expect((await recorder.fetch('http://127.0.0.1/mcp', { method: 'GET' })).status).toBe(405);
    expect((await recorder.fetch('http://127.0.0.1/mcp', { method: 'GET', headers: { 'last-event-id': '7.s' } })).status).toBe(200);
    expect(seen).toEqual(['7.s']);
    expect(recorder.exchanges.map((x) => x.sent.lastEventId ?? null)).toEqual([null, '7.s']);
  });
});

describe('a 401/403 after initialize says whether a Bearer was sent too', () => {
  it('words tools/list and tools/call failures by the Bearer', () => {
    const forbidden = Object.assign(new Error('Streamable HTTP error: Error POSTing to endpoint: {"error":"forbidden"}'), { code: 403 });
    expect(describeWithBearer(forbidden, false)).toBe('HTTP 403 (forbidden) to a request without a Bearer');
    expect(describeWithBearer(forbidden, true)).toBe('HTTP 403 (forbidden) although a Bearer was sent');
    expect(describeWithBearer(Object.assign(new Error('Streamable HTTP error: x'), { code: 500 }), false)).toBe('HTTP 500');
  });
});
