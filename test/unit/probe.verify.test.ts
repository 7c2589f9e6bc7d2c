import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeFor, fail, pass, renderJson, renderTable, warn } from '../../lib/platform/report.js';
import { canonicalJson } from '../../lib/commands/verify/fetchJson.js';
import { authorizationServerUrls, connectReadinessCheck, invalidEndpoints, protectedResourceUrls } from '../../lib/commands/verify/oauthChecks.js';
import { challengeResourceMetadata, resourceCovers } from '../../lib/agentstack/auth/resourceMetadata.js';
import { bearerFromEnv, bearerFromMcpJson } from '../../lib/commands/verify/bearerSource.js';
import { describeRowDrift } from '../../lib/commands/verify/restChecks.js';
import { settled, settledVerify } from '../../lib/commands/verify/runVerify.js';
import { tempDir } from '../helpers/repo.js';

describe('report', () => {
  const checks = [pass('a.one', 'fine'), warn('a.two', 'hmm', 'do this'), fail('a.three', 'broken\nbadly', 'fix that')];

  it('renders one line per check, the fix under WARN/FAIL, and totals', () => {
    const table = renderTable('Title', checks);
    expect(table).toMatch(/^Title\n\nPASS  a\.one  {3}fine\n/);
    expect(table).toContain('FAIL  a.three  broken badly');
    expect(table).toContain('-> fix that');
    expect(table).toContain('1 passed, 1 warning, 1 failed');
  });

  it('exits 1 on any FAIL, 0 on warnings only', () => {
    expect(exitCodeFor(checks)).toBe(1);
    expect(exitCodeFor(checks.slice(0, 2))).toBe(0);
  });

  it('JSON keeps title, ok, counts, checks and extras', () => {
    const doc = JSON.parse(renderJson('T', checks, { extra: 1 }));
    expect(doc).toMatchObject({ title: 'T', ok: false, counts: { PASS: 1, WARN: 1, FAIL: 1 }, extra: 1 });
    expect(doc.checks).toHaveLength(3);
  });
});

