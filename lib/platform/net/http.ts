/**
 * The one HTTP layer of the plugin: undici with `EnvHttpProxyAgent` (HTTPS_PROXY / HTTP_PROXY / NO_PROXY honoured, or
 * the values given to `setProxyOptions`),
 * a timeout on every request, a cap on every response body, and redirects never followed (a Bearer must not
 * travel to another origin). Failures are PluginErrors: `network`, `timeout`, `invalid_response`.
 */
import { EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { PluginError, quoteShort } from '../errors.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** Proxy values from somewhere other than the process environment; a value given here wins over its variable. */
export interface ProxyOptions {
  httpsProxy?: string;
  noProxy?: string;
}

let proxyOptions: ProxyOptions = {};
let sharedDispatcher: Dispatcher | undefined;
function dispatcher(): Dispatcher {
  sharedDispatcher ??= new EnvHttpProxyAgent({ ...proxyOptions });
  return sharedDispatcher;
}

/** One exchange as this layer saw it, handed to the trace as is: the receiver masks what it shows. */
export interface HttpExchange {
  method: string;
  url: string;
  /** null when no answer came (the `error` says why). */
  status: number | null;
  durationMs: number;
  requestHeaders: Array<[string, string]>;
  /** null when there is none or it is not text (a stream). */
  requestBody: string | null;
  responseHeaders: Array<[string, string]>;
  /** null when there is none, or it is handed over as a stream. */
  responseBody: string | null;
  error?: string;
}

export type HttpTrace = (exchange: HttpExchange) => void;

let trace: HttpTrace | undefined;

/** Every later exchange is handed to `next` (undefined: none); off, a request pays one comparison. */
export function setHttpTrace(next: HttpTrace | undefined): void {
  trace = next;
}

function bodyText(body: unknown): string | null {
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  return null;
}

/** Hands one exchange to the trace; a failing trace never fails the request. */
function traced(started: number, init: { method?: string; url: string; headers?: unknown; body?: unknown }, res: { status: number; headers: Iterable<[string, string]> } | null, responseBody: string | null, error?: unknown): void {
  try {
    trace?.({
      method: (init.method ?? 'GET').toUpperCase(),
      url: init.url,
      status: res?.status ?? null,
      durationMs: Math.round(performance.now() - started),
      requestHeaders: [...new Headers(init.headers as ConstructorParameters<typeof Headers>[0])],
      requestBody: bodyText(init.body),
      responseHeaders: res ? [...res.headers] : [],
      responseBody,
      ...(error === undefined ? {} : { error: (error as Error)?.message ?? String(error) }),
    });
  } catch { /* the trace is a bystander */ }
}

/** Sets the proxy options for every later request (the caller decides precedence; undefined keeps the variable). */
export function setProxyOptions(options: ProxyOptions): void {
  const next: ProxyOptions = {};
  if (options.httpsProxy !== undefined) next.httpsProxy = options.httpsProxy;
  if (options.noProxy !== undefined) next.noProxy = options.noProxy;
  proxyOptions = next;
  const previous = sharedDispatcher;
  sharedDispatcher = undefined;
  void previous?.close().catch(() => {});
}

export interface HttpRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams;
  timeoutMs?: number;
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  url: string;
}

/**
 * A signal that aborts at the deadline or when `signal` does. Built from a plain timer, not
 * `AbortSignal.any([AbortSignal.timeout(ms), signal])`: on Node 20 the collector may drop the timeout signal inside
 * `any`, and the request then never ends. The pending timer holds the controller, so the deadline always fires.
 * `release` stops the timer and the listener once the response is fully read.
 */
function deadlineSignal(timeoutMs: number, signal?: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  const timer = setTimeout(() => controller.abort(new DOMException('The operation timed out', 'TimeoutError')), timeoutMs);
  timer.unref?.();
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    release: () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); },
  };
}

/**
 * The failure as a PluginError. A deadline says whether the server answered at all (`details.answered`): no status
 * line before the deadline is "no answer"; a status line with a body still coming when it passed is a slow answer.
 */
