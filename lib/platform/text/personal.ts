/**
 * Personal data in text meant for others (a support ticket): e-mail addresses masked as `a***@example.test` whatever
 * their letters (`jörg.müller@firma.de`, `o'brien@…`, `alice@localhost`), the home folder as `~` wherever it starts
 * a path, and sign-in codes hidden. Pure.
 */
const LOCAL = String.raw`[\p{L}\p{N}\p{M}._%+'-]`;
const LABEL = String.raw`[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}-]*[\p{L}\p{N}\p{M}])?`;
// A quoted local part (`"alice smith"@…`), its quotes escaped too when the text is JSON.
const QUOTED = String.raw`(\\?")([^"\\\r\n])[^"\\\r\n]{0,63}\\?"`;
// The at sign, fullwidth (U+FF20) and small (U+FE6B) too: a reader takes each for one.
const AT = '[@\uff20\ufe6b]';
// A domain of one or more labels, or an address literal (`[127.0.0.1]`, `[IPv6:::1]`).
const DOMAIN = String.raw`${LABEL}(?:\.${LABEL})*|\[[\p{L}\p{N}.:]{1,64}\]`;
// The whole local part (nothing of it before the match), then the at sign and the domain.
const EMAIL = new RegExp(String.raw`(?:${QUOTED}|(?<!${LOCAL})(${LOCAL})${LOCAL}*)(${AT})(${DOMAIN})`, 'gu');

/**
 * Every e-mail address as its first character, `***` and its domain. A domain with no letter (`pkg@1.2.3`) is not
 * one, unless it is an address literal in brackets.
 */
export function maskEmails(text: string): string {
  return text.replace(EMAIL, (whole, quote: string | undefined, quotedFirst: string | undefined, first: string | undefined, at: string, domain: string) => {
    if (!domain.startsWith('[') && !/\p{L}/u.test(domain)) return whole;
    return quote !== undefined ? `${quote}${quotedFirst}***${quote}${at}${domain}` : `${first}***${at}${domain}`;
  });
}

/** Every occurrence of `home` followed by a separator or the end of a path, shown as `~`. */
export function maskHome(text: string, home: string): string {
  const trimmed = home.replace(/[\\/]+$/, '');
  // A home of one or two characters ("/", "C:") would match everywhere: leave such text alone.
  if (trimmed.length < 3) return text;
  const escaped = trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${escaped}(?=[\\\\/]|$|[\\s"'\`),;:|])`, 'g'), '~');
}

/** maskHome for each spelling of the home folder (as given, as resolved through links), the longest first. */
export function maskHomes(text: string, homes: readonly string[]): string {
  return [...new Set(homes)].sort((a, b) => b.length - a.length).reduce((out, home) => maskHome(out, home), text);
}

const CODE_IN_URL = /([?&]user_code=)[^&#\s"'`)<>]+/gi;
const CODE_IN_JSON = /("user_code"\s*:\s*")((?:[^"\\]|\\.){1,64})"/g;
export const HIDDEN_CODE = '[sign-in code hidden]';

/**
 * Hides sign-in (device) codes: each of `codes` wherever it appears, and every one a log line or a verification URL
 * names (`"user_code":"…"`, `?user_code=…`). Anyone who reads such a code while it lives could approve that sign-in.
 */
export function hideSignInCodes(text: string, codes: readonly string[] = []): string {
  const found = new Set(codes.filter((c) => c.trim().length >= 4));
  for (const m of text.matchAll(CODE_IN_JSON)) if (m[2]!.length >= 4) found.add(m[2]!);
  let out = text.replace(CODE_IN_URL, '$1****').replace(CODE_IN_JSON, `$1${HIDDEN_CODE}"`);
  for (const code of [...found].sort((a, b) => b.length - a.length)) out = out.split(code).join(HIDDEN_CODE);
  return out;
}
