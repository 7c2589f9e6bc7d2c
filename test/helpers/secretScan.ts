/**
 * The leak rule of the secrets tests, the same one the plugin's scrubbing enforces: any run of 12 or more
 * characters of a secret, anywhere in a text, is a leak. A gh-style mask shows 4 characters, so it never matches;
 * a printed prefix, suffix or middle of a token does.
 */
export const LEAK_WINDOW = 12;

/** The first run of LEAK_WINDOW characters of `secret` found in `text`, or null. */
export function leakedRun(text: string, secret: string): string | null {
  if (secret.length < LEAK_WINDOW) return text.includes(secret) ? secret : null;
  for (let i = 0; i + LEAK_WINDOW <= secret.length; i++) {
    const run = secret.slice(i, i + LEAK_WINDOW);
    if (text.includes(run)) return run;
  }
  return null;
}

/** One line per (output, secret) pair that leaks, naming where and at which offset of the secret. */
export function findLeaks(outputs: ReadonlyArray<{ what: string; text: string }>, secrets: Iterable<string>): string[] {
  const hits: string[] = [];
  const list = [...secrets];
  for (const { what, text } of outputs) {
    for (const secret of list) {
      const run = leakedRun(text, secret);
      if (run) hits.push(`${what} contains characters ${secret.indexOf(run)}..${secret.indexOf(run) + LEAK_WINDOW} of a secret starting ${secret.slice(0, 4)}`);
    }
  }
  return hits;
}
