/**
 * The last guard on text the plugin shows that may carry a server's words (the status card, diagnose output): any
 * run of 12 or more characters taken from a known secret is masked, so a server that echoes a token back, whole
 * or in part, cannot get it into the agent's context or a terminal.
 */
const WINDOW = 12;
/** Shorter strings are not credentials; masking them would only garble ordinary words. */
const MIN_SECRET = 8;

export function scrubSecrets(text: string, secrets: ReadonlyArray<string | null | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET) continue;
    if (secret.length < WINDOW) {
      out = out.split(secret).join('****');
      continue;
    }
    for (let i = 0; i + WINDOW <= secret.length; i += 1) {
      // Mask the longest run of the secret starting here, as often as it occurs.
      while (out.includes(secret.slice(i, i + WINDOW))) {
        let end = i + WINDOW;
        while (end < secret.length && out.includes(secret.slice(i, end + 1))) end += 1;
        out = out.split(secret.slice(i, end)).join('****');
      }
    }
  }
  return out;
}
