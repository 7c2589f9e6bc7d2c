/**
 * One reading of an identifier a server hands us (an RFC 9728 `resource`, `authorization_servers` entry or
 * `resource_metadata` URL, an RFC 8414 issuer or endpoint, a token's `aud`), done once at the boundary. What is read
 * as a URL is an absolute http(s) URL without user info or fragment, at most MAX_WEB_URL_LENGTH characters, kept as
 * its canonical serialization (WHATWG `href`: lower-case scheme and host, punycode, dot segments resolved,
 * non-ASCII and spaces percent-encoded); everything past this point (keys, records, comparisons, messages) uses that
 * value, never the text as received. Text another program could read differently is refused, not repaired: control
 * characters and line breaks (the URL parser drops tabs and newlines silently), white space, backslashes (read as
 * `/` by the URL parser), and every kind of quote (PowerShell reads U+2018-U+201B as `'`, and U+201C-U+201E as `"`).
 *
 * An `aud` or a scope that is not such a URL is a plain string, compared as one: `api://x`, `urn:x:y` or
 * `mcp:read` parse as URLs whose origin is the string "null", which names no server.
 *
 * No dependencies: the hooks read it when they compare a stored credential with a server.
 */

declare const webUrlBrand: unique symbol;
/** A canonical absolute http(s) URL without user info or fragment (see readWebUrl). */
export type WebUrl = string & { readonly [webUrlBrand]: true };

/** Longer than any endpoint a server needs; short enough for every store a value is kept in. */
export const MAX_WEB_URL_LENGTH = 2048;

export type WebUrlProblem = 'not_text' | 'too_long' | 'unsafe_character' | 'not_url' | 'not_http' | 'userinfo' | 'fragment';

export type WebUrlReading = { ok: true; url: WebUrl; parsed: URL } | { ok: false; problem: WebUrlProblem };

// C0 and C1 controls, DEL, every white space and line break, backslash, ASCII and typographic quotes and primes.
const UNSAFE = /[\u0000-\u0020\u007f-\u00a0"'`\\\u1680\u2000-\u200f\u2018-\u201f\u2028-\u202f\u2032-\u2037\u205f\u2060\u3000\ufeff\uff02\uff07]/;

/**
 * True when `value` holds a character this module refuses in any URL (a quote of any kind, a backslash, white
 * space, a control character or line break), or is longer than MAX_WEB_URL_LENGTH: text that is not inert data.
 */
export function hasUnsafeText(value: string): boolean {
  return value.length > MAX_WEB_URL_LENGTH || UNSAFE.test(value);
}

const PROBLEM_TEXT: Record<WebUrlProblem, string> = {
  not_text: 'is not a string',
  too_long: `is longer than ${MAX_WEB_URL_LENGTH} characters`,
  unsafe_character: 'holds a quote, a backslash, white space or a control character',
  not_url: 'is not an absolute URL',
  not_http: 'is not an http(s) URL',
  userinfo: 'carries a user name or password',
  fragment: 'carries a fragment',
};

/** The problem in words, for a message ("… names a resource that <text>"). */
export function webUrlProblemText(problem: WebUrlProblem): string {
  return PROBLEM_TEXT[problem];
}

/**
 * `value` read as a WebUrl, or why it is not one. An origin written without a path keeps that form
 * (`https://a.example`, not `https://a.example/`): an authorization server compares a resource indicator as text.
 */
export function readWebUrl(value: unknown): WebUrlReading {
  if (typeof value !== 'string') return { ok: false, problem: 'not_text' };
  if (value.length > MAX_WEB_URL_LENGTH) return { ok: false, problem: 'too_long' };
  if (UNSAFE.test(value)) return { ok: false, problem: 'unsafe_character' };
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return { ok: false, problem: 'not_url' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { ok: false, problem: 'not_http' };
  // Written out in full (`http:a.example` means `http://a.example` to the URL parser, and nothing to another one).
  if (!/^https?:\/\//i.test(value)) return { ok: false, problem: 'not_url' };
  if (parsed.username || parsed.password || /^[a-z]+:\/\/[^/?#]*@/i.test(value)) return { ok: false, problem: 'userinfo' };
  if (parsed.hash || value.includes('#')) return { ok: false, problem: 'fragment' };
  let href = parsed.href;
  if (parsed.pathname === '/' && !parsed.search && !value.endsWith('/')) href = href.slice(0, -1);
  if (href.length > MAX_WEB_URL_LENGTH) return { ok: false, problem: 'too_long' };
  return { ok: true, url: href as WebUrl, parsed };
}

/** The WebUrl of `value`, or null. */
export function webUrlOf(value: unknown): WebUrl | null {
  const read = readWebUrl(value);
  return read.ok ? read.url : null;
}

/** An `aud` value or a scope: a WebUrl (which names a server by its origin), or a plain string compared as one. */
export type Identifier = { kind: 'url'; url: WebUrl; origin: string } | { kind: 'string'; value: string };

export function readIdentifier(value: string): Identifier {
  const read = readWebUrl(value);
  return read.ok ? { kind: 'url', url: read.url, origin: read.parsed.origin } : { kind: 'string', value };
}

/** The http(s) origin `value` names, or null (not a string, or not an http(s) URL: names no server). */
export function httpOriginOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const id = readIdentifier(value);
  return id.kind === 'url' ? id.origin : null;
}
