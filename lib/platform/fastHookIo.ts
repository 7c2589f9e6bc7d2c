/**
 * Hook stdin and stdout for the hooks' first stage, without `process.stdin` / `process.stdout`: creating those
 * streams loads Node's socket and stream machinery, about 5 ms of a ~25 ms start-up. Stdin is read with fs.read on
 * descriptor 0 (Node's thread pool), stdout written with one writeSync. Same contract as hookIo.ts: bounded in size
 * and time, exactly one JSON line out, exit 0.
 */
import { fstatSync, read, readlinkSync, writeSync } from 'node:fs';
import { HOOK_STDIN_MAX_BYTES, afterRunningMs, collectStdin, readStdinBounded, type ReadStdinOptions, type StdinResult } from './hookIo.js';

/** True while a read of descriptor 0 is blocked in the thread pool (see exitHook). */
let readPending = false;

export interface FastReadOptions extends Pick<ReadStdinOptions, 'maxBytes' | 'timeoutMs' | 'spill'> {
  /**
   * The caller gives Node's thread pool no other work for the rest of the process (synchronous file calls only: no
   * asynchronous file, DNS, crypto or zlib call), so the pool starts with one thread instead of four, about 0.4 ms
   * less. libuv reads UV_THREADPOOL_SIZE once, when the first work is queued (this read): the variable is set only
   * when unset, and removed right after, so no child process inherits it. A stdin that never closes keeps that thread.
   */
  onePoolThread?: boolean;
}

/** Reads all of descriptor 0, giving up past `maxBytes` or `timeoutMs` (the partial text is then dropped). */
export function readStdinFast(opts: FastReadOptions = {}): Promise<StdinResult> {
  const options = { maxBytes: opts.maxBytes ?? HOOK_STDIN_MAX_BYTES, timeoutMs: opts.timeoutMs ?? 2_000 };
  const spill = opts.spill;
  try {
    if (stdinIsDevice()) return Promise.resolve({ text: '' }); // a terminal (or /dev/null): no hook input
  } catch {
    return Promise.resolve({ text: '', problem: 'error' });
  }
  return new Promise((resolve) => {
    const input = collectStdin(options.maxBytes, spill);
    let done = false;
    let deadline: { cancel(): void } | undefined;
    const finish = (result: StdinResult) => {
      if (done) return;
      done = true;
      deadline?.cancel();
      if (result.problem) input.spillAll();
      resolve(result);
    };
    const started = Date.now();
    const next = () => {
      // A plain Uint8Array: a Buffer's first allocation in a fresh process costs 0.06 ms more.
      const buf = new Uint8Array(64 * 1024);
      readPending = true;
      read(0, buf, 0, buf.length, null, (error, n) => {
        readPending = false;
        if (done) return;
        // A non-blocking descriptor (the writer's choice, shared with us) cannot be read this way: the stream reader,
        // which waits for it properly, goes on with the same input.
        if (error?.code === 'EAGAIN') {
          void readStdinBounded({ timeoutMs: options.timeoutMs - (Date.now() - started), collector: input }).then(finish);
          return;
        }
        if (error) return finish(input.result('error'));
        if (n === 0) return finish(input.result());
        // A fresh buffer for every read: the chunk kept is never written over.
        if (!input.add(buf.subarray(0, n))) return finish({ text: '', problem: 'too_large' });
        next();
      });
    };
    const poolSize = opts.onePoolThread === true && process.env.UV_THREADPOOL_SIZE === undefined;
    if (poolSize) process.env.UV_THREADPOOL_SIZE = '1';
    next();
    if (poolSize) delete process.env.UV_THREADPOOL_SIZE;
    // Timers run before I/O callbacks in each turn of the event loop: on a busy machine the deadline and the end of the
    // input can be due in the same turn, so the deadline yields one turn (setImmediate runs after I/O callbacks).
    // The deadline counts only time this process could run (see afterRunningMs): a hook starved of CPU on a loaded
    // machine reads the input that waited for it, whole.
    deadline = afterRunningMs(options.timeoutMs, () => setImmediate(() => finish(input.result('timeout'))), afterMs);
  });
}

/**
 * Whether descriptor 0 is a character device (a terminal, /dev/null), which a hook reads as no input. On Linux the
 * descriptor's link names a pipe or a socket (what a hook gets) in 0.04 ms, where fstat's first call costs 0.15 ms
 * (it builds Node's Stats); anything else, and every other system, is asked with fstat.
 */
function stdinIsDevice(): boolean {
  if (process.platform === 'linux') {
    try {
      const target = readlinkSync('/proc/self/fd/0');
      if (target.startsWith('pipe:') || target.startsWith('socket:')) return false;
    } catch { /* no /proc here: fstat decides */ }
  }
  return fstatSync(0).isCharacterDevice();
}

/**
 * Calls `fn` once `ms` have passed, without keeping the process alive (the pending read does that). A wait with a
 * timeout on a cell nobody notifies (`Atomics.waitAsync`, standard JavaScript): in a fresh process it is armed in
 * about 0.02 ms, where the first setTimeout costs about 0.3 ms (it sets up Node's timer lists).
 */
function afterMs(ms: number, fn: () => void): void {
  try {
    const { waitAsync } = Atomics as { waitAsync?: (cell: Int32Array, index: number, value: number, ms: number) => { async: boolean; value: unknown } };
    const wait = waitAsync?.(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    if (wait?.async) return void (wait.value as Promise<unknown>).then(fn);
  } catch { /* no waitAsync or no SharedArrayBuffer in this runtime: a timer */ }
  setTimeout(fn, ms).unref();
}

/** Writes the hook's one JSON line to descriptor 1 and exits 0. */
export function exitHook(output: object): never {
  let line: string;
  try {
    line = `${JSON.stringify(output)}\n`;
  } catch {
    line = '{}\n';
  }
  const bytes = Buffer.from(line);
  let off = 0;
  try {
    while (off < bytes.length) off += writeSync(1, bytes, off);
  } catch (error) {
    // A full non-blocking pipe: the stream waits for the reader. Anything else: stdout is gone, nobody to answer.
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
      process.stdout.write(bytes.subarray(off), () => end());
      return undefined as never;
    }
  }
  return end();
}

function end(): never {
  if (!readPending) process.exit(0);
  // A read of descriptor 0 still in Node's thread pool would hold a normal exit until the writer closes the pipe. Give
  // a late writer a moment; a stdin that never closes gets SIGKILL once the answer is out (Cursor fails open on a
  // process that does not exit 0, which is what the neutral answer given on that path says anyway).
  const giveUpAt = Date.now() + EXIT_GRACE_MS;
  const wait = () => {
    if (!readPending) process.exit(0);
    if (Date.now() >= giveUpAt) process.kill(process.pid, 'SIGKILL');
    setTimeout(wait, 10);
  };
  wait();
  return undefined as never;
}

/** How long a hook waits at exit for a read still in the thread pool before it ends itself (SIGKILL). */
export const EXIT_GRACE_MS = 500;

/** One stderr line for the hook log, never a secret (callers pass their own words). */
export function logHookFast(name: string, message: string): void {
  try {
    writeSync(2, `${name}: ${message.replace(/[\r\n]+/g, ' ')}\n`);
  } catch { /* stderr closed */ }
}
