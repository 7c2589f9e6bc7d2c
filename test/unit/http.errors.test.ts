/**
 * What the HTTP layer says when a request fails, and the exact edges of its rules: a person reads these messages, so
 * each names the URL and what happened; the cap admits a body of exactly maxBytes; GET unless told otherwise.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { boundedFetch, httpRequest, parseJson } from '../../lib/platform/net/http.js';
import { closedPort } from '../helpers/closedPort.js';

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/method') return res.end(req.method);
    if (req.url === '/exact') return res.end('y'.repeat(1024));
    if (req.url === '/empty') return res.writeHead(204).end();
    if (req.url === '/hang') return;
    if (req.url === '/stall') { res.writeHead(200, { 'content-type': 'application/json' }); res.write('{"half":'); return; }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => { server.closeAllConnections(); server.close(); });

describe('failures name the URL and what happened', () => {
  it('a deadline: "No answer from <url> within N s", with the cause kept', async () => {
    const error = await httpRequest({ url: `${base}/hang`, timeoutMs: 250 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', message: `No answer from ${base}/hang within 0.3 s`, details: { answered: false, timeout_ms: 250 } });
    expect((error as Error).cause).toBeDefined();
    await expect(boundedFetch({ timeoutMs: 250 })(`${base}/hang`)).rejects.toMatchObject({ code: 'timeout', details: { answered: false } });
  });

  it('a body still coming at the deadline: "<url> did not finish its answer within N s" (it did answer)', async () => {
    const error = await httpRequest({ url: `${base}/stall`, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', message: `${base}/stall did not finish its answer within 0.3 s`, details: { answered: true, timeout_ms: 300 } });
    await expect(boundedFetch({ timeoutMs: 300 })(`${base}/stall`)).rejects.toMatchObject({ code: 'timeout', message: `${base}/stall did not finish its answer within 0.3 s`, details: { answered: true } });
  });

  it('a cancel: "Request to <url> was cancelled", with the cause kept', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await httpRequest({ url: `${base}/hang`, signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'aborted', message: `Request to ${base}/hang was cancelled` });
    expect((error as Error).cause).toBeDefined();
  });

  it('a refused port: "Could not reach <url> (ECONNREFUSED)", with the cause kept; boundedFetch says the same', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/x`;
    const error = await httpRequest({ url }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network', message: `Could not reach ${url} (ECONNREFUSED)` });
    expect((error as Error).cause).toBeDefined();
    await expect(boundedFetch()(url)).rejects.toMatchObject({ code: 'network', message: `Could not reach ${url} (ECONNREFUSED)` });
  });

  it('a failure with no cause and no message (a library\'s headers that throw null): "Could not reach <url> (unknown error)"', async () => {
    const headers = Object.defineProperty({}, 'x-broken', { enumerable: true, get: () => { throw null; } }) as Record<string, string>;
    await expect(boundedFetch()(`${base}/method`, { headers })).rejects.toMatchObject({ code: 'network', message: `Could not reach ${base}/method (unknown error)` });
  });
});

describe('the edges of the rules', () => {
  it('a body of exactly maxBytes is accepted, one byte less of room is refused', async () => {
    expect((await httpRequest({ url: `${base}/exact`, maxBytes: 1024 })).text).toHaveLength(1024);
    expect(await (await boundedFetch({ maxBytes: 1024 })(`${base}/exact`)).text()).toHaveLength(1024);
    await expect(httpRequest({ url: `${base}/exact`, maxBytes: 1023 })).rejects.toMatchObject({ code: 'invalid_response', message: `Response from ${base}/exact is larger than 1023 bytes; refused` });
  });

  it('GET unless a method is given; a 204 has an empty body', async () => {
    expect((await httpRequest({ url: `${base}/method` })).text).toBe('GET');
    expect((await httpRequest({ url: `${base}/method`, method: 'POST', body: 'x' })).text).toBe('POST');
    expect(await httpRequest({ url: `${base}/empty` })).toMatchObject({ status: 204, text: '' });
    const res = await boundedFetch()(`${base}/empty`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });
});

describe('parseJson', () => {
  const res = (text: string) => ({ status: 200, headers: new Headers(), text, url: 'https://srv.example/doc' });
  it('not JSON: invalid_response naming the document and the URL', () => {
    expect(() => parseJson(res('{nope'), z.object({}), 'The doc')).toThrowError(expect.objectContaining({ code: 'invalid_response', message: 'The doc from https://srv.example/doc is not valid JSON' }));
  });

  it('the wrong shape: invalid_response with the path (dotted) or (root), and the schema\'s message', () => {
    const nested = z.object({ a: z.object({ b: z.string() }) });
    let error: unknown;
    try { parseJson(res('{"a":{"b":1}}'), nested, 'The doc'); } catch (e) { error = e; }
    expect(error).toMatchObject({ code: 'invalid_response', message: expect.stringMatching(/^The doc from https:\/\/srv\.example\/doc has an unexpected shape at a\.b: \S/) });
    try { parseJson(res('[]'), z.object({}), 'The doc'); } catch (e) { error = e; }
    expect(error).toMatchObject({ code: 'invalid_response', message: expect.stringMatching(/has an unexpected shape at \(root\): \S/) });
  });

  it('a schema that fails with no issue still gets a clear message', () => {
    const silent = { safeParse: () => ({ success: false as const, error: { issues: [] } }) };
    expect(() => parseJson(res('{}'), silent, 'The doc')).toThrowError('The doc from https://srv.example/doc has an unexpected shape at (root): invalid');
  });
});
