/**
 * A `fetch` for the MCP SDK transports that records every exchange (what was sent, what came back, how long it
 * took) so each check can say what happened on the wire. It records headers that matter to the protocol, never the
 * Authorization value and never a body.
 */
import { PluginError, quoteShort } from '../../platform/errors.js';
import { maskSecret } from '../../platform/text/mask.js';
import { watchEventStream } from './streamWatch.js';
import { parseBearerChallenge } from '../../platform/net/bearerChallenge.js';
import type { Exchange } from './types.js';

export interface Recorder {
  exchanges: Exchange[];
  fetch: typeof fetch;
  /**
   * A signal for the next request (the probe sends one at a time): aborted, with a PluginError saying why, when a
   * POST's event stream ends with neither its result nor an event id to resume from (see streamWatch.ts).
   */
  closedEarly(): AbortSignal;
}

export const STREAM_CLOSED_EARLY = 'the response stream closed before its result, with no event id to resume from';

function headerOf(headers: RequestInit["headers"] | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  return new Headers(headers).get(name) ?? undefined;
}

/** JSON-RPC method(s) and tools/call name of a request body, for the record. */
export function describeBody(body: unknown): { rpcMethod?: string; toolName?: string } {
  if (typeof body !== 'string') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const methods = messages.map((m) => (m && typeof m === 'object' ? (m as { method?: unknown }).method : undefined)).filter((m): m is string => typeof m === 'string');
  const first = messages[0] as { method?: unknown; params?: { name?: unknown } } | undefined;
  const toolName = first?.method === 'tools/call' && typeof first.params?.name === 'string' ? quoteShort(first.params.name, 130) : undefined;
  return {
    ...(methods.length ? { rpcMethod: methods.map((m) => quoteShort(m, 60)).join(',') } : {}),
    ...(toolName ? { toolName } : {}),
  };
}

function elapsed(start: number): number {
  return Math.round((performance.now() - start) * 10) / 10;
}

/**
 * Wraps `inner`. A GET without Last-Event-ID (the standalone server-to-client SSE stream of the 2025 transport) is
 * answered locally with 405: the probe has no use for server-initiated messages. A GET with Last-Event-ID is the
 * transport resuming a response stream that closed before its result, and goes to the server.
 */
export function recordingFetch(inner: typeof fetch): Recorder {
  const exchanges: Exchange[] = [];
  const started = performance.now();
  let current = new AbortController();
  const wrapped = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const httpMethod = (init?.method ?? 'GET').toUpperCase();
    const sid = headerOf(init?.headers, 'mcp-session-id');
    const lastEventId = headerOf(init?.headers, 'last-event-id');
    const record: Exchange = {
      seq: exchanges.length + 1,
      httpMethod,
      url,
      ...describeBody(init?.body),
      sent: {
        ...(sid ? { sessionId: maskSecret(sid) } : {}),
        ...optional('protocolVersion', headerOf(init?.headers, 'mcp-protocol-version')),
        ...optional('mcpMethod', headerOf(init?.headers, 'mcp-method')),
        ...optional('mcpName', headerOf(init?.headers, 'mcp-name')),
        ...optional('lastEventId', lastEventId),
        authorization: Boolean(headerOf(init?.headers, 'authorization')),
      },
      atMs: elapsed(started),
      durationMs: 0,
    };
    exchanges.push(record);
    if (httpMethod === 'GET' && !lastEventId) {
      record.status = 405;
      record.note = 'standalone SSE stream not opened by the probe';
      return new Response(null, { status: 405, headers: { allow: 'POST, DELETE' } });
    }
    const start = performance.now();
    try {
      const res = await inner(input, init);
      record.durationMs = elapsed(start);
      record.status = res.status;
      const contentType = res.headers.get('content-type');
      if (contentType) record.contentType = quoteShort(contentType, 80);
      const answered = res.headers.get('mcp-session-id');
      if (answered) record.sessionId = maskSecret(answered);
      const bearerError = res.status === 401 || res.status === 403 ? parseBearerChallenge(res.headers.get('www-authenticate'))?.params.error : undefined;
      if (bearerError) record.bearerError = quoteShort(bearerError, 60);
      if (httpMethod === 'POST' && res.status === 200 && /text\/event-stream/i.test(contentType ?? '') && isRequestBody(init?.body)) {
        const waiting = current;
        return watchEventStream(res, () => {
          record.note = STREAM_CLOSED_EARLY;
          waiting.abort(new PluginError('invalid_response', STREAM_CLOSED_EARLY));
        });
      }
      return res;
    } catch (error) {
      record.durationMs = elapsed(start);
      record.error = quoteShort((error as Error)?.message ?? String(error), 160);
      throw error;
    }
  }) as typeof fetch;
  const closedEarly = () => {
    current = new AbortController();
    return current.signal;
  };
  return { exchanges, fetch: wrapped, closedEarly };
}

/** A body holding a JSON-RPC request (a method and an id), which an event stream must answer. */
function isRequestBody(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const m = JSON.parse(body) as { id?: unknown; method?: unknown };
    return typeof m === 'object' && m !== null && m.id !== undefined && typeof m.method === 'string';
  } catch {
    return false;
  }
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value ? ({ [key]: quoteShort(value, 130) } as Record<K, string>) : {};
}
