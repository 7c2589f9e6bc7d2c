import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { boundedFetch, httpRequest, parseJson } from '../../lib/platform/net/http.js';
import { closedPort } from '../helpers/closedPort.js';
import { besideBaseline, expectWithinDeadline, timerMs } from '../helpers/deadline.js';

// A small loopback server with one route per network behaviour the HTTP layer must survive.
let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/json') return res.end('{"ok":true}');
    if (req.url === '/big') return res.end('x'.repeat(2 * 1024 * 1024));
    if (req.url === '/hang') return; // never answers
    if (req.url === '/redirect') { res.writeHead(302, { location: 'http://127.0.0.2:1/steal' }); return res.end(); }
    if (req.url === '/reset') return req.socket.destroy();
    if (req.url === '/echo-auth') return res.end(JSON.stringify({ auth: req.headers.authorization ?? null }));
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => { server.closeAllConnections(); server.close(); });

describe('httpRequest', () => {
  it('returns status and text, and parses JSON against a schema', async () => {
    const res = await httpRequest({ url: `${base}/json` });
    expect(res.status).toBe(200);
    expect(parseJson(res, z.object({ ok: z.boolean() }), 'test doc')).toEqual({ ok: true });
    expect(() => parseJson(res, z.object({ ok: z.string() }), 'test doc')).toThrowError(/unexpected shape at ok/);
    expect(() => parseJson({ ...res, text: '{nope' }, z.object({}), 'test doc')).toThrowError(/not valid JSON/);
  });

  it('refuses a body larger than the cap', async () => {
    await expect(httpRequest({ url: `${base}/big`, maxBytes: 1024 })).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('gives up on a hung server at the deadline', async () => {
    // Beside it, a request answered at once: what a round trip costs this process now.
    const [{ value: error, ms, baselineMs }, deadlineMs] = await Promise.all([
      besideBaseline(() => httpRequest({ url: `${base}/hang`, timeoutMs: 200 }).catch((e: unknown) => e), () => httpRequest({ url: `${base}/json` })),
      timerMs(200),
    ]);
    expect(error).toMatchObject({ code: 'timeout' });
    expectWithinDeadline(ms, { deadlineMs, nominalMs: 200, baselineMs, what: 'a request to a hung server' });
  });

  it('reports a reset connection and a refused port as network errors', async () => {
    await expect(httpRequest({ url: `${base}/reset` })).rejects.toMatchObject({ code: 'network' });
    await expect(httpRequest({ url: `http://127.0.0.1:${await closedPort()}/` })).rejects.toMatchObject({ code: 'network' });
  });

  it('never follows a redirect (a Bearer must not travel to another origin)', async () => {
    const res = await httpRequest({ url: `${base}/redirect`, headers: { authorization: 'Bearer secret' } });
    expect(res.status).toBe(302);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await expect(httpRequest({ url: `${base}/hang`, signal: controller.signal })).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('boundedFetch (for libraries)', () => {
  it('behaves like fetch within the same limits', async () => {
    const f = boundedFetch({ timeoutMs: 300, maxBytes: 1024 });
    const res = await f(`${base}/echo-auth`, { headers: { authorization: 'Bearer abc' } });
    expect(await res.json()).toEqual({ auth: 'Bearer abc' });
    expect((await f(`${base}/redirect`)).status).toBe(302);
    // The cap, with a deadline a loaded machine cannot miss while 2 MiB arrive (the 300 ms one is for /hang).
    await expect(boundedFetch({ maxBytes: 1024 })(`${base}/big`)).rejects.toMatchObject({ code: 'invalid_response' });
    await expect(f(`${base}/hang`)).rejects.toMatchObject({ code: 'timeout' });
  });
});
