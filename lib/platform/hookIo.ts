/**
 * Hook plumbing shared by the Cursor hooks: stdin read with a size cap and a deadline (a hook must never wait for
 * ever on a pipe that does not close), and exactly one JSON object written to stdout.
 */

export interface StdinResult {
  text: string;
  /** Why the text is incomplete, when it is. */
  problem?: 'too_large' | 'timeout' | 'error';
}

export interface ReadStdinOptions {
  maxBytes?: number;
  timeoutMs?: number;
  stream?: NodeJS.ReadableStream & { isTTY?: boolean; destroy?: () => void };
}

export const HOOK_STDIN_MAX_BYTES = 4 * 1024 * 1024;

/** Reads all of stdin, giving up past `maxBytes` or `timeoutMs` (the partial text is then unusable and dropped). */
export function readStdinBounded(options: ReadStdinOptions = {}): Promise<StdinResult> {
  const stream = options.stream ?? process.stdin;
  const maxBytes = options.maxBytes ?? HOOK_STDIN_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? 2_000;
  if (stream.isTTY) return Promise.resolve({ text: '' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    const finish = (result: StdinResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      if (result.problem) stream.destroy?.();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ text: '', problem: 'timeout' }), timeoutMs);
    stream.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buf.length;
      if (total > maxBytes) return finish({ text: '', problem: 'too_large' });
      chunks.push(buf);
    });
    stream.on('end', () => finish({ text: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', () => finish({ text: '', problem: 'error' }));
  });
}

/** Parses hook stdin as a JSON object; null for empty, invalid or non-object input. */
export function parseHookJson(text: string): Record<string, unknown> | null {
  if (!text.trim()) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Writes the hook's one JSON object and exits 0 once stdout has taken it (stdin may still be open). */
export function answerHook(output: object): void {
  let line: string;
  try {
    line = `${JSON.stringify(output)}\n`;
  } catch {
    line = '{}\n';
  }
  process.stdout.write(line, () => process.exit(0));
}

/** One stderr line for the hook log, never a secret (callers pass their own words). */
export function logHook(name: string, message: string): void {
  try {
    process.stderr.write(`${name}: ${message.replace(/[\r\n]+/g, ' ')}\n`);
  } catch { /* stderr closed */ }
}