describe('discovery URLs and Connect readiness', () => {
  it('builds RFC 9728 path-suffixed then root URLs', () => {
    expect(protectedResourceUrls('https://h.example/mcp')).toEqual(['https://h.example/.well-known/oauth-protected-resource/mcp', 'https://h.example/.well-known/oauth-protected-resource']);
  });

  it('looks where the 401 challenge points first, and reads resource_metadata quoted or not', () => {
    expect(protectedResourceUrls('https://h.example/mcp', 'https://h.example/meta')).toEqual(['https://h.example/meta', 'https://h.example/.well-known/oauth-protected-resource/mcp', 'https://h.example/.well-known/oauth-protected-resource']);
    expect(protectedResourceUrls('https://h.example/mcp', 'https://h.example/.well-known/oauth-protected-resource')).toHaveLength(2);
    expect(challengeResourceMetadata('Bearer resource_metadata="https://h.example/meta", error="invalid_token"', 'https://h.example/mcp')).toBe('https://h.example/meta');
    expect(challengeResourceMetadata('Bearer realm="x", resource_metadata=https://h.example/m2', 'https://h.example/mcp')).toBe('https://h.example/m2');
    expect(challengeResourceMetadata('Bearer resource_metadata="javascript:alert(1)"', 'https://h.example/mcp')).toBeNull();
    expect(challengeResourceMetadata('Bearer realm="x"', 'https://h.example/mcp')).toBeNull();
    expect(challengeResourceMetadata(null, 'https://h.example/mcp')).toBeNull();
  });

  it('a challenge from an https server naming plain http to loopback is not followed; from a plain-http loopback server it is', () => {
    const header = 'Bearer resource_metadata="http://127.0.0.1:8080/meta"';
    expect(challengeResourceMetadata(header, 'https://h.example/mcp')).toBeNull();
    expect(challengeResourceMetadata(header, 'http://127.0.0.1:4100/mcp')).toBe('http://127.0.0.1:8080/meta');
    expect(challengeResourceMetadata('Bearer resource_metadata="https://h.example/x\u2019y"', 'https://h.example/mcp')).toBeNull();
  });

  it('a resource covers the MCP URL when it is the same origin and an ancestor path (the MCP SDK\'s rule)', () => {
    expect(resourceCovers('https://h.example/mcp', 'https://h.example/mcp')).toBe(true);
    expect(resourceCovers('https://h.example/mcp/', 'https://h.example/mcp')).toBe(true);
    expect(resourceCovers('https://h.example', 'https://h.example/mcp')).toBe(true);
    expect(resourceCovers('https://h.example/', 'https://h.example/mcp')).toBe(true);
    expect(resourceCovers('https://h.example/mc', 'https://h.example/mcp')).toBe(false);
    expect(resourceCovers('https://h.example/mcp/v2', 'https://h.example/mcp')).toBe(false);
    expect(resourceCovers('https://other.example', 'https://h.example/mcp')).toBe(false);
    expect(resourceCovers('http://h.example', 'https://h.example/mcp')).toBe(false);
    expect(resourceCovers('not a url', 'https://h.example/mcp')).toBe(false);
  });

  it('builds RFC 8414 then OpenID URLs, path-aware', () => {
    expect(authorizationServerUrls('https://as.example')).toEqual(['https://as.example/.well-known/oauth-authorization-server', 'https://as.example/.well-known/openid-configuration']);
    expect(authorizationServerUrls('https://as.example/t1')[0]).toBe('https://as.example/.well-known/oauth-authorization-server/t1');
  });

  it('needs authorization code, PKCE S256 and a registration endpoint', () => {
    const good = { authorization_endpoint: 'https://a/auth', response_types_supported: ['code'], grant_types_supported: ['authorization_code'], code_challenge_methods_supported: ['S256'], registration_endpoint: 'https://a/reg' };
    const mcp = 'https://h.example/mcp';
    expect(connectReadinessCheck(good, mcp).status).toBe('PASS');
    const { registration_endpoint: _r, ...noReg } = good;
    expect(connectReadinessCheck(noReg, mcp).summary).toMatch(/registration_endpoint/);
    expect(connectReadinessCheck({ ...good, code_challenge_methods_supported: ['plain'] }, mcp).summary).toMatch(/S256/);
    expect(connectReadinessCheck(undefined, mcp).status).toBe('FAIL');
  });

  it('plain http to loopback in the AS metadata only for an MCP server that is itself plain http on loopback', () => {
    const md = { token_endpoint: 'http://127.0.0.1:9/token', device_authorization_endpoint: 'https://a/device', registration_endpoint: 'http://localhost:9/reg' };
    expect(invalidEndpoints(md, ['token_endpoint', 'device_authorization_endpoint'], 'https://h.example/mcp')).toEqual(['token_endpoint']);
    expect(invalidEndpoints(md, ['token_endpoint', 'device_authorization_endpoint'], 'http://127.0.0.1:8787/mcp')).toEqual([]);
    expect(invalidEndpoints(md, ['registration_endpoint'], 'https://h.example/mcp')).toEqual(['registration_endpoint']);
    expect(invalidEndpoints({ token_endpoint: 'http://as.example/token' }, ['token_endpoint'], 'http://127.0.0.1:8787/mcp')).toEqual(['token_endpoint']);
  });

  it('compares JSON documents whatever the key order', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 1, e: 2 }] } })).toBe(canonicalJson({ a: { c: [3, { e: 2, f: 1 }], d: 2 }, b: 1 }));
  });

  it('names the fields in which same-named REST and tools/list rows differ', () => {
    const rpc = [{ name: 'a.x', description: 'd', icons: [1], inputSchema: { type: 'object' } }, { name: 'a.y', title: 't' }];
    const rest = [{ name: 'a.x', description: 'old', inputSchema: { type: 'object' }, extra: true }, { title: 't', name: 'a.y' }];
    expect(describeRowDrift(rest, rpc)).toBe('a.x differs from tools/list in description, extra (extra), icons (missing)');
    expect(describeRowDrift(rpc, rpc)).toBe('the rows differ from tools/list');
  });
});

