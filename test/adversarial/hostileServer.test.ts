/**
 * Hostile server. Each case names the hostility, drives the plugin's real code (the kernel in-process over real HTTP,
 * or the built scripts as child processes) and asserts the exact outcome: a typed PluginError / a clear script error,
 * or a safe fallback; never a crash, never a Bearer sent to another origin, never a hostile URL opened.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { fetchCatalog } from '../../lib/agentstack/snapshot/fetch.js';
import { isPluginError, type PluginError } from '../../lib/platform/errors.js';
import { httpRequest } from '../../lib/platform/net/http.js';
import { discoverEndpoints, pollDeviceToken, refreshAccessToken, requestDeviceCode, type OAuthEndpoints } from '../../lib/agentstack/auth/oauth.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { tempDir } from '../helpers/repo.js';
import { SESSION_START_SCRIPT, sessionStart, signInWith } from '../helpers/sessionStart.js';
import { besideBaseline, expectWithinDeadline, scriptStartMs, timerMs } from '../helpers/deadline.js';
import { SESSION_START_BUDGET_MS } from '../../lib/commands/sessionStart/run.js';
import { json, redirect, startHostileServer, type HostileServer } from './fixtures/hostileServer.js';

let core: RunningCore;
let hostile: HostileServer;
let elsewhere: HostileServer;
let tmp: ReturnType<typeof tempDir>;

beforeAll(async () => {
  [core, hostile, elsewhere] = await Promise.all([startCore({ port: 0, interval: 1 }), startHostileServer(), startHostileServer()]);
  tmp = tempDir('agentstack-hostile-');
});
afterAll(async () => {
  await Promise.all([core?.close(), hostile?.close(), elsewhere?.close()]);
  tmp?.cleanup();
});
beforeEach(() => {
  core.setFaults({ endpointFaults: {}, hostileVerificationUri: null, noDiscovery: false });
  hostile.reset();
  elsewhere.reset();
});

async function failure(promise: Promise<unknown>): Promise<PluginError> {
  try {
    await promise;
  } catch (error) {
    expect(isPluginError(error), `not a PluginError: ${String(error)}`).toBe(true);
    return error as PluginError;
  }
  throw new Error('expected a failure, got a result');
}

const legacy = (base: string): OAuthEndpoints => ({
  issuer: base, deviceAuthorizationEndpoint: `${base}/api/oauth2/device/authorize`, tokenEndpoint: `${base}/api/oauth2/token`, resource: `${base}/mcp`, source: 'builtin',
});
const client = { clientId: 'cursor-plugin' };
let dirCount = 0;
const freshDir = () => {
  const d = join(tmp.path, `d${dirCount++}`);
  mkdirSync(d);
  return d;
};

describe('oversized and malformed bodies (core faults)', () => {
  it.each(['oversized', 'malformed'] as const)('GET /mcp/actions %s: the catalog fetch fails with invalid_response', async (kind) => {
    core.setFaults({ endpointFaults: { actions: { kind } } });
    const { access_token } = await core.issueTokens();
    const error = await failure(fetchCatalog({ baseUrl: core.baseUrl, token: access_token, timeoutMs: 5_000 }));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toMatch(kind === 'oversized' ? /larger than 4194304 bytes; refused/ : /not valid JSON/);
  });

  it.each(['oversized', 'malformed'] as const)('device authorization %s: requestDeviceCode fails with invalid_response', async (kind) => {
    core.setFaults({ endpointFaults: { device: { kind } } });
    const error = await failure(requestDeviceCode({ endpoints: legacy(core.baseUrl), client, scope: 'openid', timeoutMs: 5_000 }));
    expect(error.code).toBe('invalid_response');
  });

  it.each(['oversized', 'malformed'] as const)('token endpoint %s during a poll: an error result, never a throw', async (kind) => {
    core.setFaults({ endpointFaults: { token: { kind } } });
    const result = await pollDeviceToken({ endpoints: legacy(core.baseUrl), client, deviceCode: 'x', timeoutMs: 5_000 });
    expect(result.kind).toBe('error');
    if (result.kind === 'error') expect(result.error.code).toBe('invalid_response');
  });

  it('device-code.mjs against an oversized device response: exit 1, one invalid_response error event', async () => {
    core.setFaults({ endpointFaults: { device: { kind: 'oversized' } } });
    const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: freshDir() });
    const done = await run.done;
    expect(done.code).toBe(1);
    expect(run.events.at(-1)).toMatchObject({ event: 'error', error: 'invalid_response' });
  });
});

/** A device authorization response with one field of the wrong type. */
const goodDevice = { device_code: 'dc', user_code: 'ABCD-EFGH', verification_uri: 'https://agentstack.tech/activate', expires_in: 600, interval: 1 };
const goodToken = { access_token: 'at', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt', scope: 'openid' };

describe('wrong types in every field the plugin reads (hostile server)', () => {
  it.each([
    ['device_code', 5], ['device_code', null], ['user_code', {}], ['verification_uri', 7], ['verification_uri', ['https://x']],
    ['verification_uri_complete', 9], ['expires_in', 'soon'], ['expires_in', -1], ['interval', 'fast'],
  ] as const)('device response %s = %j: invalid_response', async (field, value) => {
    hostile.route('POST /api/oauth2/device/authorize', json({ ...goodDevice, [field]: value }));
    const error = await failure(requestDeviceCode({ endpoints: legacy(hostile.baseUrl), client, scope: 'openid', timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
  });

  it('an HTML page or broken JSON where the device endpoint should answer: names the URL and what came, and says to check the base URL', async () => {
    hostile.route('POST /api/oauth2/device/authorize', (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end('<html>welcome</html>'); });
    const html = await failure(requestDeviceCode({ endpoints: legacy(hostile.baseUrl), client, scope: 'openid', timeoutMs: 3_000 }));
    expect(html.code).toBe('invalid_response');
    expect(html.message).toContain(`${hostile.baseUrl}/api/oauth2/device/authorize answered HTTP 200 with text/html, not JSON`);
    expect(html.message).toMatch(/check that the base URL .* is the AgentStack server/);
    hostile.route('POST /api/oauth2/device/authorize', (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"device_code": '); });
    const broken = await failure(requestDeviceCode({ endpoints: legacy(hostile.baseUrl), client, scope: 'openid', timeoutMs: 3_000 }));
    expect(broken.message).toMatch(/not valid JSON; check that the base URL/);
    expect(broken.message).not.toMatch(/"response" body/);
  });

  it('device response expires_in = "600" (a numeric string): read as the number 600 (oauth4webapi parses it), never as text', async () => {
    hostile.route('POST /api/oauth2/device/authorize', json({ ...goodDevice, expires_in: '600' }));
    const device = await requestDeviceCode({ endpoints: legacy(hostile.baseUrl), client, scope: 'openid', timeoutMs: 3_000 });
    expect(device.expires_in).toBe(600);
  });

  it.each([
    ['access_token', 123], ['access_token', ''], ['token_type', 1], ['refresh_token', {}], ['expires_in', 'soon'], ['scope', 7],
  ] as const)('token response %s = %j: the poll ends with invalid_response and the refresh grant throws it', async (field, value) => {
    hostile.route('POST /api/oauth2/token', json({ ...goodToken, [field]: value }));
    const poll = await pollDeviceToken({ endpoints: legacy(hostile.baseUrl), client, deviceCode: 'dc', timeoutMs: 3_000 });
    expect(poll).toMatchObject({ kind: 'error', transient: false });
    if (poll.kind === 'error') expect(poll.error.code).toBe('invalid_response');
    const error = await failure(refreshAccessToken({ tokenEndpoint: `${hostile.baseUrl}/api/oauth2/token`, clientId: 'cursor-plugin', refreshToken: 'rt', resource: `${hostile.baseUrl}/mcp`, mcpUrl: `${hostile.baseUrl}/mcp`, timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
  });

  it.each([
    ['OAuth error field of the wrong type', { error: 42, error_description: { x: 1 } }],
    ['an array body', [1, 2]],
  ])('token 400 with %s: a typed error, the body never quoted raw', async (_name, body) => {
    hostile.route('POST /api/oauth2/token', json(body, 400));
    const poll = await pollDeviceToken({ endpoints: legacy(hostile.baseUrl), client, deviceCode: 'dc', timeoutMs: 3_000 });
    expect(poll).toMatchObject({ kind: 'error', transient: false });
    if (poll.kind !== 'error') return;
    expect(poll.error.code).toBe('invalid_response');
    // nothing of the body is quoted: neither its JSON nor a stringified object
    expect(poll.error.message).toBe(`Signing in failed: ${hostile.baseUrl}/api/oauth2/token answered HTTP 400`);
  });

  it.each([[[]], ['all'], [null]] as const)('GET /mcp/actions with domains = %j: invalid_response naming where', async (value) => {
    hostile.route('GET /mcp/actions', json({ total_actions: 0, domains: value }));
    const error = await failure(fetchCatalog({ baseUrl: hostile.baseUrl, token: 't', timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('unexpected shape at domains');
  });

  it.each([
    ['domains', { a: 'b', ok: [{ action: 'ok.x' }] }, 1], ['domains', { a: [{ action: 5 }, { action: 'a.y' }] }, 1],
    ['domains', { a: [{ action: 'a.b', required_cap: 9 }, { action: 'a.y' }] }, 1],
    ['total_actions', 'many', 0], ['total_actions', -2, 0], ['catalog_etag', 12, 0],
  ] as const)('GET /mcp/actions with %s = %j: the readable entries are kept, the others skipped and counted', async (field, value, skipped) => {
    hostile.route('GET /mcp/actions', json({ total_actions: 0, domains: { s: [{ action: 's.ping' }] }, [field]: value }));
    const fetched = await fetchCatalog({ baseUrl: hostile.baseUrl, token: 't', timeoutMs: 3_000 });
    if (fetched.kind !== 'ok') throw new Error('expected a catalog');
    expect(fetched.catalog.skipped).toBe(skipped);
    expect(fetched.catalog.entries.length).toBeGreaterThan(0);
    expect(fetched.catalog.entries.every((e) => typeof e.entry.action === 'string')).toBe(true);
    if (skipped) expect(fetched.catalog.skippedReason).toMatch(/^domains\.a/);
  });

  it.each([
    ['PRM resource', '/.well-known/oauth-protected-resource/mcp', { resource: 5, authorization_servers: 'x' }],
    ['PRM authorization_servers', '/.well-known/oauth-protected-resource/mcp', { resource: 'RESOURCE', authorization_servers: [5, { a: 1 }] }],
  ])('discovery with a wrong-typed %s and no other metadata: the built-in paths on the same server, with a note saying why', async (_name, path, doc) => {
    const body = JSON.parse(JSON.stringify(doc).replaceAll('RESOURCE', `${hostile.baseUrl}/mcp`));
    hostile.route(path, json(body));
    const endpoints = await discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 });
    expect(endpoints).toMatchObject(legacy(hostile.baseUrl));
    expect(endpoints.note).toMatch(/^no OAuth metadata \(RFC 9728 \/ RFC 8414\) at /);
  });

  it('discovery with a wrong-typed AS issuer: stops (RFC 8414 §3.3), nothing goes to the built-in paths', async () => {
    hostile.route('/.well-known/oauth-authorization-server', json({ issuer: 12, token_endpoint: `${hostile.baseUrl}/t` }));
    const error = await failure(discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('names no issuer, not');
    expect(hostile.requests.map((r) => r.path)).not.toContain('/api/oauth2/token');
  });
});

describe('RFC 9728 metadata whose resource does not match (refused)', () => {
  const prm = (resource: string) => json({ resource, authorization_servers: [elsewhere.baseUrl] });
  const asDoc = () => json({ issuer: elsewhere.baseUrl, token_endpoint: `${elsewhere.baseUrl}/token`, device_authorization_endpoint: `${elsewhere.baseUrl}/device` });

  it('resource names another server: discovery stops naming both, its authorization server is never contacted, no built-in path either', async () => {
    hostile.route('/.well-known/oauth-protected-resource/mcp', prm('https://other.example/mcp'));
    hostile.route('/.well-known/oauth-protected-resource', prm('https://other.example/mcp'));
    elsewhere.route('/.well-known/oauth-authorization-server', asDoc());
    const error = await failure(discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain('https://other.example/mcp');
    expect(error.message).toContain(`${hostile.baseUrl}/mcp`);
    expect(elsewhere.requests).toEqual([]);
    expect(hostile.requests.map((r) => r.path)).not.toContain('/api/oauth2/device/authorize');
  });

  it('a 401 challenge naming metadata on another server, whose resource is that server: refused the same way', async () => {
    hostile.route('POST /mcp', json({ error: 'unauthorized' }, 401, { 'www-authenticate': `Bearer resource_metadata="${elsewhere.baseUrl}/prm"` }));
    elsewhere.route('/prm', prm(`${elsewhere.baseUrl}/mcp`));
    elsewhere.route('/.well-known/oauth-authorization-server', asDoc());
    const error = await failure(discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
    expect(elsewhere.requests.map((r) => r.path)).toEqual(['/prm']);
  });

  it('a resource whose typographic quotes PowerShell reads as its own, covering the MCP URL once parsed: refused, its authorization server never contacted', async () => {
    hostile.route('/.well-known/oauth-protected-resource/mcp', prm(`${hostile.baseUrl}/x\u2019;Start-Process calc.exe;\u2019/../mcp`));
    elsewhere.route('/.well-known/oauth-authorization-server', asDoc());
    const error = await failure(discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toMatch(/names a resource that holds a quote/);
    expect(error.message).not.toContain('Start-Process');
    expect(elsewhere.requests).toEqual([]);
  });

  it('a resource written in upper case with dot segments is read to its canonical href', async () => {
    hostile.route('/.well-known/oauth-protected-resource/mcp', prm(`${hostile.baseUrl.replace('http://', 'HTTP://')}/a/../mcp`));
    elsewhere.route('/.well-known/oauth-authorization-server', asDoc());
    expect((await discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 })).resource).toBe(`${hostile.baseUrl}/mcp`);
  });

  it('control: a matching resource does send discovery to the named authorization server', async () => {
    hostile.route('/.well-known/oauth-protected-resource/mcp', prm(`${hostile.baseUrl}/mcp`));
    elsewhere.route('/.well-known/oauth-authorization-server', asDoc());
    const endpoints = await discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 });
    expect(endpoints.tokenEndpoint).toBe(`${elsewhere.baseUrl}/token`);
  });

  it('AS metadata with token_endpoint = 5 and device_authorization_endpoint = []: invalid_response naming the problem, refused before any use', async () => {
    hostile.route('/.well-known/oauth-authorization-server', json({ issuer: hostile.baseUrl, token_endpoint: 5, device_authorization_endpoint: [] }));
    const error = await failure(discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toMatch(/names a token_endpoint that is not a URL \(number\)/);
    expect(hostile.requests.map((r) => r.path)).not.toContain('/api/oauth2/token');
  });

  it('AS metadata naming a plain-http, non-loopback token endpoint: unsafe_url, refused before any use', async () => {
    hostile.route('/.well-known/oauth-authorization-server', json({ issuer: hostile.baseUrl, token_endpoint: 'http://evil.example/token', device_authorization_endpoint: `${hostile.baseUrl}/d` }));
    const error = await failure(discoverEndpoints(hostile.baseUrl, { timeoutMs: 3_000 }));
    expect(error.code).toBe('unsafe_url');
    expect(hostile.requests.map((r) => r.path)).toContain('/.well-known/oauth-authorization-server');
    expect(hostile.requests.map((r) => r.path)).not.toContain('/d');
  });
});

describe('redirects to another origin: never followed, the Bearer never leaves', () => {
  it.each([301, 302, 307, 308])('GET /mcp/actions answers %i to another origin: refused, the other origin sees nothing', async (status) => {
    hostile.route('GET /mcp/actions', redirect(`${elsewhere.baseUrl}/steal`, status));
    const error = await failure(fetchCatalog({ baseUrl: hostile.baseUrl, token: 'bearer-must-not-travel', timeoutMs: 3_000 }));
    expect(error.code).toBe('server');
    expect(hostile.requests.filter((r) => r.authorization === 'Bearer bearer-must-not-travel')).toHaveLength(1);
    expect(elsewhere.requests).toEqual([]);
  });

  it('a token endpoint that echoes the secrets it was sent (whole, cut short, in error and error_description): masked', async () => {
    const refreshToken = `rt-${'Zq9'.repeat(70)}-end`;
    const slices = (secret: string) => Array.from({ length: secret.length - 11 }, (_, i) => secret.slice(i, i + 12));
    const leaks = (error: PluginError, secret: string) => slices(secret).filter((s) => `${error.message} ${JSON.stringify(error.details ?? {})}`.includes(s));
    hostile.route('POST /api/oauth2/token', json({ error: 'invalid_grant', error_description: `${'padding '.repeat(8)}bad token ${refreshToken}` }, 400));
    const refresh = await failure(refreshAccessToken({ tokenEndpoint: `${hostile.baseUrl}/api/oauth2/token`, clientId: 'cursor-plugin', refreshToken, resource: `${hostile.baseUrl}/mcp`, mcpUrl: `${hostile.baseUrl}/mcp`, timeoutMs: 3_000 }));
    expect(refresh.code).toBe('invalid_grant');
    expect(leaks(refresh, refreshToken)).toEqual([]);
    hostile.route('POST /api/oauth2/token', json({ error: refreshToken, error_description: 'echo in the error code' }, 400));
    const inCode = await failure(refreshAccessToken({ tokenEndpoint: `${hostile.baseUrl}/api/oauth2/token`, clientId: 'cursor-plugin', refreshToken, resource: `${hostile.baseUrl}/mcp`, mcpUrl: `${hostile.baseUrl}/mcp`, timeoutMs: 3_000 }));
    expect(leaks(inCode, refreshToken)).toEqual([]);
    // The cut at 160 characters would leave the token's first 10: masking the raw text first leaves none of it.
    hostile.route('POST /api/oauth2/token', json({ error: 'invalid_grant', error_description: `${'x'.repeat(150)}${refreshToken}` }, 400));
    const atCut = await failure(refreshAccessToken({ tokenEndpoint: `${hostile.baseUrl}/api/oauth2/token`, clientId: 'cursor-plugin', refreshToken, resource: `${hostile.baseUrl}/mcp`, mcpUrl: `${hostile.baseUrl}/mcp`, timeoutMs: 3_000 }));
    expect(atCut.message).not.toContain(refreshToken.slice(0, 8));
    expect(atCut.message).toContain('****');
    const deviceCode = `device-code-${'Kp4'.repeat(60)}`;
    hostile.route('POST /api/oauth2/token', json({ error: 'server_error', error_description: `cannot use ${deviceCode}` }, 400));
    const poll = await pollDeviceToken({ endpoints: legacy(hostile.baseUrl), client, deviceCode, timeoutMs: 3_000 });
    expect(poll.kind).toBe('error');
    if (poll.kind === 'error') expect(leaks(poll.error, deviceCode)).toEqual([]);
  });

  it('token endpoint redirects a refresh (307, body and all) elsewhere: refused, the refresh token never travels', async () => {
    hostile.route('POST /api/oauth2/token', redirect(`${elsewhere.baseUrl}/token`, 307));
    const error = await failure(refreshAccessToken({ tokenEndpoint: `${hostile.baseUrl}/api/oauth2/token`, clientId: 'cursor-plugin', refreshToken: 'rt-must-not-travel', resource: `${hostile.baseUrl}/mcp`, mcpUrl: `${hostile.baseUrl}/mcp`, timeoutMs: 3_000 }));
    expect(error.code).toBe('invalid_response');
    expect(elsewhere.requests).toEqual([]);
  });

  it('session-start against a server that echoes the Bearer (as the account name and as catalog keys): the card masks it', async () => {
    const bearer = `echoed-${'b3arer'.repeat(12)}-token`;
    hostile.route('/api/auth/me', json({ data: { user_id: 1, email: `you are ${bearer}` } }));
    hostile.route('/mcp/actions', json({ total_actions: 'x', domains: { [bearer]: 5 } }));
    const dir = freshDir();
    await signInWith(dir, hostile.baseUrl, { access_token: bearer, expires_in: 3600, scope: 'openid' });
    const run = await sessionStart(dir, hostile.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(run.code).toBe(0);
    const card = String(run.json.additional_context);
    expect(card).toContain('you are ****');
    for (let i = 0; i + 12 <= bearer.length; i += 1) expect(card).not.toContain(bearer.slice(i, i + 12));
  });

  it('session-start against a server that redirects every call elsewhere: answers one JSON object, elsewhere sees nothing', async () => {
    for (const path of ['/api/auth/me', '/mcp/actions', '/api/oauth2/token', '/mcp/cache/clear']) hostile.route(path, redirect(`${elsewhere.baseUrl}${path}`, 307));
    const dir = freshDir();
    await signInWith(dir, hostile.baseUrl, { access_token: 'hostile.bearer.token', expires_in: 3600, scope: 'openid' });
    const run = await sessionStart(dir, hostile.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
    expect(run.code).toBe(0);
    expect(typeof run.json).toBe('object');
    // the hook did call the hostile server (so "elsewhere sees nothing" is about the redirects, not an idle run)
    expect(hostile.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/api/auth/me']));
    expect(elsewhere.requests).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain('hostile.bearer.token');
  });
});

describe('a server that hangs: every call bounded', () => {
  it.each(['me', 'actions', 'token', 'device'] as const)('route %s hangs: the kernel call ends with timeout within its deadline', async (route) => {
    core.setFaults({ endpointFaults: { [route]: { kind: 'hang' } } });
    const call = () => route === 'me' ? httpRequest({ url: `${core.baseUrl}/api/auth/me`, timeoutMs: 400 })
      : route === 'actions' ? fetchCatalog({ baseUrl: core.baseUrl, token: 't', timeoutMs: 400 })
      : route === 'device' ? requestDeviceCode({ endpoints: legacy(core.baseUrl), client, scope: 'openid', timeoutMs: 400 })
      : refreshAccessToken({ tokenEndpoint: `${core.baseUrl}/api/oauth2/token`, clientId: 'cursor-plugin', refreshToken: 'r', resource: `${core.baseUrl}/mcp`, mcpUrl: `${core.baseUrl}/mcp`, timeoutMs: 400 });
    // Beside it, a request the core answers: what a round trip costs this process now.
    const [{ value: error, ms, baselineMs }, deadlineMs] = await Promise.all([
      besideBaseline(() => failure(call()), () => httpRequest({ url: `${core.baseUrl}/mcp/health`, timeoutMs: 10_000 })),
      timerMs(400),
    ]);
    expect(error.code).toBe('timeout');
    expectWithinDeadline(ms, { deadlineMs, nominalMs: 400, baselineMs, what: `${route} hanging` });
  });

  it('session-start with me, actions and token all hanging and an expiring token: answers within its 20 s hook timeout', async () => {
    const dir = freshDir();
    await signInWith(dir, core.baseUrl, await core.issueTokens({ accessTokenTtl: 30 }));
    core.setFaults({ endpointFaults: { me: { kind: 'hang' }, actions: { kind: 'hang' }, token: { kind: 'hang' }, protected_resource: { kind: 'hang' }, as_metadata: { kind: 'hang' } } });
    const [run, startMs] = await Promise.all([sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }), scriptStartMs(SESSION_START_SCRIPT)]);
    expect(run.code).toBe(0);
    expectWithinDeadline(run.ms, { deadlineMs: SESSION_START_BUDGET_MS, baselineMs: startMs, what: 'session-start with every route hanging' });
    expect(String(run.json.additional_context ?? '')).not.toBe('');
  }, 20_000);
});

// Linux only: the fake opener is the `xdg-open` the `open` package runs there (macOS runs `open`, Windows its shell).
// The refusal itself is platform-free and covered by the unit tests of the URL rule.
describe.skipIf(process.platform !== 'linux')('hostile verification_uri: refused and never opened (device-code.mjs, real opener path)', () => {
  /** A fake `xdg-open` first on PATH: the `open` package runs it when it opens anything on Linux. */
  function fakeOpener(dir: string): { env: Record<string, string>; opened: () => string[] } {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const log = join(dir, 'opened.log');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    return {
      env: { PATH: `${bin}:${process.env.PATH}`, DISPLAY: ':99' },
      opened: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    };
  }

  it.each([
    'file:///etc/passwd',
    'javascript:alert(document.cookie)',
    'data:text/html,<script>alert(1)</script>',
    'http://evil.example/activate',
    'https://agentstack.tech/activate?x=$(touch MARKER)',
    'https://agentstack.tech/activate;rm -rf ~',
    'https://agentstack.tech/`id`',
  ])('%s: exit 1 with unsafe_url, no code shown, the opener never runs', async (template) => {
    const dir = freshDir();
    // a marker file of this run's own (a fixed path such as /tmp/pwned may be left over from anything)
    const marker = join(dir, 'pwned');
    const uri = template.replace('MARKER', marker);
    core.setFaults({ hostileVerificationUri: uri });
    const opener = fakeOpener(dir);
    const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir, args: ['--json'], env: opener.env });
    const done = await run.done;
    expect(done.code).toBe(1);
    expect(run.events.map((e) => e.event)).toEqual(['error']);
    expect(run.events[0]).toMatchObject({ error: 'unsafe_url' });
    expect(opener.opened()).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it('control: a safe verification URL does reach the fake opener (so the cases above prove something)', async () => {
    const dir = freshDir();
    const opener = fakeOpener(dir);
    const run = runDeviceCode({ baseUrl: core.baseUrl, cursorDir: dir, args: ['--json'], env: opener.env });
    const code = await run.waitFor('device_code');
    await core.approve(String(code.user_code));
    const done = await run.done;
    expect(done.code).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(opener.opened()).toEqual([String(code.verification_uri_complete)]);
  });
});

describe('attacker text quoted into the terminal (quoteShort)', () => {
  it('token 400 whose error carries control characters and a long description: a typed error, quoted cut short and without control characters', async () => {
    hostile.route('POST /api/oauth2/token', json({ error: 'bad\u001b[31mred\r\nline\u0007', error_description: 'x'.repeat(500) }, 400));
    const poll = await pollDeviceToken({ endpoints: legacy(hostile.baseUrl), client, deviceCode: 'dc', timeoutMs: 3_000 });
    expect(poll).toMatchObject({ kind: 'error', transient: false });
    if (poll.kind !== 'error') return;
    expect(poll.error.code).toBe('server');
    expect(poll.error.message).toContain('bad');
    expect(poll.error.message).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(poll.error.message).toContain('…');
    expect(poll.error.message.length).toBeLessThan(300);
    expect(hostile.requests.map((r) => r.path)).toEqual(['/api/oauth2/token']);
  });
});
