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
  /**
   * Input that cannot be returned whole is still looked at: with `spill`, past `maxBytes` reading goes on to the end
   * (or the deadline) and every byte that arrived is passed to `spill`, in order, and never kept; a result with a
   * problem has passed everything it received.
   */
  spill?: (chunk: Buffer) => void;
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
    const spill = options.spill;
    let total = 0;
    let done = false;
    let spilling = false;
    const startSpilling = () => {
      if (spilling || !spill) return;
      spilling = true;
      for (const chunk of chunks.splice(0)) spill(chunk);
    };
    const finish = (result: StdinResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (result.problem) startSpilling();
      stream.removeAllListeners('data');
      if (result.problem) stream.destroy?.();
      resolve(result);
    };
    const timer = setTimeout(() => finish({ text: '', problem: spilling ? 'too_large' : 'timeout' }), timeoutMs);
    stream.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buf.length;
      if (spilling) return spill!(buf);
      if (total > maxBytes) {
        if (!spill) return finish({ text: '', problem: 'too_large' });
        startSpilling();
        return spill(buf);
      }
      chunks.push(buf);
    });
    stream.on('end', () => finish(spilling ? { text: '', problem: 'too_large' } : { text: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', () => finish({ text: '', problem: spilling ? 'too_large' : 'error' }));
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