describe('Bearer source', () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(() => dir?.cleanup());
  const write = (content: string) => {
    dir = tempDir();
    mkdirSync(dir.path, { recursive: true });
    const path = join(dir.path, 'mcp.json');
    writeFileSync(path, content);
    chmodSync(path, 0o600);
    return path;
  };
  const entry = (url: string, auth?: string) => JSON.stringify({ mcpServers: { agentstack: { url, ...(auth ? { headers: { Authorization: auth } } : {}) } } });

  it('takes --token-env, tolerating a "Bearer " prefix; warns when unset', () => {
    expect(bearerFromEnv('T', { T: 'Bearer abc.def' }).bearer).toBe('abc.def');
    expect(bearerFromEnv('T', {}).check.status).toBe('WARN');
  });

  it('uses the mcp.json Bearer only for the server its entry points at', () => {
    const path = write(entry('http://127.0.0.1:9/mcp', 'Bearer real-token-1234567890'));
    expect(bearerFromMcpJson(path, 'http://127.0.0.1:9')).toMatchObject({ bearer: 'real-token-1234567890', check: { status: 'PASS' } });
    const other = bearerFromMcpJson(path, 'https://elsewhere.example');
    expect(other.bearer).toBeUndefined();
    expect(other.check.summary).toMatch(/not sent elsewhere/);
  });

  it('warns (never throws) on a missing, malformed, entry-less or placeholder file, without quoting it', () => {
    dir = tempDir();
    expect(bearerFromMcpJson(join(dir.path, 'nope.json'), 'https://a.example').check.status).toBe('WARN');
    dir.cleanup();
    const broken = bearerFromMcpJson(write('{"mcpServers": {"agentstack": {"headers": {"Authorization": "Bearer leaked-secret-value"'), 'https://a.example');
    expect(broken.check.status).toBe('WARN');
    expect(JSON.stringify(broken)).not.toContain('leaked-secret-value');
    dir!.cleanup();
    expect(bearerFromMcpJson(write('{"mcpServers": {}}'), 'https://a.example').check.summary).toMatch(/no "agentstack" entry/);
    dir!.cleanup();
    expect(bearerFromMcpJson(write(entry('https://a.example/mcp', 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}')), 'https://a.example').check.summary).toMatch(/no real Bearer/);
  });
});

describe('verify never ends without a report', () => {
  it('a check that throws becomes one FAIL row under its id', async () => {
    const rows = await settled('oauth', async () => {
      new URL('not a url');
      return [];
    });
    expect(rows).toEqual([expect.objectContaining({ id: 'oauth', status: 'FAIL', summary: expect.stringMatching(/stopped on an unexpected answer: Invalid URL/) })]);
    expect(await settled('rest.icon', async () => pass('rest.icon', 'ok'))).toEqual([pass('rest.icon', 'ok')]);
  });

  it('a whole run that throws is one FAIL row and no probe report', async () => {
    const result = await settledVerify(async () => {
      throw new TypeError('boom');
    });
    expect(result.probe).toBeUndefined();
    expect(result.checks).toEqual([expect.objectContaining({ id: 'verify.run', status: 'FAIL' })]);
  });
});

describe('--json extra fields', () => {
  it('are snake_case at every depth, like every other field the scripts print', async () => {
    const { snakeCaseKeys } = await import('../../lib/platform/report.js');
    const doc = JSON.parse(renderJson('T', [], { baseUrl: 'x', durationMs: 3, exchanges: [{ httpMethod: 'POST', sent: { sessionId: 'a', authorization: true } }], 'base-url': 1 }));
    expect(doc).toMatchObject({ base_url: 'x', duration_ms: 3, exchanges: [{ http_method: 'POST', sent: { session_id: 'a', authorization: true } }], 'base-url': 1 });
    expect(snakeCaseKeys({ a: [{ bC: null }] })).toEqual({ a: [{ b_c: null }] });
  });
});
