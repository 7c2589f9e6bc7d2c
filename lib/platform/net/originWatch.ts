/**
 * For a run of many requests to the same servers (a verify run): an origin that gave no answer to one request (no
 * status line before its deadline) is not asked again in that run, so a server that accepts connections and never
 * answers costs one deadline, not one per request. Also tells, once per origin, when one of its requests is slow.
 */
import { PluginError, isPluginError } from '../errors.js';

export interface OriginWatchOptions {
  /** Called once per origin when one of its requests has been waiting `slowAfterMs`: a progress note. */
  onSlow?: (origin: string) => void;
  slowAfterMs?: number;
}

export interface OriginWatch {
  /** Runs `send` for `url`, unless `url`'s origin already gave no answer in this run: then fails at once. */
  run<T>(url: string, send: () => Promise<T>): Promise<T>;
  /** `inner` with the same rule, for libraries that take a `fetch`. */
  fetch(inner: typeof fetch): typeof fetch;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** A request that got no status line before its deadline (a slow body or a refused connection is not that). */
export function isNoAnswer(error: unknown): error is PluginError {
  return isPluginError(error, 'timeout') && error.details?.answered === false;
}

function notAsked(origin: string, earlier: PluginError): PluginError {
  const ms = Number(earlier.details?.timeout_ms);
  const within = Number.isFinite(ms) ? ` within ${Math.round(ms / 100) / 10} s` : '';
  return new PluginError('timeout', `Not asked: ${origin} gave no answer to an earlier request${within}`, { details: { answered: false, not_asked: true, ...(Number.isFinite(ms) ? { timeout_ms: ms } : {}) } });
}

export function watchOrigins(options: OriginWatchOptions = {}): OriginWatch {
  const silent = new Map<string, PluginError>();
  const told = new Set<string>();
  const slowAfterMs = options.slowAfterMs ?? 3_000;

  async function run<T>(url: string, send: () => Promise<T>): Promise<T> {
    const origin = originOf(url);
    const earlier = silent.get(origin);
    if (earlier) throw notAsked(origin, earlier);
    const onSlow = options.onSlow;
    const timer = onSlow && !told.has(origin)
      ? setTimeout(() => {
        if (told.has(origin)) return;
        told.add(origin);
        onSlow(origin);
      }, slowAfterMs)
      : undefined;
    timer?.unref?.();
    try {
      return await send();
    } catch (error) {
      if (isNoAnswer(error) && !silent.has(origin)) silent.set(origin, error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    run,
    fetch: (inner) => ((input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      return run(url, () => inner(input, init));
    }) as typeof fetch,
  };
}
