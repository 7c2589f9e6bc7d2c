/**
 * The probe in-process against real servers on 127.0.0.1: the reference core, a 2026-07-28-only server built on the
 * SDK v2 server, and @modelcontextprotocol/server-everything started as a child process in streamableHttp mode.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore } from '../../core/index.js';
import { boundedFetch } from '../../lib/platform/net/http.js';
import { probeMcpSurface } from '../../lib/agentstack/probe/probe.js';
import { probeChecks } from '../../lib/commands/diagnose/online.js';
import type { Check } from '../../lib/platform/report.js';
import { startSessionProxy } from '../fixtures/sessionProxy.js';
import { startStatelessServer } from '../fixtures/statelessServer.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { closedPort } from '../helpers/closedPort.js';

const statusOf = (checks: Check[], id: string) => checks.find((c) => c.id === id)?.status;
const failures = (checks: Check[]) => checks.filter((c) => c.status === 'FAIL').map((c) => `${c.id}: ${c.summary}`);

/** A fetch that expires every live session of `core` right before the first tools/call goes out. */
function expiringAtFirstCall(core: { setFaults(f: { expireSessions: boolean }): void }): typeof fetch {
  const inner = boundedFetch({ timeoutMs: 5000 });
  let done = false;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    if (typeof init?.body === 'string' && init.body.includes('"tools/call"') && !done) {
      done = true;
      core.setFaults({ expireSessions: true });
    }
    return inner(input, init);
  }) as typeof fetch;
}

