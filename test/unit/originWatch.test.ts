/**
 * A verify run's memory of servers that gave no answer, against real sockets: one deadline per silent origin, not one
 * per request; a slow answer or a refused connection is not "no answer"; a slow request is told once per origin.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, httpRequest } from '../../lib/platform/net/http.js';
import { isNoAnswer, watchOrigins } from '../../lib/platform/net/originWatch.js';
import { progressNotes } from '../../lib/platform/progress.js';
import { closedPort } from '../helpers/closedPort.js';

let silent: Server;
let silentBase = '';
const held: Socket[] = [];
let slow: HttpServer;
let slowBase = '';
beforeAll(async () => {
  silent = createServer((socket) => { held.push(socket); });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentBase = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  slow = createHttpServer((req, res) => {
    if (req.url === '/stall') { res.writeHead(200); res.write('{'); return; }
    setTimeout(() => res.end('{"ok":true}'), Number(new URL(req.url!, 'http://x').searchParams.get('ms') ?? 0));
  });
  await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
  slowBase = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
});
afterAll(() => {
  for (const s of held) s.destroy();
  silent.close();
  slow.closeAllConnections();
  slow.close();
});

const request = (url: string, timeoutMs = 300) => () => httpRequest({ url, timeoutMs });

describe('an origin that gave no answer is not asked again in the same run', () => {
  it('the second request to it fails at once, saying why; the first paid the deadline', async () => {
    const watch = watchOrigins();
    let started = performance.now();
    const first = await watch.run(`${silentBase}/a`, request(`${silentBase}/a`)).catch((e: unknown) => e);
    const firstMs = performance.now() - started;
    expect(isNoAnswer(first)).toBe(true);
    started = performance.now();
    const second = await watch.run(`${silentBase}/b`, request(`${silentBase}/b`, 5_000)).catch((e: unknown) => e);
    // Its own deadline is 5 s; refused without asking, it costs less than the first one's 0.3 s wait did.
    expect(performance.now() - started).toBeLessThan(firstMs);
    expect(second).toMatchObject({ code: 'timeout', message: `Not asked: ${silentBase} gave no answer to an earlier request within 0.3 s`, details: { not_asked: true } });
    // The refusal is itself "no answer", so a caller treats it like the deadline it stands for.
    expect(isNoAnswer(second)).toBe(true);
  });

  it('the same through a wrapped fetch (what the probe and the MCP SDK use), and other origins are still asked', async () => {
    const watch = watchOrigins();
    const fetchOnce = watch.fetch(boundedFetch({ timeoutMs: 300 }));
    await expect(fetchOnce(`${silentBase}/mcp`, { method: 'POST' })).rejects.toMatchObject({ code: 'timeout', details: { answered: false } });
    await expect(fetchOnce(new URL(`${silentBase}/mcp/health`))).rejects.toMatchObject({ message: expect.stringMatching(/^Not asked: /) });
    const res = await fetchOnce(`${slowBase}/?ms=0`);
    expect(res.status).toBe(200);
    // Separate runs keep separate memories.
    await expect(watchOrigins().run(`${silentBase}/c`, request(`${silentBase}/c`))).rejects.toMatchObject({ details: { answered: false, timeout_ms: 300 } });
  });

  it('a body still coming at the deadline, or a refused port, is not "no answer": the origin is asked again', async () => {
    const watch = watchOrigins();
    await expect(watch.run(`${slowBase}/stall`, request(`${slowBase}/stall`))).rejects.toMatchObject({ code: 'timeout', details: { answered: true } });
    expect((await watch.run(`${slowBase}/?ms=0`, request(`${slowBase}/?ms=0`))).status).toBe(200);
    const refused = `http://127.0.0.1:${await closedPort()}`;
    await expect(watch.run(`${refused}/x`, request(`${refused}/x`))).rejects.toMatchObject({ code: 'network' });
    await expect(watch.run(`${refused}/y`, request(`${refused}/y`))).rejects.toMatchObject({ code: 'network' });
  });
});

describe('a slow request is told once per origin', () => {
  it('after slowAfterMs, once for two slow requests to one origin; never for a fast one', async () => {
    const told: string[] = [];
    const watch = watchOrigins({ slowAfterMs: 100, onSlow: (origin) => told.push(origin) });
    await watch.run(`${slowBase}/?ms=0`, request(`${slowBase}/?ms=0`, 2_000));
    expect(told).toEqual([]);
    await Promise.all([
      watch.run(`${slowBase}/?ms=400`, request(`${slowBase}/?ms=400`, 2_000)),
      watch.run(`${slowBase}/?ms=400&b`, request(`${slowBase}/?ms=400&b`, 2_000)),
    ]);
    await watch.run(`${slowBase}/?ms=400`, request(`${slowBase}/?ms=400`, 2_000));
    expect(told).toEqual([slowBase]);
  });
});

describe('progress notes', () => {
  const stream = (isTTY: boolean) => {
    const lines: string[] = [];
    return { lines, stream: { isTTY, write: (t: string) => lines.push(t) } };
  };
  it('reach a terminal, one line each; never under --json, never a pipe or a log', () => {
    const tty = stream(true);
    progressNotes({ stream: tty.stream })('Checking…');
    expect(tty.lines).toEqual(['Checking…\n']);
    for (const [json, isTTY] of [[true, true], [false, false], [true, false]] as const) {
      const s = stream(isTTY);
      progressNotes({ json, stream: s.stream })('Checking…');
      expect(s.lines).toEqual([]);
    }
  });
});
