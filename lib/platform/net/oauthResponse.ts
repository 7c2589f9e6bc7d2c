/**
 * What an OAuth server answers, read before the protocol library sees it, for deviations that are well known and
 * safe to accept:
 *
 * - an error answer (4xx) whose body is an OAuth error (RFC 6749 §5.2) is read as that error even when it also
 *   carries `WWW-Authenticate`: some servers send `authorization_pending` as 401 with a challenge, and a client that
 *   reads the challenge first ends the device sign-in at its first poll;
 * - a device authorization answer (RFC 8628 §3.2) that names the page `verification_url` (Google's spelling) instead
 *   of `verification_uri`, or gives `interval` / `expires_in` as a string of digits ("5").
 *
 * Anything else that does not fit stops with a message naming what the server sent and what to do.
 */

/** A copy of `res` with `body` and `headers`, keeping its URL (messages name where an answer came from). */
function copyOf(res: Response, body: string, headers: Headers): Response {
  headers.delete('content-length');
  const copy = new Response(body, { status: res.status, statusText: res.statusText, headers });
  if (res.url) Object.defineProperty(copy, 'url', { value: res.url });
  return copy;
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

/** A 4xx with an OAuth error body and a challenge: the same answer without the challenge, so the body is what is read. */
export async function oauthErrorFirst(res: Response): Promise<Response> {
  if (res.status < 400 || res.status >= 500 || !res.headers.has('www-authenticate')) return res;
  const text = await res.text();
  const headers = new Headers(res.headers);
  if (typeof jsonObject(text)?.error === 'string') headers.delete('www-authenticate');
  return copyOf(res, text, headers);
}

/** Why a device authorization answer cannot be used: a sentence naming the field and what the server sent. */
export class DeviationError extends Error {}

const DIGITS = /^\s*\d{1,9}\s*$/;

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * A 200 device authorization answer with the well-known deviations made standard: `verification_url` read as
 * `verification_uri`, a digit-string `interval` or `expires_in` read as a number. Throws DeviationError naming what
 * the server sent when `interval` or `expires_in` is something else, or when it names no verification page at all.
 * Other answers pass unchanged.
 */
export async function deviceAuthorizationAccepted(res: Response): Promise<Response> {
  if (res.status !== 200) return res;
  const text = await res.text();
  const json = jsonObject(text);
  if (!json) return copyOf(res, text, new Headers(res.headers));
  if (json.verification_uri === undefined) {
    if (typeof json.verification_url !== 'string') {
      throw new DeviationError(`it names no verification_uri (RFC 8628 §3.2)${json.verification_url === undefined ? '' : ` and its verification_url is ${shown(json.verification_url)}`}, so there is no page to approve the sign-in on`);
    }
    json.verification_uri = json.verification_url;
  }
  for (const key of ['interval', 'expires_in']) {
    const value = json[key];
    if (typeof value === 'string' && DIGITS.test(value)) json[key] = Number(value);
    else if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
      throw new DeviationError(`its ${key} is ${shown(value)}, not a number of seconds (RFC 8628 §3.2)`);
    }
  }
  return copyOf(res, JSON.stringify(json), new Headers(res.headers));
}
