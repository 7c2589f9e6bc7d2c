/**
 * Which answers `boundedFetch` hands over as they arrive and which it buffers: only a `text/event-stream` answer, and
 * only when asked (`streamEventStreams`). A streamed answer keeps its status and headers and is traced like any
 * other (with no body); a 304 through it is a 304 with no body.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, setHttpTrace, type HttpExchange } from '../../lib/platform/net/http.js';

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    // An open stream: one event, then nothing until the client goes away.
    if (req.url === '/open-events') { res.writeHead(201, { 'content-type': 'text/event-stream', 'x-kept': 'yes' }); res.write('data: one\n\n'); return; }
    if (req.url === '/open-other') { res.writeHead(200, { 'content-type': 'application/x.text/event-stream' }); res.write('data: one\n\n'); return; }
    if (req.url === '/not-modified') { res.writeHead(304, { etag: '"v1"' }); return res.end(); }
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => { server.closeAllConnections(); server.close(); });
afterEach(() => setHttpTrace(undefined));

describe('streamed or buffered', () => {
  it('an event stream, asked for: handed over at once with its status and headers, and traced without a body', async () => {
    const seen: HttpExchange[] = [];
    setHttpTrace((exchange) => seen.push(exchange));
    const res = await boundedFetch({ streamEventStreams: true, timeoutMs: 20_000 })(`${base}/open-events`);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-kept')).toBe('yes');
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ status: 201, responseBody: null, url: `${base}/open-events` });
    await reader.cancel();
  });

  it('an event stream, not asked for: buffered, so a stream that stays open ends at the deadline', async () => {
    await expect(boundedFetch({ timeoutMs: 400 })(`${base}/open-events`)).rejects.toMatchObject({ code: 'timeout' });
  });

  it('another content type that merely contains text/event-stream: buffered too', async () => {
    await expect(boundedFetch({ streamEventStreams: true, timeoutMs: 400 })(`${base}/open-other`)).rejects.toMatchObject({ code: 'timeout' });
  });

  it('a 304 is a 304 with no body', async () => {
    const res = await boundedFetch({ streamEventStreams: true })(`${base}/not-modified`);
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe('"v1"');
    expect(await res.text()).toBe('');
  });
});
