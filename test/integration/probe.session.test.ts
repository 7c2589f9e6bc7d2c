/**
 * The probe's MCP session against the reference core on 127.0.0.1: only an expired session is re-initialized (any
 * other error passes through, once), a retry that fails for another reason is not called a second expiry, and
 * closing ends the session and the client, reporting a DELETE that could not be sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { boundedFetch } from '../../lib/platform/net/http.js';
import { connectLegacy, type ConnectOptions } from '../../lib/agentstack/probe/session.js';
import type { ProbeEvent } from '../../lib/agentstack/probe/types.js';

let core: RunningCore;
let token: string;
beforeAll(async () => {
  core = await startCore({ port: 0 });
  token = (await core.issueTokens()).access_token;
});
afterAll(() => core?.close());

const initializes = () => core.counters.requests['POST /mcp'] ?? 0;
function options(fetch: typeof globalThis.fetch = boundedFetch({ timeoutMs: 5_000 })): ConnectOptions & { events: ProbeEvent[] } {
  return { mcpUrl: core.mcpUrl, headers: { authorization: `Bearer ${token}` }, fetch, timeoutMs: 5_000, events: [] };
}

describe('connectLegacy', () => {
  it('passes an error that is not an expiry straight through: no re-initialize, no retry', async () => {
    const o = options();
    const connection = await connectLegacy(o);
    const before = initializes();
    await expect(connection.request('no/such-method', undefined, 'no/such-method')).rejects.toMatchObject({ code: -32601 });
    expect(o.events).toEqual([]);
    expect(initializes()).toBe(before + 1); // the one request, not a new session and a second try
    await connection.close();
  });

  it('re-initializes once on an expiry; a retry that then fails for another reason is not a second expiry', async () => {
    const o = options();
    const connection = await connectLegacy(o);
    const first = connection.sessionId;
    core.setFaults({ expireSessions: true });
    await expect(connection.request('no/such-method', undefined, 'no/such-method')).rejects.toMatchObject({ code: -32601 });
    // The retry's own failure is recorded as such (the session row points at it), never as the session lost again.
    expect(o.events.map((e) => e.kind)).toEqual(['reinitialized', 'retry_failed']);
    expect(connection.sessionId).toBeTruthy();
    expect(connection.sessionId).not.toBe(first);
    await connection.close();
  });

  it('close ends the session with DELETE and closes the client: nothing can be sent afterwards', async () => {
    const o = options();
    const connection = await connectLegacy(o);
    const sessions = core.mcpSessionCount();
    expect(await connection.close()).toEqual({ terminated: true });
    expect(core.mcpSessionCount()).toBe(sessions - 1);
    await expect(connection.request('tools/list', undefined, 'tools/list')).rejects.toThrow();
    expect(o.events).toEqual([]);
  });

  it('close reports a DELETE that could not be sent, and still closes the client', async () => {
    const inner = boundedFetch({ timeoutMs: 5_000 });
    const refusing = (async (input: string | URL | Request, init?: RequestInit) => {
      if (init?.method === 'DELETE') throw new Error('DELETE refused by the test');
      return inner(input, init);
    }) as typeof fetch;
    const o = options(refusing);
    const connection = await connectLegacy(o);
    const closed = await connection.close();
    expect(closed).toEqual({ terminated: false, error: expect.stringContaining('DELETE refused by the test') });
    expect(closed.error).not.toMatch(/^Error: /);
    await expect(connection.request('tools/list', undefined, 'tools/list')).rejects.toThrow();
  });
});