function describeFailure(error: unknown, url: string, timeoutMs: number, signal: AbortSignal | undefined, answered: boolean): PluginError {
  if (error instanceof PluginError) return error;
  const name = (error as { name?: string })?.name;
  if (signal?.aborted) return new PluginError('aborted', `Request to ${url} was cancelled`, { cause: error });
  if (name === 'TimeoutError' || name === 'AbortError') {
    const seconds = Math.round(timeoutMs / 100) / 10;
    const message = answered ? `${url} did not finish its answer within ${seconds} s` : `No answer from ${url} within ${seconds} s`;
    return new PluginError('timeout', message, { cause: error, details: { answered, timeout_ms: timeoutMs } });
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (error as Error)?.message ?? 'unknown error';
  return new PluginError('network', `Could not reach ${url} (${quoteShort(detail, 120)})`, { cause: error });
}

/** Reads a body stream, refusing more than `maxBytes`. */
async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number, url: string): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new PluginError('invalid_response', `Response from ${url} is larger than ${maxBytes} bytes; refused`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** One request with a deadline covering connect, headers and the whole body. */
export async function httpRequest(req: HttpRequest): Promise<HttpResponse> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
  const { signal, release } = deadlineSignal(timeoutMs, req.signal);
  const started = trace ? performance.now() : 0;
  let answered = false;
  try {
    const res = await undiciFetch(req.url, {
      method: req.method ?? 'GET',
      headers: req.headers,
      body: req.body,
      redirect: 'manual',
      signal,
      dispatcher: dispatcher(),
    });
    answered = true;
    const bytes = await readCapped(res.body as ReadableStream<Uint8Array> | null, maxBytes, req.url);
    const text = Buffer.from(bytes).toString('utf8');
    if (trace) traced(started, req, res, text);
    return { status: res.status, headers: res.headers as unknown as Headers, text, url: req.url };
  } catch (error) {
    const failure = describeFailure(error, req.url, timeoutMs, req.signal, answered);
    if (trace) traced(started, req, null, null, failure);
    throw failure;
  } finally {
    release();
  }
}

/** Parses a JSON body and checks it against a zod schema; `what` names the document in the error. */
export function parseJson<T>(res: HttpResponse, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } }, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(res.text);
  } catch {
    throw new PluginError('invalid_response', `${what} from ${res.url} is not valid JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // Record keys in the path are the server's own text: bounded, like every other quote of it.
    const where = issue && issue.path.length ? issue.path.map((key) => quoteShort(String(key), 40)).join('.') : '(root)';
    throw new PluginError('invalid_response', `${what} from ${res.url} has an unexpected shape at ${where}: ${quoteShort(issue?.message ?? 'invalid', 120)}`);
  }
  return parsed.data;
}

/**
 * A body stream that errors once more than `maxBytes` went through it. `onEnd` runs once when it ends in any way (read
 * to its end, failed, over the cap, or cancelled by its reader), so the request can let go of its deadline and of the
 * caller's signal: a signal shared by a whole session (as the MCP SDK's transport does) then gathers no listeners.
 */
function cappedStream(body: ReadableStream<Uint8Array>, maxBytes: number, url: string, onEnd: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        onEnd();
        controller.error(error);
        return;
      }
      if (chunk.done) {
        onEnd();
        controller.close();
        return;
      }
      total += chunk.value.byteLength;
      if (total > maxBytes) {
        onEnd();
        controller.error(new PluginError('invalid_response', `Response from ${url} is larger than ${maxBytes} bytes; refused`));
        reader.cancel().catch(() => {});
        return;
      }
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      onEnd();
      return reader.cancel(reason);
    },
  });
}

/** A built Response has an empty `url`; the one fetched is kept, so a library's error can name it. */
function withUrl(response: Response, url: string): Response {
  Object.defineProperty(response, 'url', { value: url });
  return response;
}

/**
 * A `fetch` for libraries (oauth4webapi's customFetch, the MCP SDK's transport): same proxy, deadline, body cap and
 * no-redirect rule as `httpRequest`. The body is buffered, unless `streamEventStreams` is set and the response is
 * `text/event-stream`: then it is handed over as it arrives (still capped, still cut at the deadline), so a client
 * can act on each event of a stream the server keeps open.
 */
export function boundedFetch(options: { timeoutMs?: number; maxBytes?: number; streamEventStreams?: boolean } = {}): typeof fetch {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  // A named function, not an arrow inside `as`: the cast would hide its body from mutation testing.
  async function bounded(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const { signal, release } = deadlineSignal(timeoutMs, init?.signal ?? undefined);
    const started = trace ? performance.now() : 0;
    const sent = { url, method: init?.method, headers: init?.headers, body: init?.body };
    let streaming = false;
    let answered = false;
    try {
      const res = await undiciFetch(url, {
        ...(init as object),
        redirect: 'manual',
        signal,
        dispatcher: dispatcher(),
      } as Parameters<typeof undiciFetch>[1]);
      answered = true;
      const headers = res.headers as unknown as Headers;
      if (options.streamEventStreams && res.body && /^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '')) {
        streaming = true; // the deadline keeps running until the stream ends or is cut
        if (trace) traced(started, sent, res, null);
        return withUrl(new Response(cappedStream(res.body as ReadableStream<Uint8Array>, maxBytes, url, release), { status: res.status, statusText: res.statusText, headers }), url);
      }
      const bytes = await readCapped(res.body as ReadableStream<Uint8Array> | null, maxBytes, url);
      const noBody = res.status === 204 || res.status === 304;
      if (trace) traced(started, sent, res, Buffer.from(bytes).toString('utf8'));
      return withUrl(new Response(noBody ? null : bytes, { status: res.status, statusText: res.statusText, headers }), url);
    } catch (error) {
      const failure = describeFailure(error, url, timeoutMs, init?.signal ?? undefined, answered);
      if (trace) traced(started, sent, null, null, failure);
      throw failure;
    } finally {
      if (!streaming) release();
    }
  }
  return bounded as typeof fetch;
}
