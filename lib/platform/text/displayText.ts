/**
 * The one sanitizer for text from elsewhere (a server, a file) that is shown to a person or the agent: C0 and C1
 * controls (terminal escapes), bidi controls (which reorder what a reader sees) and zero-width characters (which
 * hide text) are removed, and the length is capped, so what is shown is what is there.
 */
// C0, DEL and C1 controls; ALM; soft hyphen; Mongolian vowel separator; zero-width space/joiners, LRM, RLM;
// line and paragraph separators; LRE..RLO; word joiner and invisible operators; LRI..PDI; BOM.
// Both written out (not one built from the other), so a bundle that never calls these, such as the pre-MCP hook's
// first stage, drops them at build time.
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/;
// eslint-disable-next-line no-control-regex
const HIDDEN_RUNS = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]+/g;

/** True when `text` holds any character `displayText` would remove. */
export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN.test(text);
}

/**
 * `text` made safe to show: every run of hidden characters becomes one space (a newline or an escape must not
 * glue two words together), then trimmed and cut to `max` characters (code points, never half a pair) with `…`.
 */
export function displayText(text: unknown, max = 200): string {
  const s = typeof text === 'string' ? text : String(text);
  const clean = s.replace(HIDDEN_RUNS, ' ').trim();
  if (clean.length <= max) return clean;
  const points = Array.from(clean);
  return points.length > max ? `${points.slice(0, max).join('')}…` : clean;
}

/** Multi-line text (a status card): each line made safe by `displayText`, the newlines kept. */
export function displayLines(text: string, maxLine = 2_000): string {
  return text.split('\n').map((line) => {
    const clean = line.replace(HIDDEN_RUNS, ' ').trimEnd();
    return clean.length > maxLine ? displayText(clean, maxLine) : clean;
  }).join('\n');
}
