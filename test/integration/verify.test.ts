/**
 * scripts/verify-mcp-surface-e2e.mjs as a person or CI runs it: the built bundle spawned with --json against the
 * reference core, once clean and once per injected server fault, each turning the right check to FAIL or WARN.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type CoreFaults } from '../../core/index.js';
import type { Check } from '../../lib/platform/report.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { json, startHostileServer, type HostileServer } from '../adversarial/fixtures/hostileServer.js';
import { baseChildEnv } from '../helpers/platform.js';

const SCRIPT = join(REPO_ROOT, 'scripts/verify-mcp-surface-e2e.mjs');
const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
  doc: { ok: boolean; checks: Check[]; exchanges: unknown[]; era: string | null };
}

async function verify(args: string[], env: Record<string, string>): Promise<Omit<Outcome, 'doc'>> {
  const cursorDir = tempDir();
  try {
    const r = await run(process.execPath, [SCRIPT, ...args], { env: { ...baseChildEnv(), AGENTSTACK_CURSOR_DIR: cursorDir.path, ...env }, timeout: 20_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  } finally {
    cursorDir.cleanup();
  }
}

/** A core with `faults`, a token from it in $AS_TOKEN, the script run with --json. */
async function verifyAgainst(faults: Partial<CoreFaults>, extra: string[] = []): Promise<Outcome> {
  const core = await startCore({ port: 0, faults });
  try {
    const { access_token } = await core.issueTokens();
    const r = await verify(['--base-url', core.baseUrl, '--token-env', 'AS_TOKEN', '--json', ...extra], { AS_TOKEN: access_token });
    expect(r.stdout + r.stderr).not.toContain(access_token);
    return { ...r, doc: JSON.parse(r.stdout) as Outcome['doc'] };
  } finally {
    await core.close();
  }
}

