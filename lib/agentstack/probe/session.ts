/**
 * The 2025 leg of the probe: the official SDK v1 `Client` over `StreamableHTTPClientTransport`, with what the SDK
 * does not do by itself: when the session has expired (HTTP 404, or a JSON-RPC "session not found", -32001 from the
 * SDK server, -32016 from others) it initializes once more on a NEW transport and retries the request once.
 *
 * The SDKs are imported statically on purpose: when a bundle reaches zod both statically and through `await import()`,
 * esbuild wraps zod in lazy initializers and (zod being marked side-effect free) skips the static importer's
 * initializer call, so module-level `z.looseObject(...)` throws "is not a constructor". Import this module
 * statically too; the probe only runs in scripts, never in a hook's hot path.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PluginError, isPluginError, quoteShort } from '../../platform/errors.js';
import { describeError, httpStatusOf, rpcErrorInBody } from './describeError.js';
import { LooseResultSchema } from './toolsList.js';
import type { Era, ProbeEvent } from './types.js';

export const PROBE_CLIENT = { name: 'agentstack-mcp-probe', version: '0.5.0' } as const;

export interface McpConnection {
  era: Era;
  protocolVersion?: string;
  serverInfo?: Record<string, unknown>;
  /** Raw `Mcp-Session-Id` (legacy only); callers mask it before showing it. */
  sessionId?: string;
  /** One JSON-RPC request; the result is only checked to be an object. */
  request(method: string, params: Record<string, unknown> | undefined, what: string): Promise<Record<string, unknown>>;
  /** Ends the session (DELETE for legacy) and closes the client; never throws. */
  close(): Promise<{ terminated: boolean; error?: string }>;
}

export interface ConnectOptions {
  mcpUrl: string;
  headers: Record<string, string>;
  fetch: typeof fetch;
  timeoutMs: number;
  events: ProbeEvent[];
  /** A fresh signal per request, aborted when its response stream closes with nothing to resume (recordingFetch). */
  closedEarly?: () => AbortSignal;
}

/** Codes meaning "this session is gone, start a new one". */
export const SESSION_NOT_FOUND_CODES: readonly number[] = [-32001, -32016];

const rpcText = (message: string) => quoteShort(message.replace(/^MCP error -?\d+:\s*/, ''), 60) || 'session not found';

/**
 * Why `error` means an expired session, or null. The SDK's transport puts an HTTP failure's status in `code` and the
 * body (with any JSON-RPC error) in the message: 404 is the spec's answer, 400 or 500 carrying -32001 / -32016 are
 * others'. -32001 is also the SDK's own client-side "Request timed out", so a -32001 that carries `data.timeout` or
 * says it timed out is not a lost session.
 */
export function sessionExpiryReason(error: unknown, sentSession = false): string | null {
  const e = error as { code?: unknown; message?: unknown; data?: { timeout?: unknown } } | null;
  if (!e || typeof e !== 'object') return null;
  const message = typeof e.message === 'string' ? e.message : '';
  const status = httpStatusOf(error);
  if (status !== null) {
    const rpc = rpcErrorInBody(message);
    const known = rpc && typeof rpc.code === 'number' && SESSION_NOT_FOUND_CODES.includes(rpc.code);
    // The SDK's example servers (server-everything among them) answer an id they do not know with 400 / -32000
    // "No valid session ID provided": a lost session too, when the request carried one.
    const refusedId = sentSession && status === 400 && rpc?.code === -32000 && /session/i.test(rpc.message);
    if (rpc && (known || refusedId)) return `HTTP ${status}, JSON-RPC error ${String(rpc.code)} (${rpcText(rpc.message)})`;
  }
  if (e.code === 404 && /streamable http error/i.test(message)) return 'HTTP 404 (session not found)';
  if (typeof e.code === 'number' && SESSION_NOT_FOUND_CODES.includes(e.code)) {
    if (e.data?.timeout !== undefined || /timed out/i.test(message)) return null;
    return `JSON-RPC error ${e.code} (${rpcText(message)})`;
  }
  return null;
}

/** The error a request fails with when its session could not be re-established: the rows it fails blame the session. */
function sessionLost(message: string, cause: unknown): PluginError {
  return new PluginError('server', message, { cause, details: { sessionLost: true } });
}

