/**
 * The API trace: the HTTP layer hands every exchange (both entry points, success and failure) to the trace, and the
 * formatter writes it for a person with every credential masked and remembered.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, httpRequest, setHttpTrace, type HttpExchange } from '../../lib/platform/net/http.js';
import { httpTraceFormatter, type TracedExchange } from '../../lib/platform/text/httpTrace.js';
import { closedPort } from '../helpers/closedPort.js';
import { findLeaks } from '../helpers/secretScan.js';

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('set-cookie', 'session=cookie-value-0123456789');
      res.end(JSON.stringify({ method: req.method, got: body.length }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => { server.closeAllConnections(); server.close(); });
afterEach(() => setHttpTrace(undefined));

describe('the HTTP layer hands each exchange to the trace', () => {
  it('httpRequest and boundedFetch, with what was sent and what came back; nothing once the trace is removed', async () => {
    const seen: HttpExchange[] = [];
    setHttpTrace((exchange) => seen.push(exchange));
    await httpRequest({ url: `${base}/a`, method: 'POST', headers: { authorization: 'Bearer abc' }, body: new URLSearchParams({ token: 'x' }) });
    await boundedFetch()(`${base}/b`, { method: 'PUT', headers: { 'x-one': '1' }, body: '{"k":1}' });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ method: 'POST', url: `${base}/a`, status: 200, requestBody: 'token=x', responseBody: '{"method":"POST","got":7}' });
    expect(seen[0]!.requestHeaders).toContainEqual(['authorization', 'Bearer abc']);
    expect(seen[0]!.responseHeaders).toContainEqual(['content-type', 'application/json']);
    expect(seen[1]).toMatchObject({ method: 'PUT', url: `${base}/b`, status: 200, requestBody: '{"k":1}' });
    expect(seen[1]!.requestHeaders).toContainEqual(['x-one', '1']);
    setHttpTrace(undefined);
    await httpRequest({ url: `${base}/c` });
    expect(seen).toHaveLength(2);
  });

  it('a request that gets no answer is traced with its error, and a trace that throws never fails the request', async () => {
    const seen: HttpExchange[] = [];
    setHttpTrace((exchange) => seen.push(exchange));
    const port = await closedPort();
    await expect(httpRequest({ url: `http://127.0.0.1:${port}/x` })).rejects.toMatchObject({ code: 'network' });
    expect(seen[0]).toMatchObject({ status: null, responseBody: null, error: expect.stringMatching(/Could not reach/) });
    setHttpTrace(() => { throw new Error('broken trace'); });
    await expect(httpRequest({ url: `${base}/d` })).resolves.toMatchObject({ status: 200 });
  });
});

const ACCESS = 'eyJhbGciOiJFUzI1NiJ9.payload-part-0123456789.signature-abcdef';
const REFRESH = 'rt_9Kt3Qm2Xs7VrT5yHw9Lc4NfZp1';
const DEVICE = 'dc_ylAEk39sLq0pWm2Rt8Zx4Nv6';
const SECRET = 'cs_7Hq2Vx9LpR4mZt8WcY3nKb6D';

function exchange(over: Partial<TracedExchange> = {}): TracedExchange {
  return { method: 'POST', url: 'https://as.example/token', status: 200, durationMs: 12, requestHeaders: [], requestBody: null, responseHeaders: [], responseBody: null, ...over };
}

describe('httpTraceFormatter', () => {
  const now = () => new Date('2026-01-02T03:04:05.000Z');

  it('writes the request line, the headers and the bodies for a person', () => {
    const text = httpTraceFormatter({ now })(exchange({ requestHeaders: [['accept', 'application/json']], requestBody: 'grant_type=x', responseHeaders: [['content-type', 'application/json']], responseBody: '{"ok":true}' }));
    expect(text).toBe([
      '2026-01-02T03:04:05.000Z POST https://as.example/token -> 200 (12 ms)',
      '  > accept: application/json',
      '  > grant_type=x',
      '  < content-type: application/json',
      '  < {"ok":true}',
      '',
    ].join('\n'));
    expect(httpTraceFormatter({ now })(exchange({ status: null, error: 'Could not reach it' }))).toMatch(/-> failed: Could not reach it \(12 ms\)/);
  });

  it('masks credential headers, form and JSON fields, URL query fields and a URL password, gh-style', () => {
    const format = httpTraceFormatter();
    const text = format(exchange({
      url: `https://user:hunter2-password@as.example/cb?code=${DEVICE}&state=visible`,
      requestHeaders: [['Authorization', `Bearer ${ACCESS}`], ['Cookie', 'sid=cookie-value-0123456789'], ['mcp-session-id', 'sess-0123456789abcdef']],
      requestBody: `grant_type=refresh_token&refresh_token=${REFRESH}&client_secret=${SECRET}&code_verifier=verifier-0123456789abcdef`,
      responseHeaders: [['Set-Cookie', 'a=cookie-value-0123456789; HttpOnly']],
      responseBody: JSON.stringify({ access_token: ACCESS, nested: [{ device_code: DEVICE }], user_code: 'ABCD-EFGH' }),
    }));
    expect(text).toContain('Authorization: Bearer eyJh****');
    expect(text).toContain('user:***@as.example');
    expect(text).toContain('state=visible');
    expect(text).toContain('"user_code":"ABCD-EFGH"');
    expect(text).toMatch(/grant_type=refresh_token&refresh_token=rt_9\*+&client_secret=cs_7\*+&code_verifier=veri\*+/);
    expect(findLeaks([{ what: 'trace', text }], [ACCESS, REFRESH, DEVICE, SECRET, 'hunter2-password', 'cookie-value-0123456789', 'verifier-0123456789abcdef', 'sess-0123456789abcdef'])).toEqual([]);
  });

  it('masks fields in text that is not whole JSON (cut short, an event stream) and after an auth scheme', () => {
    const text = httpTraceFormatter()(exchange({ responseBody: `event: message\ndata: {"refresh_token":"${REFRESH}","x":1} Basic ${SECRET}` }));
    expect(findLeaks([{ what: 'trace', text }], [REFRESH, SECRET])).toEqual([]);
    // One line per body: a newline from the server cannot start a line that looks like another entry.
    expect(text.trimEnd().split('\n')).toHaveLength(2);
  });

  it('leaves a challenge\'s auth-params readable (error="invalid_token" is what a trace is for); a credential after the scheme is still masked', () => {
    const challenge = 'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="expired"';
    const text = httpTraceFormatter()(exchange({ status: 401, responseHeaders: [['WWW-Authenticate', challenge]], responseBody: `echo: Bearer ${ACCESS}` }));
    expect(text).toContain(`WWW-Authenticate: ${challenge}`);
    expect(findLeaks([{ what: 'trace', text }], [ACCESS])).toEqual([]);
  });

  it('remembers what it masked: a server echoing a token elsewhere later does not get it through', () => {
    const format = httpTraceFormatter();
    format(exchange({ responseBody: JSON.stringify({ refresh_token: REFRESH }) }));
    const later = format(exchange({ url: 'https://as.example/me', responseBody: JSON.stringify({ echo: `your token is ${REFRESH}` }) }));
    expect(findLeaks([{ what: 'later', text: later }], [REFRESH])).toEqual([]);
    const seeded = httpTraceFormatter({ secrets: [SECRET] })(exchange({ responseBody: `plain ${SECRET} text` }));
    expect(findLeaks([{ what: 'seeded', text: seeded }], [SECRET])).toEqual([]);
  });

  it('bounds each body and says how much was left out; an image is only measured', () => {
    const text = httpTraceFormatter({ maxBody: 50 })(exchange({ responseBody: 'x'.repeat(500) }));
    expect(text).toContain(`  < ${'x'.repeat(50)}… (450 more characters)`);
    const image = httpTraceFormatter()(exchange({ responseHeaders: [['content-type', 'image/png']], responseBody: '\u0089PNG\r\n' }));
    expect(image).toContain('  < (6 characters of image/png: not shown)');
  });
});
