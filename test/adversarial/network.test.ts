/**
 * Network. Fault: a proxy between the plugin and the server, a NO_PROXY exception, a proxy that cannot reach the
 * target, and a server that is not there at all (connection refused). Outcome: the built scripts send every request
 * through the proxy named by HTTP_PROXY (http:// targets; the core is http://127.0.0.1) or HTTPS_PROXY (https://
 * targets), both as CONNECT tunnels (undici's ProxyAgent tunnels http:// too), go direct for NO_PROXY hosts, and
 * fail clearly within their deadlines when nothing answers.
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { SESSION_START_SCRIPT, signInWith } from '../helpers/sessionStart.js';
import { mkdirSync } from 'node:fs';
import { baseChildEnv } from '../helpers/platform.js';
import { expectWithinDeadline, scriptStartMs } from '../helpers/deadline.js';

const VERIFY = join(REPO_ROOT, 'scripts/verify-mcp-surface-e2e.mjs');
const DIAGNOSE = join(REPO_ROOT, 'scripts/diagnose-local.mjs');
const DEVICE = join(REPO_ROOT, 'hooks/scripts/device-code.mjs');

let core: RunningCore;
let proxy: TestProxy;
let tmp: ReturnType<typeof tempDir>;
let dir: string;
let token: string;
beforeAll(async () => {
  [core, proxy] = await Promise.all([startCore({ port: 0, interval: 1 }), startProxy()]);
  tmp = tempDir('agentstack-network-');
  dir = join(tmp.path, 'cursor');
  mkdirSync(dir);
  const tokens = await core.issueTokens();
  token = tokens.access_token;
  await signInWith(dir, core.baseUrl, tokens);
});
afterAll(async () => {
  await Promise.all([core?.close(), proxy?.close()]);
  tmp?.cleanup();
});
beforeEach(() => { proxy.records.length = 0; });

interface Run { code: number | null; stdout: string; stderr: string; ms: number }
function run(args: string[], env: Record<string, string>, stdin = ''): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, args, {
    env: { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_DISABLE_AUTO_LOGIN: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
}

const total = () => Object.values(core.counters.requests).reduce((a, b) => a + b, 0);

/** A port that refuses connections: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('proxy settings', () => {
  it('HTTP_PROXY: verify-mcp-surface-e2e sends every request through the proxy and passes', async () => {
    const before = total();
    const tunneled = proxy.tunneledRequests().length;
    const r = await run([VERIFY, '--base-url', core.baseUrl, '--json'], { HTTP_PROXY: proxy.url, AGENTSTACK_BASE_URL: core.baseUrl });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(total() - before).toBeGreaterThan(5);
    expect(proxy.records.length).toBeGreaterThan(0);
    expect(proxy.records.every((rec) => rec.method === 'CONNECT' && rec.target === new URL(core.baseUrl).host)).toBe(true);
    // every request the core received came through a tunnel: the tunnels carried exactly as many requests
    expect(proxy.tunneledRequests().length - tunneled).toBe(total() - before);
  });

  it('HTTP_PROXY with NO_PROXY=127.0.0.1: the proxy sees nothing and the check still passes', async () => {
    const r = await run([VERIFY, '--base-url', core.baseUrl, '--json'], { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1', AGENTSTACK_BASE_URL: core.baseUrl });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(proxy.records).toEqual([]);
  });

  it('HTTP_PROXY: session-start and diagnose --online reach the server through the proxy', async () => {
    const before = total();
    const tunneled = proxy.tunneledRequests().length;
    const hook = await run([SESSION_START_SCRIPT, '--from-hook'], { HTTP_PROXY: proxy.url, AGENTSTACK_BASE_URL: core.baseUrl }, '{}');
    expect(hook.code).toBe(0);
    const diagnose = await run([DIAGNOSE, '--online', '--json'], { HTTP_PROXY: proxy.url, AGENTSTACK_BASE_URL: core.baseUrl });
    expect(diagnose.code, diagnose.stdout + diagnose.stderr).toBe(0);
    expect(proxy.records.length).toBeGreaterThanOrEqual(2);
    expect(total() - before).toBeGreaterThanOrEqual(3);
    expect(proxy.tunneledRequests().length - tunneled).toBe(total() - before);
    expect(proxy.records.every((rec) => rec.method === 'CONNECT' && rec.target === new URL(core.baseUrl).host)).toBe(true);
    expect(hook.stdout + hook.stderr + diagnose.stdout + diagnose.stderr).not.toContain(token);
  });

  it('HTTPS_PROXY is read for https:// targets: a CONNECT reaches the proxy; a refused tunnel is a clear network error', async () => {
    const refusing = await startProxy({ allowConnect: false });
    // Beside it, the same work failing without a proxy (a refused port): its start, settings and error path, under
    // the same load.
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const [r, startMs, direct] = await Promise.all([
      run([DEVICE, '--json', '--no-browser'], { HTTPS_PROXY: refusing.url, AGENTSTACK_BASE_URL: 'https://agentstack.invalid', AGENTSTACK_CURSOR_DIR: join(tmp.path, 'https-proxy') }),
      scriptStartMs(DEVICE),
      run([DEVICE, '--json', '--no-browser'], { AGENTSTACK_BASE_URL: closed, AGENTSTACK_CURSOR_DIR: join(tmp.path, 'https-proxy-direct') }),
    ]);
    expect(direct.code).toBe(1);
    await refusing.close();
    expect(r.code).toBe(1);
    expect(refusing.records.filter((rec) => rec.method === 'CONNECT').map((rec) => rec.target)).toContain('agentstack.invalid:443');
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ event: 'error', error: 'network' });
    // A refused tunnel is an answer: no deadline is waited for.
    expectWithinDeadline(r.ms, { baselineMs: Math.max(startMs, direct.ms), what: 'device-code through a proxy refusing the tunnel' });
  });
});

describe('offline: connection refused', () => {
  it('device-code: exit 1 with a network error, at once', async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    const [r, startMs] = await Promise.all([
      run([DEVICE, '--json', '--no-browser'], { AGENTSTACK_BASE_URL: base, AGENTSTACK_CURSOR_DIR: join(tmp.path, 'offline-device') }),
      scriptStartMs(DEVICE),
    ]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toMatchObject({ event: 'error', error: 'network' });
    expect(r.stderr).toContain(base);
    expectWithinDeadline(r.ms, { baselineMs: startMs, what: 'device-code against a refused port' });
  });

  it('session-start with an expiring token and the server gone: one JSON answer well inside the 20 s hook timeout, token kept', async () => {
    const offlineDir = join(tmp.path, 'offline-hook');
    const base = `http://127.0.0.1:${await closedPort()}`;
    await signInWith(offlineDir, base, await core.issueTokens({ accessTokenTtl: 30 }));
    const [r, startMs] = await Promise.all([
      run([SESSION_START_SCRIPT, '--from-hook'], { AGENTSTACK_BASE_URL: base, AGENTSTACK_CURSOR_DIR: offlineDir }, '{}'),
      scriptStartMs(SESSION_START_SCRIPT),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(String(JSON.parse(r.stdout).additional_context)).not.toBe('');
    // A refused connection is an answer: the renewal fails at once, far inside Cursor's 20 s.
    expectWithinDeadline(r.ms, { baselineMs: startMs, what: 'session-start with the server gone' });
  });

  it('verify and diagnose --online against a refused port: FAIL reported, exit 1, within seconds', async () => {
    const base = `http://127.0.0.1:${await closedPort()}`;
    const offlineDir = join(tmp.path, 'offline-diagnose');
    // A token for this (dead) server: one from the core would name the core in its aud and never be sent here.
    await signInWith(offlineDir, base, { access_token: 'opaque-token-for-the-offline-server-0123456789', expires_in: 3600, scope: 'openid' });
    const [verify, diagnose, verifyStartMs, diagnoseStartMs] = await Promise.all([
      run([VERIFY, '--base-url', base, '--json'], { AGENTSTACK_BASE_URL: base, AGENTSTACK_CURSOR_DIR: offlineDir }),
      run([DIAGNOSE, '--online', '--json'], { AGENTSTACK_BASE_URL: base, AGENTSTACK_CURSOR_DIR: offlineDir }),
      scriptStartMs(VERIFY),
      scriptStartMs(DIAGNOSE),
    ]);
    expect(verify.code, verify.stdout).toBe(1);
    expect(JSON.parse(verify.stdout).ok).toBe(false);
    // No row PASSes on a request that got no answer.
    const verifyChecks = JSON.parse(verify.stdout).checks as Array<{ id: string; status: string }>;
    expect(verifyChecks.filter((c) => c.status === 'PASS' && !c.id.startsWith('config.')).map((c) => c.id)).toEqual([]);
    expect(verifyChecks.find((c) => c.id === 'oauth.connect_antipattern')?.status).toBe('WARN');
    expect(diagnose.code, diagnose.stdout).toBe(1);
    const checks = JSON.parse(diagnose.stdout).checks as Array<{ id: string; status: string }>;
    expect(checks.find((c) => c.id === 'online.auth-me')?.status).toBe('FAIL');
    expectWithinDeadline(verify.ms, { baselineMs: verifyStartMs, what: 'verify against a refused port' });
    expectWithinDeadline(diagnose.ms, { baselineMs: diagnoseStartMs, what: 'diagnose --online against a refused port' });
  });
});
