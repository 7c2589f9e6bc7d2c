/**
 * A network that inspects HTTPS shows Node a certificate from a root CA it does not know. diagnose --online must say
 * so (not "could not reach"), with the fix, and the fix it names (NODE_EXTRA_CA_CERTS) must work: an HTTPS server on
 * 127.0.0.1 with a certificate made here by openssl plays that network.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authMeCheck } from '../../lib/commands/diagnose/online.js';
import { tlsVerificationCode } from '../../lib/platform/net/tlsError.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { baseChildEnv } from '../helpers/platform.js';
import { notRunWhen } from '../helpers/notRun.js';

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
const SCRIPT = join(REPO_ROOT, 'scripts/diagnose-local.mjs');

describe('diagnose --online behind a certificate Node does not trust', notRunWhen(!hasOpenssl && 'openssl is not installed (it makes the test certificates)'), () => {
  const tmp = tempDir('agentstack-tls-');
  let server: Server;
  let base: string;
  const cert = join(tmp.path, 'cert.pem');

  beforeAll(async () => {
    const key = join(tmp.path, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert,
      '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/auth/me') res.end(JSON.stringify({ data: { user_id: 7, email: 'tls@example.test' } }));
      else { res.statusCode = 404; res.end('{}'); }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    tmp.cleanup();
  });

  it('the auth-me check names a TLS verification failure and the NODE_EXTRA_CA_CERTS fix', async () => {
    const check = await authMeCheck(base, 'opaque-token', 5_000);
    expect(check.status).toBe('FAIL');
    expect(check.summary).toMatch(/^TLS certificate verification failed for 127\.0\.0\.1:\d+ \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
    expect(check.fix).toMatch(/NODE_EXTRA_CA_CERTS/);
  });

  it('other failures are not called TLS', () => {
    expect(tlsVerificationCode(Object.assign(new Error('x'), { cause: { code: 'ECONNREFUSED' } }))).toBeNull();
    expect(tlsVerificationCode(new Error('fetch failed', { cause: new Error('inner', { cause: Object.assign(new Error('c'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }) }) }))).toBe('SELF_SIGNED_CERT_IN_CHAIN');
  });

  const runDiagnose = (extra: NodeJS.ProcessEnv) => new Promise<{ stdout: string }>((resolve) => {
    const cursor = join(tmp.path, `cursor-${Object.keys(extra).length}`);
    mkdirSync(cursor, { recursive: true });
    writeFileSync(join(cursor, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { type: 'http', url: `${base}/mcp`, headers: { Authorization: 'Bearer opaque-token' } } } }), { mode: 0o600 });
    const child = spawn(process.execPath, [SCRIPT, '--online', '--json'], {
      env: { ...baseChildEnv(), HOME: cursor, AGENTSTACK_CURSOR_DIR: cursor, ...extra }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.on('close', () => resolve({ stdout }));
  });
  const authMe = (stdout: string) => (JSON.parse(stdout).checks as Array<{ id: string; status: string; summary: string }>).find((c) => c.id === 'online.auth-me')!;

  it('end to end: the bundle says TLS; with NODE_EXTRA_CA_CERTS set to the CA the same check passes', async () => {
    const before = authMe((await runDiagnose({})).stdout);
    expect(before.status).toBe('FAIL');
    expect(before.summary).toMatch(/TLS certificate verification failed/);
    const after = authMe((await runDiagnose({ NODE_EXTRA_CA_CERTS: cert })).stdout);
    expect(after).toMatchObject({ status: 'PASS', summary: expect.stringMatching(/signed in as tls@example\.test/) });
  });
});