describe('probe against the reference core', () => {
  let core: Awaited<ReturnType<typeof startCore>>;
  let token: string;
  beforeAll(async () => {
    core = await startCore({ port: 0 });
    token = (await core.issueTokens()).access_token;
  });
  afterAll(() => core.close());

  it('passes the whole contract, records every exchange, ends the session, never leaks the Bearer', async () => {
    const report = await probeMcpSurface({ mcpUrl: core.mcpUrl, bearer: token, timeoutMs: 5000 });
    expect(failures(report.checks)).toEqual([]);
    expect(report).toMatchObject({ era: 'legacy', protocolVersion: '2025-11-25', serverInfo: { name: 'agentstack' } });
    expect(statusOf(report.checks, 'mcp.tool_name_dot')).toBe('WARN');
    const methods = report.exchanges.map((x) => `${x.httpMethod} ${x.rpcMethod ?? ''}`.trim());
    expect(methods).toEqual(expect.arrayContaining(['POST initialize', 'POST notifications/initialized', 'POST tools/list', 'POST tools/call', 'DELETE']));
    const init = report.exchanges.find((x) => x.rpcMethod === 'initialize')!;
    expect(init.sessionId).toMatch(/^\w{4}\*+$/);
    expect(init.contentType).toMatch(/event-stream|json/);
    expect(report.exchanges.filter((x) => x.rpcMethod === 'tools/call').map((x) => x.toolName)).toEqual(['agentstack_execute', 'agentstack.execute']);
    expect(core.mcpSessionCount()).toBe(0);
    expect(JSON.stringify(report)).not.toContain(token);
  });

  it('re-initializes on a new transport when the session expires mid-run, and says so', async () => {
    const inner = boundedFetch({ timeoutMs: 5000 });
    // Expire the live session right before the first tools/call: the retry must run on a fresh session.
    const expiring = (async (input: string | URL | Request, init?: RequestInit) => {
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"') && !expiring.done) {
        expiring.done = true;
        core.setFaults({ expireSessions: true });
      }
      return inner(input, init);
    }) as typeof fetch & { done?: boolean };
    const report = await probeMcpSurface({ mcpUrl: core.mcpUrl, bearer: token, fetch: expiring });
    expect(failures(report.checks)).toEqual([]);
    const session = report.checks.find((c) => c.id === 'mcp.session')!;
    expect(session.status).toBe('WARN');
    expect(session.summary).toMatch(/expired during tools\/call agentstack_execute \(HTTP 404.*re-initialized/);
    expect(report.exchanges.filter((x) => x.rpcMethod === 'initialize')).toHaveLength(2);
  });

  // Servers in the wild answer an expired session with 400 or 500 and the JSON-RPC code in the body; the SDK's
  // client transport then puts the HTTP status in error.code and the JSON-RPC error in the message.
  it.each([[400, -32001], [500, -32016], [400, -32016], [500, -32001]])('re-initializes when the expired session is answered HTTP %i with JSON-RPC %i', async (status, code) => {
    core.setFaults({ sessionNotFoundStatus: status, sessionNotFoundCode: code });
    try {
      const report = await probeMcpSurface({ mcpUrl: core.mcpUrl, bearer: token, fetch: expiringAtFirstCall(core) });
      expect(failures(report.checks)).toEqual([]);
      const session = report.checks.find((c) => c.id === 'mcp.session')!;
      expect(session).toMatchObject({ status: 'WARN', summary: expect.stringMatching(new RegExp(`expired during tools/call agentstack_execute \\(.*${code}.*re-initialized`)) });
      expect(report.exchanges.filter((x) => x.rpcMethod === 'initialize')).toHaveLength(2);
      expect(report.exchanges.filter((x) => x.rpcMethod === 'tools/call').map((x) => x.status)).toEqual([status, 200, 200]);
    } finally {
      core.setFaults({ sessionNotFoundStatus: null, sessionNotFoundCode: null });
    }
  });

  it('fails the session check when the session expires again right after re-initializing', async () => {
    const inner = boundedFetch({ timeoutMs: 5000 });
    // Expire the session before the first tools/call, and the fresh one again before that call's retry.
    let calls = 0;
    const forgetful = (async (input: string | URL | Request, init?: RequestInit) => {
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"') && ++calls <= 2) core.setFaults({ expireSessions: true });
      return inner(input, init);
    }) as typeof fetch;
    const report = await probeMcpSurface({ mcpUrl: core.mcpUrl, bearer: token, fetch: forgetful });
    const session = report.checks.find((c) => c.id === 'mcp.session')!;
    expect(session.status).toBe('FAIL');
    expect(session.summary).toMatch(/expired during tools\/call agentstack_execute \(HTTP 404.*even right after a fresh initialize/);
    expect(report.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['reinitialized', 'session_expired_again']));
    expect(report.events.filter((e) => e.kind === 'session_expired_again')).toHaveLength(1);
    expect(statusOf(report.checks, 'mcp.call_alias')).toBe('FAIL'); // that call's retry failed, and the probe says so
    expect(statusOf(report.checks, 'mcp.call_canonical')).toBe('PASS'); // the next call re-initialized and went through
  });

  it('fails clearly without a Bearer (401), and on a port nobody listens on', async () => {
    const unauth = await probeMcpSurface({ mcpUrl: core.mcpUrl });
    expect(unauth.checks).toHaveLength(1);
    expect(unauth.checks[0]).toMatchObject({ id: 'mcp.initialize', status: 'FAIL' });
    expect(unauth.checks[0]!.summary).toMatch(/401: no Bearer was sent/);
    const bad = await probeMcpSurface({ mcpUrl: core.mcpUrl, bearer: 'not-a-real-token-123456' });
    expect(bad.checks[0]!.summary).toMatch(/401 although a Bearer was sent: the Bearer was not accepted/);
    const down = await probeMcpSurface({ mcpUrl: `http://127.0.0.1:${await closedPort()}/mcp`, bearer: token, timeoutMs: 2000 });
    expect(down.checks[0]).toMatchObject({ id: 'mcp.initialize', status: 'FAIL' });
    expect(down.checks[0]!.summary).toMatch(/Could not reach/);
    const unsafe = await probeMcpSurface({ mcpUrl: 'http://example.com/mcp', bearer: token });
    expect(unsafe.exchanges).toHaveLength(0);
  });
});

describe('diagnose-local --online (its probe kernel, in-process)', () => {
  it('re-initializes an expired session answered HTTP 400 with JSON-RPC -32001 too', async () => {
    const core = await startCore({ port: 0, faults: { expireSessions: true, sessionNotFoundStatus: 400, sessionNotFoundCode: -32001 } });
    try {
      const checks = await probeChecks(core.mcpUrl, (await core.issueTokens()).access_token);
      expect(failures(checks)).toEqual([]);
      expect(checks.find((c) => c.id === 'mcp.session')).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/HTTP 400, JSON-RPC error -32001 .*re-initialized/) });
    } finally {
      await core.close();
    }
  });
});

