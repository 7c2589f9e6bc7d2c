/**
 * An HTTP exchange written out for a person reading a debug trace (like `GH_DEBUG=api`): the request line with its
 * status and duration, then the headers and a bounded part of each body, with every credential masked the gh way.
 * Masked are the values of credential headers (Authorization, cookies, API keys, MCP session ids), of credential fields in a query,
 * a form or a JSON body (tokens, codes, verifiers, client secrets, passwords), and the password of a URL; every value
 * masked once is remembered, and any run of 12 of its characters is scrubbed from everything written after (a
 * server that echoes a token elsewhere does not get it into the trace either).
 */
import { maskUrlCredentials } from '../net/proxyUrl.js';
import { displayText } from './displayText.js';
import { maskSecret } from './mask.js';
import { scrubSecrets } from './scrub.js';

/** The fields of an exchange the formatter reads (the HTTP layer's HttpExchange has them). */
export interface TracedExchange {
  method: string;
  url: string;
  status: number | null;
  durationMs: number;
  requestHeaders: ReadonlyArray<readonly [string, string]>;
  requestBody: string | null;
  responseHeaders: ReadonlyArray<readonly [string, string]>;
  responseBody: string | null;
  error?: string;
}

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'dpop', 'mcp-session-id']);
const SECRET_FIELDS = new Set([
  'access_token', 'refresh_token', 'id_token', 'token', 'device_code', 'code', 'code_verifier', 'client_secret',
  'client_assertion', 'assertion', 'subject_token', 'actor_token', 'password', 'api_key', 'apikey', 'secret',
]);
const FIELD_NAMES = [...SECRET_FIELDS].join('|');
/** `"field": "value"` in text that is not whole JSON (cut short, or JSON inside an event stream). */
const JSON_FIELD = new RegExp(`("(?:${FIELD_NAMES})"\\s*:\\s*")((?:[^"\\\\]|\\\\.)*)(")`, 'gi');
/** `field=value` in a form or a query. */
const FORM_FIELD = new RegExp(`((?:^|[?&\\s])(?:${FIELD_NAMES})=)([^&\\s"]*)`, 'gi');
const AUTH_SCHEME = /\b(Bearer|Basic|DPoP)\s+([A-Za-z0-9\-._~+/]+=*)/g;
/**
 * What follows a scheme in a challenge (`Bearer error="invalid_token", resource_metadata="…"`): an auth-param's name
 * and `=`, then its value. Not a credential, so it stays readable (RFC 6750 §3's error codes are what a trace is for).
 */
const AUTH_PARAM = /^[a-z][a-z0-9_-]{0,40}=$/i;

export interface TraceFormatOptions {
  /** Characters of each body shown (default 2000); the rest is counted, not shown. */
  maxBody?: number;
  /** Values known to be secret before any exchange (a client secret from the environment). */
  secrets?: ReadonlyArray<string | null | undefined>;
  /** The clock of the entry's time stamp (tests). */
  now?: () => Date;
}

export type TraceFormatter = (exchange: TracedExchange) => string;

/** A formatter that remembers, for the life of the process, every value it masked. */
export function httpTraceFormatter(options: TraceFormatOptions = {}): TraceFormatter {
  const known = new Set<string>();
  for (const s of options.secrets ?? []) if (s) known.add(s);
  const maxBody = options.maxBody ?? 2_000;
  const now = options.now ?? (() => new Date());
  const hide = (value: string): string => {
    if (value.length >= 8) known.add(value);
    return maskSecret(value);
  };
  return (ex) => {
    const status = ex.status === null ? `failed: ${displayText(ex.error ?? 'no answer', 300)}` : String(ex.status);
    const lines = [`${now().toISOString()} ${ex.method} ${maskUrl(ex.url, hide)} -> ${status} (${ex.durationMs} ms)`];
    for (const [name, value] of ex.requestHeaders) lines.push(`  > ${name}: ${headerValue(name, value, hide)}`);
    if (ex.requestBody) lines.push(`  > ${bodyText(ex.requestBody, hide, maxBody)}`);
    for (const [name, value] of ex.responseHeaders) lines.push(`  < ${name}: ${headerValue(name, value, hide)}`);
    const type = contentType(ex.responseHeaders);
    if (ex.responseBody && !isText(type)) lines.push(`  < (${ex.responseBody.length} characters of ${displayText(type, 80)}: not shown)`);
    else if (ex.responseBody) lines.push(`  < ${bodyText(ex.responseBody, hide, maxBody)}`);
    else if (/^text\/event-stream\b/i.test(type)) lines.push('  < (an event stream, handed over as it arrives: not recorded)');
    return `${scrubSecrets(lines.join('\n'), [...known])}\n`;
  };
}

function contentType(headers: TracedExchange['responseHeaders']): string {
  return headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
}

/** Bodies worth reading as text; an image or other bytes is only measured. */
function isText(type: string): boolean {
  return type === '' || /^text\/|[/+]json\b|[/+]xml\b|x-www-form-urlencoded|javascript/i.test(type);
}

function headerValue(name: string, value: string, hide: (v: string) => string): string {
  const lower = name.toLowerCase();
  if (!SECRET_HEADERS.has(lower)) return displayText(maskText(value, hide), 500);
  const scheme = /^(\S+)\s+(\S.*)$/.exec(value);
  if ((lower === 'authorization' || lower === 'proxy-authorization') && scheme) return `${scheme[1]} ${hide(scheme[2]!)}`;
  return hide(value);
}

function maskUrl(url: string, hide: (v: string) => string): string {
  const withoutPassword = maskUrlCredentials(url);
  return displayText(withoutPassword.replace(FORM_FIELD, (_, key: string, value: string) => `${key}${value ? hide(decodeSafe(value)) : ''}`), 2_000);
}

function decodeSafe(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return value;
  }
}

/** A body on one line: JSON re-written with its secret fields masked, anything else masked field by field. */
function bodyText(body: string, hide: (v: string) => string, max: number): string {
  let shown: string;
  try {
    shown = JSON.stringify(maskJson(JSON.parse(body), hide));
  } catch {
    shown = maskText(body, hide);
  }
  const clean = displayText(shown, Number.MAX_SAFE_INTEGER);
  return clean.length > max ? `${clean.slice(0, max)}… (${clean.length - max} more characters)` : clean;
}

function maskJson(value: unknown, hide: (v: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => maskJson(item, hide));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_FIELDS.has(key.toLowerCase()) && typeof item === 'string' ? hide(item) : maskJson(item, hide);
  }
  return out;
}

/** Secret fields of a form, of JSON that did not parse, and credentials after an auth scheme, masked in place. */
function maskText(text: string, hide: (v: string) => string): string {
  return text
    .replace(JSON_FIELD, (_, open: string, value: string, close: string) => `${open}${value ? hide(value) : ''}${close}`)
    .replace(FORM_FIELD, (_, key: string, value: string) => `${key}${value ? hide(decodeSafe(value)) : ''}`)
    .replace(AUTH_SCHEME, (match: string, scheme: string, value: string, at: number, whole: string) => {
      const next = whole[at + match.length] ?? '';
      return AUTH_PARAM.test(value) && /^["A-Za-z0-9]$/.test(next) ? match : `${scheme} ${hide(value)}`;
    });
}
