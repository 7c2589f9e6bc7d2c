/**
 * The caller's AbortSignal and the deadline's own: a signal already aborted stops the request before it is sent, a
 * cancel with any reason (even null) is reported as a cancel, a deadline keeps the TimeoutError as its cause, and a
 * request lets go of the caller's signal once it is over (a long-lived signal shared by many requests, as the MCP
 * SDK's transport does, gathers no listeners).
 */
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, httpRequest } from '../../lib/platform/net/http.js';

let server: Server;
let base = '';
let requests = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    if (req.url === '/hang') return;
    if (req.url === '/events') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.write('data: one\n\n'); return; }
    if (req.url === '/events-end') { res.writeHead(200, { 'content-type': 'text/event-stream' }); res.end('data: one\n\n'); return; }
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => { server.closeAllConnections(); server.close(); });

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('the caller\'s signal', () => {
  it('already aborted: the request is cancelled and never reaches the server', async () => {
    const before = requests;
    await expect(httpRequest({ url: `${base}/ok`, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'aborted', message: `Request to ${base}/ok was cancelled` });
    await expect(boundedFetch()(`${base}/ok`, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'aborted' });
    expect(requests).toBe(before);
  });

  it('cancelled with a null reason: still a cancel, not a crash of the error handling', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(null), 50);
    await expect(httpRequest({ url: `${base}/hang`, signal: controller.signal })).rejects.toMatchObject({ code: 'aborted', message: `Request to ${base}/hang was cancelled` });
  });

  it('one signal shared by many requests: none of them leaves a listener on it', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 12; i++) {
      await httpRequest({ url: `${base}/ok`, signal: controller.signal });
      await boundedFetch()(`${base}/ok`, { signal: controller.signal });
    }
    expect(abortListeners(controller.signal)).toBe(0);
    // A failed request lets go of it too.
    await expect(httpRequest({ url: `${base}/hang`, signal: controller.signal, timeoutMs: 200 })).rejects.toMatchObject({ code: 'timeout' });
    expect(abortListeners(controller.signal)).toBe(0);
  });

  it('a streamed answer cut by the caller: the stream ends with the cancel and the signal keeps no listener', async () => {
    const controller = new AbortController();
    const res = await boundedFetch({ streamEventStreams: true, timeoutMs: 20_000 })(`${base}/events`, { signal: controller.signal });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    expect(abortListeners(controller.signal)).toBe(1); // the stream is still open: the caller can still cut it
    controller.abort(new Error('closed by the caller'));
    await expect(reader.read()).rejects.toThrow('closed by the caller');
    expect(abortListeners(controller.signal)).toBe(0);
  });
});

describe('the deadline', () => {
  it('keeps the TimeoutError that ended the request as the cause', async () => {
    const error = await httpRequest({ url: `${base}/hang`, timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout' });
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError', message: 'The operation timed out' });
  });
});

describe('streamed answers and the caller\'s signal', () => {
  it('a streamed answer read to its end lets go of the signal, so a session\'s signal gathers no listeners', async () => {
    const controller = new AbortController();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 12; i++) {
        const res = await boundedFetch({ streamEventStreams: true, timeoutMs: 20_000 })(`${base}/events-end`, { signal: controller.signal });
        expect(await res.text()).toBe('data: one\n\n');
      }
      expect(abortListeners(controller.signal)).toBe(0);
      // A stream its reader cancels lets go of it too.
      const res = await boundedFetch({ streamEventStreams: true, timeoutMs: 20_000 })(`${base}/events`, { signal: controller.signal });
      await res.body!.cancel();
      expect(abortListeners(controller.signal)).toBe(0);
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