describe('probe when the session is lost and cannot be re-established', () => {
  it('a refused re-initialize (503) FAILs mcp.session, and tools/list blames the session, not itself', async () => {
    const core = await startCore({ port: 0, faults: { expireSessions: true, initializeLimit: 1 } });
    try {
      const report = await probeMcpSurface({ mcpUrl: core.mcpUrl, bearer: (await core.issueTokens()).access_token, timeoutMs: 5000 });
      expect(report.exchanges.filter((x) => x.rpcMethod === 'initialize').map((x) => x.status)).toEqual([200, 503]);
      const session = report.checks.find((c) => c.id === 'mcp.session')!;
      expect(session).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/expired during tools\/list page 1 \(HTTP 404.*\); re-initializing failed: HTTP 503 \(JSON-RPC -32000 Too many open sessions\)/) });
      expect(session.summary).not.toMatch(/retry passed/);
      expect(report.checks.find((c) => c.id === 'mcp.tools_list')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/the session was lost .* a new initialize failed .*see mcp\.session/) });
    } finally {
      await core.close();
    }
  });
});

describe('probe when a response stream closes before its result (Streamable HTTP resumability)', () => {
  it('resumes with GET + Last-Event-ID after the server\'s retry, instead of waiting out the timeout', async () => {
    const core = await startCore({ port: 0, faults: { closeCallStream: true, sseRetryMs: 700 } });
    try {
      const token = (await core.issueTokens()).access_token;
      const timeoutMs = 6000;
      const report = await probeMcpSurface({ mcpUrl: core.mcpUrl, bearer: token, timeoutMs });
      expect(failures(report.checks)).toEqual([]);
      expect(statusOf(report.checks, 'mcp.call_alias')).toBe('PASS');
      expect(statusOf(report.checks, 'mcp.call_canonical')).toBe('PASS');
      expect(report.checks.find((c) => c.id === 'mcp.resume')).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/resumed it with GET \+ Last-Event-ID \(2 times, HTTP 200\)/) });
      const resumes = report.exchanges.filter((x) => x.httpMethod === 'GET' && x.sent.lastEventId);
      expect(resumes.map((x) => [x.status, x.sent.authorization])).toEqual([[200, true], [200, true]]);
      // Each resume waits the priming event's retry (700 ms), not the SDK default (500 ms) nor the deadline.
      for (const get of resumes) {
        const call = [...report.exchanges].reverse().find((x) => x.seq < get.seq && x.rpcMethod === 'tools/call')!;
        expect(get.atMs - call.atMs).toBeGreaterThanOrEqual(690);
        expect(get.atMs - call.atMs).toBeLessThan(timeoutMs / 2);
      }
      expect(report.durationMs).toBeLessThan(timeoutMs);
      expect(JSON.stringify(report)).not.toContain(token);
    } finally {
      await core.close();
    }
  });
});

describe('probe when a response stream closes with no event id and no result', () => {
  it('reports the closed stream at once instead of waiting out the deadline', async () => {
    const core = await startCore({ port: 0, faults: { dropCallStream: true } });
    try {
      const timeoutMs = 8000;
      const report = await probeMcpSurface({ mcpUrl: core.mcpUrl, bearer: (await core.issueTokens()).access_token, timeoutMs });
      for (const id of ['mcp.call_alias', 'mcp.call_canonical']) {
        const row = report.checks.find((c) => c.id === id)!;
        expect(row).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/the response stream closed before its result, with no event id to resume from/) });
        expect(row.summary).not.toMatch(/timed out/i);
      }
      expect(statusOf(report.checks, 'mcp.tools_list')).toBe('PASS');
      // Both calls together well under one deadline: nothing waited for it.
      expect(report.durationMs).toBeLessThan(timeoutMs);
    } finally {
      await core.close();
    }
  });
});