const check = (o: Outcome, id: string) => {
  const c = o.doc.checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id} in ${o.doc.checks.map((x) => x.id).join(', ')}`);
  return c;
};
const failed = (o: Outcome) => o.doc.checks.filter((c) => c.status === 'FAIL').map((c) => c.id);

describe('verify-mcp-surface-e2e against the reference core', () => {
  it('passes clean: exit 0, every check PASS except the tool-name-dot warning', async () => {
    const o = await verifyAgainst({});
    expect(o.code).toBe(0);
    expect(o.doc.ok).toBe(true);
    expect(o.doc.checks.filter((c) => c.status !== 'PASS').map((c) => c.id)).toEqual(['mcp.tool_name_dot']);
    expect(o.doc.exchanges.length).toBeGreaterThan(4);
  });

  it('secondTool same-page: mcp.single_tool FAILs naming the extra tool', async () => {
    const o = await verifyAgainst({ secondTool: 'same-page' });
    expect(o.code).toBe(1);
    expect(failed(o)).toEqual(['mcp.single_tool']);
    expect(check(o, 'mcp.single_tool').summary).toMatch(/2 tools listed \(agentstack\.help besides agentstack\.execute\)/);
  });

  it('secondTool page2: found behind nextCursor, and the FAIL says which page', async () => {
    const o = await verifyAgainst({ secondTool: 'page2' });
    expect(failed(o)).toEqual(['mcp.single_tool']);
    expect(check(o, 'mcp.single_tool').summary).toContain('agentstack.help (page 2)');
    expect(check(o, 'mcp.tools_list').summary).toMatch(/2 tools on 2 pages/);
  });

  it('expireSessions: the 404 leads to one re-initialize, the run passes, and mcp.session says so', async () => {
    const o = await verifyAgainst({ expireSessions: true }, ['--only', 'mcp']);
    expect(o.code).toBe(0);
    expect(check(o, 'mcp.session')).toMatchObject({ status: 'WARN' });
    expect(check(o, 'mcp.session').summary).toMatch(/session expired during tools\/list page 1 \(HTTP 404.*re-initialized on a new transport and the retry passed/);
  });

  it('sessionNotFoundCode -32016: treated as an expired session too', async () => {
    const o = await verifyAgainst({ expireSessions: true, sessionNotFoundCode: -32016 }, ['--only', 'mcp']);
    expect(o.code).toBe(0);
    expect(check(o, 'mcp.session').summary).toMatch(/JSON-RPC error -32016.*re-initialized/);
  });

  it('noIcons: the tool icons FAIL, the server icons WARN', async () => {
    const o = await verifyAgainst({ noIcons: true });
    expect(failed(o)).toEqual(['mcp.tool_icons']);
    expect(check(o, 'mcp.tool_icons').summary).toMatch(/has no icons/);
    expect(check(o, 'mcp.server_icons').status).toBe('WARN');
  });

  it('badIcon: rest.icon FAILs because the bytes are not a PNG', async () => {
    const o = await verifyAgainst({ badIcon: true });
    expect(failed(o)).toEqual(['rest.icon']);
    expect(check(o, 'rest.icon').summary).toMatch(/not a PNG/);
  });

  it('actionsCountMismatch: rest.actions FAILs with both numbers', async () => {
    const o = await verifyAgainst({ actionsCountMismatch: true });
    expect(failed(o)).toEqual(['rest.actions']);
    expect(check(o, 'rest.actions').summary).toMatch(/total_actions says (\d+) but the catalog lists (\d+) actions/);
  });

  it('connectStub: a home-made Connect page at /mcp/.well-known/oauth-authorize WARNs, the run still passes', async () => {
    const o = await verifyAgainst({ connectStub: true });
    expect(o.code).toBe(0);
    expect(failed(o)).toEqual([]);
    expect(check(o, 'oauth.connect_antipattern')).toMatchObject({
      status: 'WARN',
      summary: '/mcp/.well-known/oauth-authorize answers HTTP 200: a home-made Connect endpoint Cursor never calls',
    });
    expect(check(o, 'oauth.connect_antipattern').fix).toMatch(/remove it; Connect uses RFC 9728 \+ RFC 8414 discovery/);
  });

  it('restToolsDrift: rest.tools_parity FAILs naming the tool, the endpoint and the fields that differ', async () => {
    const o = await verifyAgainst({ restToolsDrift: true });
    expect(o.code).toBe(1);
    expect(failed(o)).toEqual(['rest.tools_parity']);
    expect(check(o, 'rest.tools_parity').summary).toBe('GET /mcp/tools, GET /mcp/tools/list, POST /mcp/tools/list: agentstack.execute differs from tools/list in description, icons (missing)');
    expect(check(o, 'rest.tools_parity').fix).toBe('serve the REST mirrors from the same tool rows as tools/list');
  });

  it('oauth.connect_ready runs the registration Connect sends: a registration endpoint that fails makes it FAIL', async () => {
    const clean = await verifyAgainst({});
    expect(check(clean, 'oauth.connect_ready')).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/registered a public client with the advertised scopes \(7\)/) });
    const o = await verifyAgainst({ endpointFaults: { registration: { kind: '5xx' } } });
    expect(check(o, 'oauth.connect_ready')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/registering a public client with the advertised scopes \(7\) answered HTTP 503/) });
  });

  it('noDiscovery: RFC 9728 metadata missing FAILs, and Connect is not ready', async () => {
    const o = await verifyAgainst({ noDiscovery: true });
    expect(failed(o)).toEqual(['oauth.protected_resource', 'oauth.as_metadata', 'oauth.connect_ready']);
    expect(check(o, 'oauth.protected_resource').summary).toMatch(/no RFC 9728 protected-resource metadata/);
  });
});

describe('verify-mcp-surface-e2e options', () => {
  let core: Awaited<ReturnType<typeof startCore>>;
  beforeAll(async () => {
    core = await startCore({ port: 0 });
  });
  afterAll(() => core.close());

  it('reads the Bearer from mcp.json by default and prints a table', async () => {
    const { access_token } = await core.issueTokens();
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: core.mcpUrl, headers: { Authorization: `Bearer ${access_token}` } } } }), { mode: 0o600 });
      const r = await run(process.execPath, [SCRIPT, '--only', 'mcp'], { env: { ...baseChildEnv(), AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_BASE_URL: core.baseUrl } });
      expect(r.stdout).toMatch(/^AgentStack MCP surface: http:\/\/127\.0\.0\.1:\d+\n/);
      expect(r.stdout).toMatch(/PASS {2}config\.bearer +Bearer from the "agentstack" entry/);
      expect(r.stdout).toMatch(/\d+ passed, 1 warning, 0 failed/);
      expect(r.stdout).not.toMatch(/rest\.|oauth\./);
      expect(r.stdout + r.stderr).not.toContain(access_token);
    } finally {
      dir.cleanup();
    }
  });

  it('without mcp.json: WARNs and probes unauthenticated, which FAILs with a readable 401, exit 1', async () => {
    const r = await verify(['--base-url', core.baseUrl, '--only', 'mcp'], {});
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/WARN {2}config\.bearer +no .*mcp\.json; probing without a Bearer/);
    expect(r.stdout).toMatch(/FAIL {2}mcp\.initialize +.*401: no Bearer was sent/);
  });

  it('bad usage exits 2', async () => {
    expect((await verify(['--base-url', 'ftp://x'], {})).code).toBe(2);
    expect((await verify(['--only', 'rest'], {})).code).toBe(2);
  });
});

describe('verify-mcp-surface-e2e on metadata with invalid URLs', () => {
  let hostile: HostileServer;
  beforeAll(async () => {
    hostile = await startHostileServer();
  });
  afterAll(() => hostile.close());

  async function verifyHostile(): Promise<Outcome> {
    const r = await verify(['--base-url', hostile.baseUrl, '--json'], {});
    expect(r.stderr).not.toMatch(/TypeError|Invalid URL|\n\s+at /);
    // Exactly one JSON document on stdout, whatever broke.
    return { ...r, doc: JSON.parse(r.stdout) as Outcome['doc'] };
  }

  it('authorization_servers that is not a URL: a FAIL row, never a stack trace', async () => {
    hostile.route('/.well-known/oauth-protected-resource/mcp', json({ resource: `${hostile.baseUrl}/mcp`, authorization_servers: ['ht!tp:// not a url'] }));
    const o = await verifyHostile();
    expect(o.code).toBe(1);
    expect(check(o, 'oauth.protected_resource')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/authorization server .*is not a valid https URL/) });
    expect(check(o, 'oauth.connect_ready').status).toBe('FAIL');
  });

  it('authorization server metadata whose endpoints are not URLs: a FAIL row naming them', async () => {
    hostile.route('/.well-known/oauth-protected-resource/mcp', json({ resource: `${hostile.baseUrl}/mcp`, authorization_servers: [hostile.baseUrl] }));
    hostile.route('/.well-known/oauth-authorization-server', json({
      issuer: hostile.baseUrl, token_endpoint: 'http://[::1', device_authorization_endpoint: '/relative/device',
      authorization_endpoint: 'javascript:alert(1)', registration_endpoint: 'not a url', code_challenge_methods_supported: ['S256'],
    }));
    const o = await verifyHostile();
    expect(check(o, 'oauth.as_metadata')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/token_endpoint, device_authorization_endpoint .*not valid https URLs/) });
    expect(check(o, 'oauth.connect_ready')).toMatchObject({ status: 'FAIL', summary: expect.stringMatching(/authorization_endpoint/) });
  });
});
