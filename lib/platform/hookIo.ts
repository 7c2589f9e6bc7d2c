/**
 * Hook plumbing shared by the Cursor hooks: stdin read with a size cap and a deadline (a hook must never wait for
 * ever on a pipe that does not close), and exactly one JSON object written to stdout.
 */
import { utf8Text } from './text/utf8.js';

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
  spill?: (chunk: Uint8Array) => void;
}

export const HOOK_STDIN_MAX_BYTES = 4 * 1024 * 1024;

/**
 * What a stdin reader keeps of the input, shared by both readers (this stream one and fastHookIo's fs.read one): the
 * chunks while they fit in `maxBytes`; past it, with `spill`, every byte that arrived goes to `spill`, in order, and
 * nothing more is kept.
 */
export interface StdinCollector {
  /** Takes a chunk; false when it went past the cap with no `spill` (the read has failed as too large). */
  add(chunk: Uint8Array): boolean;
  /** Passes everything kept, and every later chunk, to `spill` (a read that ends with a problem passes all it got). */
  spillAll(): void;
  readonly spilling: boolean;
  /** How the read ended: the text, or its problem (a read that spilled was too large, whatever ended it). */
  result(problem?: 'timeout' | 'error'): StdinResult;
}

export function collectStdin(maxBytes: number, spill?: (chunk: Uint8Array) => void): StdinCollector {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let spilling = false;
  const spillAll = () => {
    if (spilling || !spill) return;
    spilling = true;
    for (const chunk of chunks.splice(0)) spill(chunk);
  };
  return {
    add(chunk) {
      total += chunk.length;
      if (spilling) spill!(chunk);
      else if (total <= maxBytes) chunks.push(chunk);
      else if (!spill) return false;
      else {
        spillAll();
        spill(chunk);
      }
      return true;
    },
    spillAll,
    get spilling() { return spilling; },
    result: (problem) => (spilling ? { text: '', problem: 'too_large' } : problem ? { text: '', problem } : { text: utf8Text(chunks) }),
  };
}

/**
 * Reads all of stdin, giving up past `maxBytes` or `timeoutMs` (the partial text is then unusable and dropped).
 * `collector`: go on with the input another reader began (its cap and `spill` apply).
 */
export function readStdinBounded(options: ReadStdinOptions & { collector?: StdinCollector } = {}): Promise<StdinResult> {
  const stream = options.stream ?? process.stdin;
  const timeoutMs = options.timeoutMs ?? 2_000;
  if (stream.isTTY) return Promise.resolve({ text: '' });
  const input = options.collector ?? collectStdin(options.maxBytes ?? HOOK_STDIN_MAX_BYTES, options.spill);
  return new Promise((resolve) => {
    let done = false;
    const finish = (result: StdinResult) => {
      if (done) return;
      done = true;
      timer.cancel();
      if (result.problem) input.spillAll();
      stream.removeAllListeners('data');
      if (result.problem) stream.destroy?.();
      resolve(result);
    };
    const timer = afterRunningMs(timeoutMs, () => finish(input.result('timeout')));
    stream.on('data', (chunk: Buffer | string) => {
      if (!input.add(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) finish({ text: '', problem: 'too_large' });
    });
    stream.on('end', () => finish(input.result()));
    stream.on('error', () => finish(input.result('error')));
  });
}

/** A wait of `ms`, given as a callback; the default is an unref'd timer (the pending read keeps the process alive). */
export type Wait = (ms: number, fn: () => void) => void;

const timerWait: Wait = (ms, fn) => void setTimeout(fn, ms).unref();

/** How often the running clock looks at the time: a stretch longer than twice this counts as twice this. */
export const RUNNING_TICK_MS = 50;

/**
 * Calls `fn` once `ms` have passed in which this process could run. A stdin deadline is there for a writer that keeps
 * the pipe open; on a loaded machine (or a stopped process) the hook itself may not run for seconds while its whole
 * input waits in the pipe, and a wall-clock deadline would then drop input that had all arrived. So the clock looks at
 * the time every RUNNING_TICK_MS, and a gap between two looks counts for at most two ticks: time the process spent
 * not running is not charged to the writer. Nothing runs (and nothing is armed but one wait) while the input arrives
 * within the first tick, the usual case.
 */
export function afterRunningMs(ms: number, fn: () => void, wait: Wait = timerWait): { cancel(): void } {
  let cancelled = false;
  let charged = 0;
  // Date.now, not performance.now: the first use of `performance` in a fresh process loads perf_hooks (milliseconds on
  // the hook's path). A clock set back counts nothing; one set forward, two ticks at most.
  let last = Date.now();
  const look = () => {
    if (cancelled) return;
    const now = Date.now();
    charged += Math.max(0, Math.min(now - last, 2 * RUNNING_TICK_MS));
    last = now;
    if (charged >= ms) fn();
    else wait(Math.min(RUNNING_TICK_MS, ms - charged), look);
  };
  wait(Math.min(RUNNING_TICK_MS, ms), look);
  return { cancel: () => { cancelled = true; } };
}

/**
 * Parses hook stdin as a JSON object; null for empty, invalid or non-object input. A leading byte-order mark and
 * trailing NULs are not JSON but hide nothing: the object they surround is read.
 */
export function parseHookJson(text: string): Record<string, unknown> | null {
  if (!text.trim()) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    let start = 0;
    let end = text.length;
    if (text.charCodeAt(0) === 0xfeff) start = 1;
    while (end > start && (text.charCodeAt(end - 1) === 0 || text.charCodeAt(end - 1) <= 0x20)) end -= 1;
    if (start === 0 && end === text.length) return null;
    try {
      value = JSON.parse(text.slice(start, end));
    } catch {
      return null;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
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

/*
 * A processing deadline for a hook's synchronous work, which nothing can interrupt from outside: loops call the check
 * now and then, and it throws `DeadlineExceeded` once the process has run past its deadline, so the hook can still
 * answer in time. The deadline is a time since the process started (`process.uptime()`), so every chunk of a hook
 * that carries its own copy of this module agrees on it without sharing state.
 */
export class DeadlineExceeded extends Error {
  override name = 'DeadlineExceeded';
}

/** Throws once the process has run for more than `deadline` seconds (never, when it is undefined). */
export function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && process.uptime() > deadline) throw new DeadlineExceeded(`still working after ${deadline} s`);
}

/** A check cheap enough for every pass of a loop: it reads the clock once every `every` calls. */
export function deadlineTicker(deadline: number | undefined, every = 1024): () => void {
  if (deadline === undefined) return () => {};
  let n = 0;
  return () => {
    if (++n % every === 0) checkDeadline(deadline);
  };
}
