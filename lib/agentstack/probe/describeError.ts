/**
 * One line for a failed MCP exchange, safe to print: the HTTP status, and from a server body only a JSON-RPC
 * error code/message or an OAuth `error`/`error_description`, cut short. Never the raw body.
 */
import { isPluginError, quoteShort } from '../../platform/errors.js';
import { scrubSecrets } from '../../platform/text/scrub.js';

/** The HTTP status of an SDK transport error (v1 `StreamableHTTPError`, v2 `SdkHttpError`), or null. */
export function httpStatusOf(error: unknown): number | null {
  const e = error as { code?: unknown; status?: unknown; message?: unknown; data?: { status?: unknown } } | null;
  if (!e || typeof e !== 'object') return null;
  if (typeof e.data?.status === 'number') return e.data.status;
  if (typeof e.status === 'number') return e.status;
  const message = typeof e.message === 'string' ? e.message : '';
  if (typeof e.code === 'number' && e.code >= 100 && e.code < 600 && /http/i.test(message)) return e.code;
  const m = /\bHTTP (\d{3})\b/.exec(message);
  return m ? Number(m[1]) : null;
}

/** The JSON body an SDK transport error quotes after its text (`Error POSTing to endpoint: {…}`), or null. */
function bodyOf(message: string): { error?: unknown; error_description?: unknown } | null {
  const start = message.indexOf('{');
  if (start < 0) return null;
  try {
    const body = JSON.parse(message.slice(start)) as unknown;
    return body && typeof body === 'object' ? body : null;
  } catch {
    return null; // not JSON: say nothing about the body
  }
}

/** The JSON-RPC error of an HTTP error's body (`{"error": {"code": …, "message": …}}`), or null. */
export function rpcErrorInBody(message: string): { code: unknown; message: string } | null {
  const error = bodyOf(message)?.error as { code?: unknown; message?: unknown } | undefined;
  if (!error || typeof error !== 'object') return null;
  return { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
}

function bodyHint(message: string): string | null {
  const rpc = rpcErrorInBody(message);
  if (rpc) return `JSON-RPC ${String(rpc.code)} ${quoteShort(rpc.message, 80)}`.trim();
  const body = bodyOf(message);
  if (typeof body?.error === 'string') {
    return `${quoteShort(body.error, 40)}${typeof body.error_description === 'string' ? `: ${quoteShort(body.error_description, 80)}` : ''}`;
  }
  return null;
}

export function describeError(error: unknown): string {
  if (isPluginError(error)) return error.message;
  const e = error as { code?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const status = httpStatusOf(error);
  if (status !== null) {
    const hint = bodyHint(message);
    return `HTTP ${status}${hint ? ` (${hint})` : ''}`;
  }
  if (typeof e?.code === 'number') {
    return `JSON-RPC error ${e.code}: ${quoteShort(message.replace(/^MCP error -?\d+:\s*/, ''), 100)}`;
  }
  // A transport error wrapping ours (timeout, network) keeps our message in its cause.
  const cause = (error as { cause?: unknown })?.cause;
  if (isPluginError(cause)) return cause.message;
  return quoteShort(message, 120);
}

/** describeError, plus for a 401/403 whether the request carried a Bearer (a 403 without one is not the token's fault). */
export function describeWithBearer(error: unknown, hadBearer: boolean): string {
  const text = describeError(error);
  const status = httpStatusOf(error);
  if (status !== 401 && status !== 403) return text;
  return `${text}${hadBearer ? ' although a Bearer was sent' : ' to a request without a Bearer'}`;
}

/**
 * The plain-text reason in an HTTP error's body (a Host or Origin check's "Access is only allowed at …"), with
 * `secrets` masked, control characters shown, cut short; null for a JSON or HTML body (JSON is read by
 * describeError, HTML is never quoted) or none.
 */
export function plainTextReason(error: unknown, secrets: ReadonlyArray<string | undefined> = []): string | null {
  if (httpStatusOf(error) === null) return null;
  const message = (error as { message?: unknown }).message;
  const m = typeof message === 'string' ? /Error POSTing to endpoint(?: \(HTTP \d{3}\))?:\s*([\s\S]*)$/.exec(message) : null;
  const text = m?.[1]?.trim() ?? '';
  if (!text || /^[{[<]/.test(text) || /^Redirect (to|not followed)/.test(text)) return null;
  return quoteShort(scrubSecrets(text, secrets), 120);
}
