/**
 * diagnose-local as a person runs it: the committed bundle, spawned with AGENTSTACK_CURSOR_DIR pointing at a temp
 * Cursor dir that holds a plugin install and a token issued by the reference core (real HTTP on 127.0.0.1).
 */
import { nodePastEndOfLife } from '../../lib/agentstack/plugin/nodeReleases.js';
import { recordHookRun } from '../../lib/agentstack/plugin/hookRuns.js';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRIVATE_MODE, baseChildEnv } from '../helpers/platform.js';
import { NEVER_A_PID } from '../helpers/deadPid.js';

const SCRIPT = join(REPO_ROOT, 'scripts/diagnose-local.mjs');
type Report = { ok: boolean; checks: Array<{ id: string; status: string; summary: string }>; changes: string[] };

function run(env: NodeJS.ProcessEnv, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('diagnose-local against the reference core', () => {
  const cursor = tempDir('agentstack-diagnose-');
  let core: RunningCore;
  let env: NodeJS.ProcessEnv;
  let secrets: string[];
  const outputs: string[] = [];
  const runAndKeep = async (args: string[]) => {
    const r = await run(env, args);
    outputs.push(r.stdout, r.stderr);
    return r;
  };

  beforeAll(async () => {
    core = await startCore({ port: 0 });
    const tokens = await core.issueTokens();
    const refreshToken = tokens.refresh_token ?? `rt-${'x'.repeat(40)}`;
    secrets = [tokens.access_token, refreshToken];
    const dir = cursor.path;
    mkdirSync(join(dir, 'plugins/local/agentstack'), { recursive: true });
    copyPlugin(join(dir, 'plugins/local/agentstack'));
    const mcp = {
      mcpServers: {
        other: { url: 'https://example.com/mcp', headers: { 'X-Keep': 'me' } },
        agentstack: { type: 'http', url: core.mcpUrl, tools: { 'agentstack.execute': {} }, headers: { Authorization: `Bearer ${tokens.access_token}` } },
      },
    };
    writeFileSync(join(dir, 'mcp.json'), `${JSON.stringify(mcp, null, 2)}\n`, { mode: 0o644 });
    writeFileSync(join(dir, 'agentstack-refresh'), JSON.stringify({ refresh_token: refreshToken, resource: core.mcpUrl }), { mode: 0o644 });
    const snapshot = { fetched_at: new Date().toISOString(), audience: 'tenant', total_actions: 2, actions: [{ action: 'system.ping' }, { action: 'data.read' }], unapproved: ['data.read'] };
    writeFileSync(join(dir, 'agentstack-capabilities.json'), JSON.stringify(snapshot), { mode: 0o600 });
    const dead = NEVER_A_PID;
    const lock = { pid: dead, started_at: new Date(Date.now() - 60_000).toISOString(), expires_at: new Date(Date.now() + 600_000).toISOString(), user_code: 'ABCD-EFGH', verification_uri: `${core.baseUrl}/activate` };
    writeFileSync(join(dir, 'agentstack-device.lock'), JSON.stringify(lock), { mode: 0o600 });
    env = { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: core.baseUrl };
  }, 60_000);

  afterAll(async () => {
    await core?.close();
    cursor.cleanup();
  });

  it('reports each broken gate with its fix and exits 1', async () => {
    const r = await runAndKeep([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^FAIL\s+mcp\.no-tools/m);
    expect(r.stdout).toMatch(/^FAIL\s+mcp\.mode\s+mode 0644/m);
    expect(r.stdout).toMatch(/^FAIL\s+refresh\.file/m);
    expect(r.stdout).toMatch(/^WARN\s+device\.lock\s+stale device lock/m);
    expect(r.stdout).toMatch(/^WARN\s+capabilities\.snapshot .*not yet approved: data\.read/m);
    expect(r.stdout).toMatch(/^PASS\s+plugin\.installed\s+local /m);
    expect(r.stdout).toMatch(/^WARN\s+hooks\.ran\s+no hook of this plugin has run/m);
    expect(r.stdout).toMatch(/^PASS\s+sign-in\.kind\s+both: Device Code: user-agentstack/m);
    expect(r.stdout).toMatch(/^PASS\s+token\.expiry\s+token eyJ\w\*+ valid for/m);
    expect(r.stdout).toContain('-> Run diagnose-local --fix');
  });

  it('--fix and --approve-actions repair, say what changed, and keep other servers', async () => {
    const r = await runAndKeep(['--fix', '--approve-actions', '--json']);
    const report = JSON.parse(r.stdout) as Report;
    const changes = report.changes.join('\n');
    expect(changes).toMatch(/approved the capability snapshot .*data\.read/);
    expect(changes).toMatch(/normalized the "agentstack" entry/);
    expect(changes).toMatch(/chmod 600 .*agentstack-refresh \(was 0644\)/);
    expect(changes).toMatch(/removed the stale device lock/);
    expect(existsSync(join(cursor.path, 'agentstack-device.lock'))).toBe(false);
    expect(statSync(join(cursor.path, 'mcp.json')).mode & 0o777).toBe(PRIVATE_MODE);
    const mcp = JSON.parse(readFileSync(join(cursor.path, 'mcp.json'), 'utf8'));
    expect(mcp.mcpServers.other).toEqual({ url: 'https://example.com/mcp', headers: { 'X-Keep': 'me' } });
    expect(mcp.mcpServers.agentstack.tools).toBeUndefined();
    expect(mcp.mcpServers.agentstack.url).toBe(core.mcpUrl);
  });

  it('then (once a hook has run) every gate PASSes and it exits 0', async () => {
    // Before any AgentStack call since the sign-in, diagnose says what Cursor may need.
    const before = JSON.parse((await runAndKeep(['--json'])).stdout) as Report;
    expect(before.checks.find((c) => c.id === 'cursor.calls')).toMatchObject({ status: 'WARN', fix: expect.stringContaining('agent mcp enable agentstack') });
    recordHookRun(join(cursor.path, 'agentstack-hook-runs.json'), 'session-start', { now: Date.now() - 60_000, input: { cursor_version: '3.20.17' }, pluginVersion: '0.5.0', outcome: 'answered' });
    recordHookRun(join(cursor.path, 'agentstack-hook-runs.json'), 'pre-mcp', { now: Date.now(), input: { cursor_version: '3.20.17' }, pluginVersion: '0.5.0', outcome: 'neutral' });
    const r = await runAndKeep(['--json']);
    const report = JSON.parse(r.stdout) as Report;
    // The one WARN allowed: this machine's Node past its end of life (Node 20 from 2026-04-30), which the row names.
    const eol = nodePastEndOfLife(process.versions.node, Date.now());
    expect(report.checks.filter((c) => c.status !== 'PASS' && !(eol && c.id === 'node'))).toEqual([]);
    if (eol) expect(report.checks.find((c) => c.id === 'node')).toMatchObject({ status: 'WARN', summary: expect.stringContaining('past its end of life') });
    expect(r.status).toBe(0);
    expect(report.checks.find((c) => c.id === 'hooks.ran')?.summary).toMatch(/^session-start last ran \d+ s ago \(Cursor 3\.20\.17\), answered/);
  });

  it('--online adds GET /api/auth/me and the MCP probe against the core', async () => {
    const r = await runAndKeep(['--online', '--json']);
    const report = JSON.parse(r.stdout) as Report;
    const me = report.checks.find((c) => c.id === 'online.auth-me')!;
    expect(me).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/^signed in as /) });
    const probe = report.checks.filter((c) => c.id.startsWith('mcp.') && !['mcp.readable', 'mcp.entry', 'mcp.no-tools', 'mcp.bearer', 'mcp.mode'].includes(c.id));
    expect(probe.length).toBeGreaterThan(3);
    expect(report.checks.filter((c) => c.status === 'FAIL')).toEqual([]);
    expect(r.status).toBe(0);
  }, 60_000);

  it('--online says the server rejected a revoked-looking token', async () => {
    const bad = JSON.parse(readFileSync(join(cursor.path, 'mcp.json'), 'utf8'));
    const good = bad.mcpServers.agentstack.headers.Authorization;
    bad.mcpServers.agentstack.headers.Authorization = `Bearer ${'not-a-real-token-'.repeat(3)}`;
    writeFileSync(join(cursor.path, 'mcp.json'), JSON.stringify(bad), { mode: 0o600 });
    try {
      const r = await runAndKeep(['--online']);
      expect(r.stdout).toMatch(/^FAIL\s+online\.auth-me\s+.*rejected the token \(HTTP 401\)/m);
      expect(r.status).toBe(1);
    } finally {
      bad.mcpServers.agentstack.headers.Authorization = good;
      writeFileSync(join(cursor.path, 'mcp.json'), JSON.stringify(bad), { mode: 0o600 });
    }
  }, 60_000);

  it('--online never sends the Bearer to a server the entry does not name (no url: the default server)', async () => {
    const original = readFileSync(join(cursor.path, 'mcp.json'), 'utf8');
    const config = JSON.parse(original);
    delete config.mcpServers.agentstack.url;
    writeFileSync(join(cursor.path, 'mcp.json'), JSON.stringify(config), { mode: 0o600 });
    const before = Object.values(core.counters.requests).reduce((a, b) => a + b, 0);
    try {
      const r = await runAndKeep(['--online']);
      expect(r.stdout).toMatch(/^FAIL\s+online\.server\s+the Bearer in mcp\.json is not for http:\/\/127\.0\.0\.1:\d+; it was not sent/m);
      expect(Object.values(core.counters.requests).reduce((a, b) => a + b, 0)).toBe(before);
    } finally {
      writeFileSync(join(cursor.path, 'mcp.json'), original, { mode: 0o600 });
    }
  }, 60_000);

  it('never prints an issued token or refresh token', () => {
    expect(outputs.length).toBeGreaterThan(0);
    for (const out of outputs) for (const s of secrets) expect(out).not.toContain(s);
  });
});
