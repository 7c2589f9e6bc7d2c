/**
 * The body cap counts every byte of a response, not each chunk on its own: a server that drips a large body in small
 * pieces is refused on the buffered path (httpRequest, boundedFetch) and on the streamed event-stream path alike.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, httpRequest } from '../../lib/platform/net/http.js';

const PIECE = 'x'.repeat(200);
const PIECES = 20; // 4,000 bytes in all, each piece far under the 1,024-byte cap used below

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer(async (req, res) => {
    const eventStream = req.url === '/drip-events';
    res.writeHead(200, { 'content-type': eventStream ? 'text/event-stream' : 'application/octet-stream' });
    for (let i = 0; i < PIECES && !res.destroyed; i++) {
      res.write(eventStream ? `data: ${PIECE}\n\n` : PIECE);
      await new Promise((r) => setTimeout(r, 10)); // separate chunks on the client's side
    }
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => { server.closeAllConnections(); server.close(); });

describe('the body cap over a body that arrives in small pieces', () => {
  it('httpRequest refuses it once the pieces add up past the cap', async () => {
    await expect(httpRequest({ url: `${base}/drip`, maxBytes: 1024 })).rejects.toMatchObject({ code: 'invalid_response', message: expect.stringMatching(/larger than 1024 bytes/) });
    expect((await httpRequest({ url: `${base}/drip`, maxBytes: 4000 })).text).toHaveLength(4000);
  });

  it('boundedFetch refuses it on the buffered path', async () => {
    await expect(boundedFetch({ maxBytes: 1024 })(`${base}/drip`)).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('boundedFetch with streamEventStreams hands the stream over, then errors it once the total passes the cap', async () => {
    const res = await boundedFetch({ maxBytes: 1024, streamEventStreams: true })(`${base}/drip-events`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let received = 0;
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return null;
        received += value.byteLength;
      }
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'invalid_response', message: expect.stringMatching(/larger than 1024 bytes/) });
    expect(received).toBeLessThanOrEqual(1024); // what went through before the cap was reached
    // At exactly the cap, the same stream goes through whole.
    const whole = await (await boundedFetch({ maxBytes: PIECES * (PIECE.length + 8), streamEventStreams: true })(`${base}/drip-events`)).text();
    expect(whole.length).toBe(PIECES * (PIECE.length + 8));
  });
});
