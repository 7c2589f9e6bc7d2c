/**
 * What the HTTP layer hands to the trace for one exchange, field by field (a bytes body as its text, a duration
 * within what the caller measured, no response headers and the exact failure message when no answer came, no error
 * on a success), and the URL a `boundedFetch` response keeps for the libraries that name it in their errors.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, httpRequest, setHttpTrace, type HttpExchange } from '../../lib/platform/net/http.js';
import { closedPort } from '../helpers/closedPort.js';

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      if (req.url === '/events') { res.writeHead(200, { 'content-type': 'text/event-stream' }); return res.end('data: x\n\n'); }
      const wait = req.url === '/slow' ? 150 : 0;
      setTimeout(() => res.end(JSON.stringify({ got: body })), wait);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => { server.closeAllConnections(); server.close(); });
afterEach(() => setHttpTrace(undefined));

function record(): HttpExchange[] {
  const seen: HttpExchange[] = [];
  setHttpTrace((exchange) => seen.push(exchange));
  return seen;
}

describe('the exchange handed to the trace', () => {
  it('a body sent as bytes is shown as its text', async () => {
    const seen = record();
    const res = await boundedFetch()(`${base}/bytes`, { method: 'POST', body: new TextEncoder().encode('{"k":"é"}') });
    expect(await res.json()).toEqual({ got: '{"k":"é"}' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', requestBody: '{"k":"é"}' });
  });

  it('the duration lies between the server\'s own wait and what the caller measured around the call', async () => {
    const seen = record();
    const started = performance.now();
    await httpRequest({ url: `${base}/slow` });
    const elapsed = performance.now() - started;
    expect(seen[0]!.durationMs).toBeGreaterThanOrEqual(140);
    expect(seen[0]!.durationMs).toBeLessThanOrEqual(Math.ceil(elapsed) + 1);
  });

  it('a success carries no error; a request with no answer has no response headers and the failure\'s own message', async () => {
    const seen = record();
    await httpRequest({ url: `${base}/ok` });
    expect(seen[0]).not.toHaveProperty('error');
    expect(seen[0]!.responseHeaders.length).toBeGreaterThan(0);
    const url = `http://127.0.0.1:${await closedPort()}/x`;
    const failure = (await httpRequest({ url }).catch((e: unknown) => e)) as Error;
    await expect(boundedFetch()(url)).rejects.toMatchObject({ code: 'network' });
    expect(seen).toHaveLength(3);
    for (const exchange of seen.slice(1)) {
      expect(exchange).toMatchObject({ method: 'GET', url, status: null, responseHeaders: [], responseBody: null });
      expect(exchange.error).toBe(failure.message);
    }
  });
});

describe('boundedFetch responses', () => {
  it('keep the URL that was fetched, buffered or streamed', async () => {
    const buffered = await boundedFetch()(`${base}/ok`);
    expect(buffered.url).toBe(`${base}/ok`);
    const streamed = await boundedFetch({ streamEventStreams: true })(new URL(`${base}/events`));
    expect(streamed.url).toBe(`${base}/events`);
    expect(await streamed.text()).toBe('data: x\n\n');
  });
});