/**
 * Sends one request with the deadline and the signal that ends the wait when its stream closed early. The SDK wraps
 * an abort reason in its own -32001 "timed out" error, so the reason (ours, a PluginError) is thrown instead.
 */
export async function sendOnce<T>(options: ConnectOptions, send: (o: { timeout: number; signal?: AbortSignal }) => Promise<T>): Promise<T> {
  const signal = options.closedEarly?.();
  try {
    return await send({ timeout: sdkTimeoutMs(options.timeoutMs), ...(signal ? { signal } : {}) });
  } catch (error) {
    if (signal?.aborted && isPluginError(signal.reason)) throw signal.reason;
    throw error;
  }
}

/**
 * The SDK's own timeout for a request: a second past the transport's deadline, so a request that got no answer
 * fails with the transport's error (it names the URL and says whether the server answered at all) rather than the
 * SDK's bare -32001 "Request timed out", which would also abort the transport's request first.
 */
export function sdkTimeoutMs(timeoutMs: number): number {
  return timeoutMs + 1_000;
}

export const RESUME_OPTIONS = { maxRetries: 2, initialReconnectionDelay: 500, maxReconnectionDelay: 5000, reconnectionDelayGrowFactor: 2 } as const;

type V1 = { client: Client; transport: StreamableHTTPClientTransport };

async function openV1(options: ConnectOptions): Promise<V1> {
  const transport = new StreamableHTTPClientTransport(new URL(options.mcpUrl), {
    requestInit: { headers: options.headers },
    fetch: options.fetch,
    // A response stream that closes before its result (after an event with an id) is resumed with GET +
    // Last-Event-ID after the server's `retry`, else after these delays; the request's own deadline bounds it.
    reconnectionOptions: RESUME_OPTIONS,
  });
  const client = new Client(PROBE_CLIENT, { capabilities: {} });
  client.onerror = () => {}; // transport noise (e.g. the refused GET stream) is visible in the exchanges instead
  try {
    await client.connect(transport, { timeout: sdkTimeoutMs(options.timeoutMs) });
  } catch (error) {
    await transport.close().catch(() => {});
    throw error;
  }
  return { client, transport };
}

/** Connects with `initialize` (offering 2025-11-25; older versions the server picks are accepted by the SDK). */
export async function connectLegacy(options: ConnectOptions): Promise<McpConnection> {
  let current = await openV1(options);
  const connection: McpConnection = {
    era: 'legacy',
    request: async (method, params, what) => {
      const once = () => sendOnce(options, (o) => current.client.request({ method, ...(params ? { params } : {}) } as never, LooseResultSchema, o));
      try {
        return (await once()) as Record<string, unknown>;
      } catch (error) {
        const reason = sessionExpiryReason(error, current.transport.sessionId !== undefined);
        if (!reason) throw error;
        options.events.push({ kind: 'reinitialized', during: what, reason });
        await current.transport.close().catch(() => {});
        try {
          current = await openV1(options);
        } catch (refused) {
          const why = describeError(refused);
          options.events.push({ kind: 'reinitialize_failed', during: what, reason: why });
          throw sessionLost(`the session was lost (${reason}) and a new initialize failed (${why}); see mcp.session`, refused);
        }
        describe(connection, current);
        try {
          return (await once()) as Record<string, unknown>;
        } catch (again) {
          const second = sessionExpiryReason(again, current.transport.sessionId !== undefined);
          if (!second) {
            options.events.push({ kind: 'retry_failed', during: what, reason: describeError(again) });
            throw again;
          }
          options.events.push({ kind: 'session_expired_again', during: what, reason: second });
          throw sessionLost(`the session was lost (${reason}), and again right after a new initialize (${second}); see mcp.session`, again);
        }
      }
    },
    close: async () => {
      try {
        await current.transport.terminateSession();
        return { terminated: true };
      } catch (error) {
        return { terminated: false, error: quoteShort((error as Error)?.message ?? String(error), 160) };
      } finally {
        await current.client.close().catch(() => {});
      }
    },
  };
  describe(connection, current);
  return connection;
}

function describe(connection: McpConnection, v1: V1): void {
  connection.protocolVersion = v1.transport.protocolVersion;
  connection.serverInfo = v1.client.getServerVersion() as Record<string, unknown> | undefined;
  connection.sessionId = v1.transport.sessionId;
}
