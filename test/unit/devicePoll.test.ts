import { describe, expect, it } from 'vitest';
import { initialPollState, nextPoll, pollUntilAuthorized, DEFAULT_POLL_TIMING } from '../../lib/agentstack/signIn/poll.js';
import { PluginError } from '../../lib/platform/errors.js';
import type { PollResult } from '../../lib/agentstack/auth/oauth.js';

const endpoints = { issuer: 'https://a', deviceAuthorizationEndpoint: 'https://a/d', tokenEndpoint: 'https://a/t', resource: 'https://a/mcp', source: 'builtin' as const };

/** Drives the loop with a scripted server and a fake clock; returns the waits it asked for. */
async function run(script: PollResult[], opts: { interval?: number; deadlineMs?: number } = {}) {
  let clock = 0;
  const waits: number[] = [];
  const events: unknown[] = [];
  const queue = [...script];
  const result = await pollUntilAuthorized({
    endpoints, client: { clientId: 'c' }, deviceCode: 'd', interval: opts.interval,
    deadline: opts.deadlineMs ?? 600_000,
    now: () => clock,
    sleep: async (ms) => { waits.push(ms); clock += ms; },
    poll: async () => queue.shift() ?? { kind: 'pending' },
    onEvent: (e) => events.push(e),
  }).then((tokens) => ({ tokens }), (error) => ({ error }));
  return { result, waits, events };
}

const ok: PollResult = { kind: 'success', tokens: { access_token: 'a', token_type: 'bearer' } };
const transient: PollResult = { kind: 'error', transient: true, error: new PluginError('server', 'HTTP 503', { details: { status: 503 } }) };

describe('RFC 8628 poll arithmetic', () => {
  it('uses the server interval, default 5 s', () => {
    expect(initialPollState(undefined).intervalMs).toBe(5000);
    expect(initialPollState(0).intervalMs).toBe(5000);
    expect(initialPollState(2).intervalMs).toBe(2000);
  });

  it('slow_down adds 5 s for every later poll, and the interval stays grown', () => {
    let s = initialPollState(5);
    let step = nextPoll(s, 'slow_down');
    expect(step.delayMs).toBe(10_000);
    step = nextPoll(step.state, 'pending');
    expect(step.delayMs).toBe(10_000);
    step = nextPoll(step.state, 'slow_down');
    expect(step.delayMs).toBe(15_000);
    s = step.state;
    expect(nextPoll(nextPoll(s, 'transient').state, 'pending').delayMs).toBe(15_000);
  });

  it('transient failures double the wait, capped, and reset on the next answer', () => {
    let s = initialPollState(5);
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const step = nextPoll(s, 'transient');
      delays.push(step.delayMs);
      s = step.state;
    }
    expect(delays).toEqual([10_000, 20_000, 40_000, 60_000, 60_000, 60_000]);
    expect(nextPoll(s, 'pending').delayMs).toBe(5000);
    expect(nextPoll(initialPollState(5), 'transient', { ...DEFAULT_POLL_TIMING, maxBackoffMs: 7000 }).delayMs).toBe(7000);
  });
});

describe('pollUntilAuthorized', () => {
  it('waits interval, slows down, keeps the slower pace, and returns the tokens', async () => {
    const { result, waits, events } = await run([{ kind: 'pending' }, { kind: 'slow_down' }, { kind: 'pending' }, ok], { interval: 1 });
    expect(result).toEqual({ tokens: ok.kind === 'success' && ok.tokens });
    expect(waits).toEqual([1000, 1000, 6000, 6000]);
    expect(events).toContainEqual({ event: 'slow_down', interval: 6 });
  });

  it('survives network errors and 5xx without giving up before expires_in', async () => {
    const { result, waits } = await run([transient, transient, transient, { kind: 'pending' }, ok], { interval: 1 });
    expect('tokens' in result).toBe(true);
    expect(waits).toEqual([1000, 2000, 4000, 8000, 1000]);
  });

  it('ends with expired_token at the deadline, polling one last time at it', async () => {
    const { result, waits } = await run([], { interval: 5, deadlineMs: 12_000 });
    expect((result as { error: PluginError }).error.code).toBe('expired_token');
    expect(waits).toEqual([5000, 5000, 2000]);
  });

  it('keeps retrying transient failures up to the deadline, then expires', async () => {
    const { result, waits } = await run(Array(50).fill(transient), { interval: 5, deadlineMs: 100_000 });
    expect((result as { error: PluginError }).error.code).toBe('expired_token');
    expect(waits.reduce((a, b) => a + b, 0)).toBe(100_000);
  });

  it.each([
    ['access_denied', /denied in the browser/],
    ['expired_token', /expired before it was approved/],
    ['invalid_grant', /boom/],
  ] as const)('stops on %s with a next step', async (code, message) => {
    const { result } = await run([{ kind: 'error', transient: false, error: new PluginError(code, 'boom') }]);
    expect((result as { error: PluginError }).error.code).toBe(code);
    expect((result as { error: PluginError }).error.message).toMatch(message);
  });

  it('stops at once when aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = pollUntilAuthorized({ endpoints, client: { clientId: 'c' }, deviceCode: 'd', interval: 30, deadline: Date.now() + 600_000, signal: controller.signal, poll: async () => ({ kind: 'pending' }) });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
    // At once, not at the next poll 30 s on: the interval, not a guess at the machine's speed, is the line.
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
