/**
 * The RFC 8628 polling loop. The interval arithmetic is pure (`nextPoll`) so it is tested without waiting:
 * the server's `interval` (default 5 s); `slow_down` adds 5 s to it for every later poll; network errors and 5xx
 * back off by doubling, capped, and never end the flow before `expires_in`.
 */
import { PluginError } from '../../platform/errors.js';
import { pollDeviceToken, type OAuthClient, type OAuthEndpoints, type PollResult, type TokenSet } from '../auth/oauth.js';

export interface PollTiming {
  /** What one server second is worth here (1000 in production; smaller in tests). */
  secondMs: number;
  /** Added to the interval on `slow_down` (RFC 8628: 5 s). */
  slowDownIncrementMs: number;
  /** Upper bound of the back-off after network errors and 5xx. */
  maxBackoffMs: number;
}

export const DEFAULT_POLL_TIMING: PollTiming = { secondMs: 1000, slowDownIncrementMs: 5000, maxBackoffMs: 60_000 };

export interface PollState {
  intervalMs: number;
  /** The current back-off after transient failures; 0 when the last poll got an answer. */
  backoffMs: number;
}

export function initialPollState(serverInterval: number | undefined, timing: PollTiming = DEFAULT_POLL_TIMING): PollState {
  const seconds = typeof serverInterval === 'number' && Number.isFinite(serverInterval) && serverInterval > 0 ? serverInterval : 5;
  return { intervalMs: seconds * timing.secondMs, backoffMs: 0 };
}

/** The state after a poll's outcome, and how long to wait before the next poll. */
export function nextPoll(state: PollState, outcome: 'pending' | 'slow_down' | 'transient', timing: PollTiming = DEFAULT_POLL_TIMING): { state: PollState; delayMs: number } {
  if (outcome === 'slow_down') {
    const intervalMs = state.intervalMs + timing.slowDownIncrementMs;
    return { state: { intervalMs, backoffMs: 0 }, delayMs: intervalMs };
  }
  if (outcome === 'transient') {
    const backoffMs = Math.min(Math.max(state.backoffMs * 2, state.intervalMs * 2), Math.max(timing.maxBackoffMs, state.intervalMs));
    return { state: { ...state, backoffMs }, delayMs: backoffMs };
  }
  return { state: { ...state, backoffMs: 0 }, delayMs: state.intervalMs };
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const abortableSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new PluginError('aborted', 'Sign-in cancelled'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new PluginError('aborted', 'Sign-in cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export type PollEvent =
  | { event: 'pending'; seconds_left: number }
  | { event: 'slow_down'; interval: number }
  | { event: 'retrying'; message: string; delay_s: number };

export interface PollArgs {
  endpoints: OAuthEndpoints;
  client: OAuthClient;
  deviceCode: string;
  interval?: number;
  /** Epoch ms after which the code is dead. */
  deadline: number;
  signal?: AbortSignal;
  sleep?: Sleep;
  now?: () => number;
  timing?: Partial<PollTiming>;
  onEvent?: (event: PollEvent) => void;
  /** For tests: replaces the real poll request. */
  poll?: () => Promise<PollResult>;
}

const EXPIRED_MESSAGE = 'The code expired before it was approved. Run the sign-in again to get a new code.';

/** Polls until the code is approved (tokens), denied, or expired; throws PluginError on every other end. */
export async function pollUntilAuthorized(args: PollArgs): Promise<TokenSet> {
  const timing = { ...DEFAULT_POLL_TIMING, ...args.timing };
  const sleep = args.sleep ?? abortableSleep;
  const now = args.now ?? Date.now;
  const poll = args.poll ?? (() => pollDeviceToken({ endpoints: args.endpoints, client: args.client, deviceCode: args.deviceCode, signal: args.signal }));
  let state = initialPollState(args.interval, timing);
  let delayMs = state.intervalMs;
  for (;;) {
    const left = args.deadline - now();
    if (left <= 0) throw new PluginError('expired_token', EXPIRED_MESSAGE);
    await sleep(Math.min(delayMs, left), args.signal);
    const result = await poll();
    if (result.kind === 'success') return result.tokens;
    if (result.kind === 'error' && !result.transient) {
      if (result.error.code === 'expired_token') throw new PluginError('expired_token', EXPIRED_MESSAGE);
      if (result.error.code === 'access_denied') {
        throw new PluginError('access_denied', 'The sign-in was denied in the browser. Run it again and choose Allow to connect Cursor.');
      }
      throw result.error;
    }
    const outcome = result.kind === 'error' ? 'transient' : result.kind;
    ({ state, delayMs } = nextPoll(state, outcome, timing));
    if (outcome === 'slow_down') args.onEvent?.({ event: 'slow_down', interval: state.intervalMs / timing.secondMs });
    else if (outcome === 'pending') args.onEvent?.({ event: 'pending', seconds_left: Math.max(0, Math.round((args.deadline - now()) / 1000)) });
    else if (result.kind === 'error') args.onEvent?.({ event: 'retrying', message: result.error.message, delay_s: Math.round(delayMs / 100) / 10 });
  }
}
