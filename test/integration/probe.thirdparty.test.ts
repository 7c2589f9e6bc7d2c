/**
 * The probe on servers we did not write the contract for: a server built on the SDK's own `Server` with other tools,
 * and the SDK's example server (simpleStreamableHttp, spawned). The probe must call no tool there, judge a tool
 * answer by the SDK's CallToolResult schema, and word a 401/403 by whether it sent a Bearer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMcpSurface } from '../../lib/agentstack/probe/probe.js';
import type { Check } from '../../lib/platform/report.js';
import { startForeignServer } from '../fixtures/foreignServer.js';
import { REPO_ROOT } from '../helpers/repo.js';

const byId = (checks: Check[], id: string) => checks.find((c) => c.id === id);
const BEARER = 'third-party-token-0123456789';

describe('probe on a server that is not AgentStack\'s', () => {
  it('lists other tools: the probe calls none of them, and says why', async () => {
    const server = await startForeignServer({ tools: ['browser_navigate', 'browser_install', 'delete_everything'] });
    try {
      const report = await probeMcpSurface({ mcpUrl: server.mcpUrl, bearer: BEARER, timeoutMs: 5000 });
      expect(byId(report.checks, 'mcp.tools_list')?.status).toBe('PASS');
      expect(server.calls).toEqual([]);
      expect(report.exchanges.filter((x) => x.rpcMethod === 'tools/call')).toEqual([]);
      expect(byId(report.checks, 'mcp.single_tool')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/not AgentStack's/) });
      for (const id of ['mcp.call_alias', 'mcp.call_canonical']) {
        expect(byId(report.checks, id)).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/not called: the server does not list agentstack\.execute/) });
      }
    } finally {
      await server.close();
    }
  });

  it('lists only the alias agentstack_execute: still not AgentStack\'s surface, nothing is called', async () => {
    const server = await startForeignServer({ tools: ['agentstack_execute'] });
    try {
      await probeMcpSurface({ mcpUrl: server.mcpUrl, bearer: BEARER, timeoutMs: 5000 });
      expect(server.calls).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('lists agentstack.execute but answers tools/call with a bare {}: both calls FAIL', async () => {
    const server = await startForeignServer({ tools: ['agentstack.execute'], bareResult: true });
    try {
      const report = await probeMcpSurface({ mcpUrl: server.mcpUrl, bearer: BEARER, timeoutMs: 5000 });
      expect(server.calls).toEqual(['agentstack_execute', 'agentstack.execute']);
      for (const id of ['mcp.call_alias', 'mcp.call_canonical']) {
        expect(byId(report.checks, id)).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/answered, but (no content|content is not)/) });
      }
    } finally {
      await server.close();
    }
  });

  it('403 says whether a Bearer was sent', async () => {
    const server = await startForeignServer({ tools: [], refuse: 403 });
    try {
      const without = await probeMcpSurface({ mcpUrl: server.mcpUrl, timeoutMs: 5000 });
      expect(server.requests.every((r) => !r.authorization)).toBe(true);
      expect(without.checks[0]).toMatchObject({ id: 'mcp.initialize', status: 'FAIL' });
      expect(without.checks[0]!.summary).toMatch(/403 to a request without a Bearer/);
      expect(without.checks[0]!.summary).not.toMatch(/token may not/);
      const withBearer = await probeMcpSurface({ mcpUrl: server.mcpUrl, bearer: BEARER, timeoutMs: 5000 });
      expect(withBearer.checks[0]!.summary).toMatch(/403 although a Bearer was sent/);
      expect(JSON.stringify(withBearer)).not.toContain(BEARER);
    } finally {
      await server.close();
    }
  });
});

describe('a 403 with a plain-text reason (a Host check, as @playwright/mcp answers)', () => {
  it('shows the server\'s reason, sanitized and bounded, instead of a generic Origin/IP explanation', async () => {
    const server = await startForeignServer({ tools: [], refuse: 403, refuseText: 'Access is only allowed at localhost:38401' });
    try {
      const report = await probeMcpSurface({ mcpUrl: server.mcpUrl, timeoutMs: 5000 });
      expect(report.checks[0]).toMatchObject({ id: 'mcp.initialize', status: 'FAIL' });
      expect(report.checks[0]!.summary).toMatch(/403 to a request without a Bearer.*the server said: "Access is only allowed at localhost:38401"/);
      expect(report.checks[0]!.summary).not.toMatch(/Origin, IP or policy/);
    } finally {
      await server.close();
    }
  });

  it('a hostile reason cannot flood the report, hide text, or echo the Bearer', async () => {
    const server = await startForeignServer({ tools: [], refuse: 403, refuseText: `denied \u001b[31mred\u001b[0m ${BEARER} ${'x'.repeat(5000)}` });
    try {
      const report = await probeMcpSurface({ mcpUrl: server.mcpUrl, bearer: BEARER, timeoutMs: 5000 });
      const summary = report.checks[0]!.summary;
      expect(summary).toMatch(/the server said: "denied/);
      expect(summary).not.toContain('\u001b');
      expect(summary.length).toBeLessThan(500);
      expect(JSON.stringify(report)).not.toContain(BEARER);
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

describe('probe on the SDK\'s example server (simpleStreamableHttp: greet, multi-greet, list-files, …)', () => {
  let child: ChildProcess | undefined;
  let mcpUrl = '';
  beforeAll(async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js'], {
      cwd: REPO_ROOT, env: { ...process.env, MCP_PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the SDK example server did not start')), 15_000);
      child!.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('listening on port')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child!.once('exit', (code) => reject(new Error(`the SDK example server exited ${code}`)));
    });
    mcpUrl = `http://localhost:${port}/mcp`;
  }, 20_000);
  afterAll(() => {
    child?.kill();
  });

  it('initializes, lists its tools, calls none, ends the session', async () => {
    const report = await probeMcpSurface({ mcpUrl, timeoutMs: 5000 });
    expect(byId(report.checks, 'mcp.initialize')?.status).toBe('PASS');
    expect(byId(report.checks, 'mcp.tools_list')?.status).toBe('PASS');
    expect((report.tools ?? []).map((t) => (t as { name: string }).name)).toEqual(expect.arrayContaining(['greet', 'multi-greet']));
    expect(report.exchanges.filter((x) => x.rpcMethod === 'tools/call')).toEqual([]);
    expect(byId(report.checks, 'mcp.call_canonical')?.status).toBe('WARN');
    expect(byId(report.checks, 'mcp.terminate')?.status).toBe('PASS');
  });
});
