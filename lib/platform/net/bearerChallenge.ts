/**
 * The Bearer challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9110 §11.6.1), and what a 401 or 403
 * answer to a request that carried a Bearer says about that token. Pure: the header text in, the verdict out.
 */

export interface BearerChallenge {
  /** The auth-params, names lower-cased, values unquoted (`error`, `error_description`, `scope`, `resource_metadata`, …). */
  params: Record<string, string>;
}

const TOKEN = /[A-Za-z0-9!#$%&'*+.^_`|~-]+/y;
const SKIP = /[\s,]*/y;
const SPACE = /\s*/y;
const QUOTED = /"((?:[^"\\]|\\.)*)"/y;
const BARE = /[^\s,]*/y;

/** The end of what `re` matches at `at` (sticky), and the match; null when it does not match there. */
function at(re: RegExp, text: string, index: number): { end: number; match: RegExpExecArray } | null {
  re.lastIndex = index;
  const match = re.exec(text);
  return match ? { end: re.lastIndex, match } : null;
}

/**
 * The first Bearer challenge of a WWW-Authenticate value (several challenges may share one header:
 * `DPoP algs="ES256", Bearer error="invalid_token"`), or null when there is none. Text that is neither a scheme nor
 * an auth-param ends the parse, keeping what was read: a hostile header yields at most the params it spelled out.
 * A scheme's token68 (`Basic abc`) reads as a scheme of its own, which only ends the challenge before it.
 */
export function parseBearerChallenge(header: string | null | undefined): BearerChallenge | null {
  if (!header) return null;
  const text = header.slice(0, 8_192);
  let index = 0;
  let current: Record<string, string> | null = null;
  let bearer: Record<string, string> | null = null;
  while (index < text.length) {
    index = at(SKIP, text, index)!.end;
    const token = at(TOKEN, text, index);
    if (!token) break;
    const eq = at(SPACE, text, token.end)!.end;
    if (current && text[eq] === '=') {
      const start = at(SPACE, text, eq + 1)!.end;
      const quoted = at(QUOTED, text, start);
      const value = quoted ? quoted.match[1]!.replace(/\\(.)/g, '$1') : at(BARE, text, start)!.match[0];
      const name = token.match[0].toLowerCase();
      if (!Object.hasOwn(current, name)) current[name] = value;
      index = quoted ? quoted.end : at(BARE, text, start)!.end;
      continue;
    }
    if (bearer) break; // the Bearer challenge ended where the next scheme began
    current = Object.create(null) as Record<string, string>;
    if (token.match[0].toLowerCase() === 'bearer') bearer = current;
    index = token.end;
  }
  return bearer ? { params: { ...bearer } } : null;
}

/**
 * What an answer says about the Bearer it was sent: `refused` (401 with `error="invalid_token"` or with no error
 * code: RFC 6750 §3.1 says the token is expired, revoked or malformed), `insufficient_scope` (403 with that error
 * code: the token is valid but lacks a scope; `scope` names the ones the resource wants when the server says), or
 * null for any other answer. A 403 without that code, or a 401 with another code (`invalid_request`), is null:
 * callers decide what those mean.
 */
export type BearerVerdict = { kind: 'refused'; error: string | null } | { kind: 'insufficient_scope'; scope: string | null } | null;

export function bearerVerdict(status: number, wwwAuthenticate: string | null | undefined): BearerVerdict {
  if (status !== 401 && status !== 403) return null;
  const params = parseBearerChallenge(wwwAuthenticate)?.params ?? {};
  const error = params.error?.trim() || null;
  if (status === 401 && (error === null || error === 'invalid_token')) return { kind: 'refused', error };
  if (error === 'insufficient_scope') return { kind: 'insufficient_scope', scope: params.scope?.trim() || null };
  return null;
}