describe('probe against a 2026-07-28-only server', () => {
  it('falls back from initialize to server/discover and passes, sending the revision\'s headers', async () => {
    const server = await startStatelessServer();
    try {
      const report = await probeMcpSurface({ mcpUrl: server.mcpUrl, bearer: 'test-token-0123456789', timeoutMs: 5000 });
      expect(failures(report.checks)).toEqual([]);
      expect(report).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28' });
      const calls = server.seen.filter((s) => s.mcpMethod === 'tools/call');
      expect(calls.map((c) => c.mcpName)).toEqual(['agentstack_execute', 'agentstack.execute']);
      expect(server.seen.filter((s) => s.mcpMethod).every((s) => s.protocolVersion === '2026-07-28' && s.authorization)).toBe(true);
      expect(server.seen.some((s) => s.mcpMethod === 'server/discover')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('probe against @modelcontextprotocol/server-everything', () => {
  let child: ChildProcess | undefined;
  let mcpUrl = '';
  beforeAll(async () => {
    // The server takes its port from PORT and cannot report one the system chose: a free port is picked and may be
    // taken by another process before the server binds it, so a start that finds it taken is retried on another.
    for (let attempt = 0; attempt < 5 && !mcpUrl; attempt++) {
      const port = await freePort();
      const started = spawn(process.execPath, ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'streamableHttp'], {
        cwd: REPO_ROOT, env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'],
      });
      const outcome = await new Promise<'up' | 'taken'>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('server-everything did not start')), 15_000);
        let stderr = '';
        started.stderr!.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (stderr.includes('listening on port')) { clearTimeout(timer); resolve('up'); }
          if (stderr.includes('already in use')) { clearTimeout(timer); resolve('taken'); }
        });
        started.once('exit', (code) => { clearTimeout(timer); if (stderr.includes('already in use')) resolve('taken'); else reject(new Error(`server-everything exited ${code}`)); });
      });
      if (outcome === 'taken') {
        started.kill();
        continue;
      }
      child = started;
      mcpUrl = `http://127.0.0.1:${port}/mcp`;
    }
    expect(mcpUrl, 'server-everything found no free port in 5 attempts').not.toBe('');
  });
  afterAll(() => {
    child?.kill();
  });

  it('runs without crashing, calls none of its tools, and reports that the surface is not AgentStack\'s', async () => {
    const report = await probeMcpSurface({ mcpUrl, timeoutMs: 5000 });
    expect(statusOf(report.checks, 'mcp.initialize')).toBe('PASS');
    expect(statusOf(report.checks, 'mcp.tools_list')).toBe('PASS');
    const single = report.checks.find((c) => c.id === 'mcp.single_tool')!;
    expect(single.status).toBe('FAIL');
    expect(single.summary).toMatch(/no agentstack\.execute among \d+ tools .*not AgentStack's/);
    // It lists echo, get-env, trigger-long-running-operation, …: none of them is called.
    expect(report.exchanges.filter((x) => x.rpcMethod === 'tools/call')).toEqual([]);
    expect(statusOf(report.checks, 'mcp.call_alias')).toBe('WARN');
    expect(statusOf(report.checks, 'mcp.call_canonical')).toBe('WARN');
    expect(statusOf(report.checks, 'mcp.terminate')).toBe('PASS');
  });

  // A gateway in front of it that forgets its sessions: server-everything answers the forgotten id with HTTP 400,
  // JSON-RPC -32000 "Bad Request: No valid session ID provided".
  it('behind a proxy that forgets the session once: re-initializes and says the session was lost', async () => {
    let forgotten = false;
    const proxy = await startSessionProxy({ backendUrl: mcpUrl, forgetBefore: (m) => m === 'tools/list' && !forgotten && (forgotten = true) });
    try {
      const report = await probeMcpSurface({ mcpUrl: proxy.mcpUrl, timeoutMs: 5000 });
      expect(proxy.seen.filter((x) => x.method === 'tools/list').map((x) => x.status)).toEqual([400, 200]);
      expect(statusOf(report.checks, 'mcp.tools_list')).toBe('PASS');
      expect(report.checks.find((c) => c.id === 'mcp.session')).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/expired during tools\/list page 1 \(HTTP 400, JSON-RPC error -32000 \(Bad Request: No valid session ID provided\)\); re-initialized/) });
    } finally {
      await proxy.close();
    }
  });

  it('behind a proxy that forgets every session: the session check FAILs, never "held for the whole probe"', async () => {
    const proxy = await startSessionProxy({ backendUrl: mcpUrl, forgetBefore: (m) => m === 'tools/list' });
    try {
      const report = await probeMcpSurface({ mcpUrl: proxy.mcpUrl, timeoutMs: 5000 });
      const session = report.checks.find((c) => c.id === 'mcp.session')!;
      expect(session.summary).not.toMatch(/held/);
      expect(session).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/expired during tools\/list page 1 .*even right after a fresh initialize/) });
      expect(report.checks.find((c) => c.id === 'mcp.tools_list')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/session/) });
    } finally {
      await proxy.close();
    }
  });
});
