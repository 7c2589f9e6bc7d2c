/**
 * Hook stdin and stdout for the hooks' first stage, without `process.stdin` / `process.stdout`: creating those
 * streams loads Node's socket and stream machinery, about 5 ms of a ~25 ms start-up. Stdin (a pipe or a socket, as a
 * hook gets it) is made non-blocking and read with readSync, sleeping between tries while nothing has arrived;
 * elsewhere, or where that cannot be done, it is read with fs.read (Node's thread pool). Stdout is written with one
 * writeSync. Same contract as hookIo.ts: bounded in size and time, exactly one JSON line out, exit 0.
 */
import { fstatSync, read, readlinkSync, readSync, writeSync } from 'node:fs';
import { HOOK_STDIN_MAX_BYTES, RUNNING_TICK_MS, afterRunningMs, collectStdin, readStdinBounded, type ReadStdinOptions, type StdinResult } from './hookIo.js';

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
  let kind: StdinKind;
  try {
    kind = stdinKind();
  } catch {
    return Promise.resolve({ text: '', problem: 'error' });
  }
  if (kind === 'device') return Promise.resolve({ text: '' }); // a terminal (or /dev/null): no hook input
  if (kind === 'stream' && nonBlockingStdin()) return Promise.resolve(readNonBlocking(options, spill));
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

type StdinKind = 'device' | 'stream' | 'other';

/**
 * What descriptor 0 is: a character device (a terminal, /dev/null), which a hook reads as no input; a pipe or a socket
 * (what a hook gets); or anything else (a file). On Linux the descriptor's link names a pipe or a socket in 0.04 ms,
 * where fstat's first call costs 0.15 ms (it builds Node's Stats); anything else, and every other system, is asked
 * with fstat.
 */
function stdinKind(): StdinKind {
  if (process.platform === 'linux') {
    try {
      const target = readlinkSync('/proc/self/fd/0');
      if (target.startsWith('pipe:') || target.startsWith('socket:')) return 'stream';
    } catch { /* no /proc here: fstat decides */ }
  }
  const stat = fstatSync(0);
  return stat.isCharacterDevice() ? 'device' : stat.isFIFO() || stat.isSocket() ? 'stream' : 'other';
}

/** Node's handle on descriptor 0 once opened: kept, so that no garbage collection closes the descriptor under the reader. */
const openHandles: unknown[] = [];

/**
 * Makes descriptor 0, a pipe or a socket, non-blocking, as Node does when it opens process.stdin, but without the
 * stream machinery: by opening Node's own pipe handle on it (`process.binding('pipe_wrap')`, the internal binding
 * process.stdin is built on; deprecated as a public API since Node 10, in documentation only, and still served on
 * Node 20, 22 and 24). A read then never blocks, so the hook needs neither Node's thread pool nor its event loop to
 * read its input (about 0.3 ms of every run, in-process). False where the binding is gone or the open fails, and on Windows:
 * the thread-pool reader then reads as before.
 */
function nonBlockingStdin(): boolean {
  if (process.platform === 'win32') return false;
  try {
    const binding = (process as unknown as { binding(name: string): { Pipe: new (type: number) => { open(fd: number): number }; constants: { SOCKET: number } } }).binding('pipe_wrap');
    const pipe = new binding.Pipe(binding.constants.SOCKET);
    if (pipe.open(0) !== 0) return false;
    openHandles.push(pipe);
    return true;
  } catch {
    return false;
  }
}

/** How long the reader sleeps while a non-blocking stdin has nothing to read. */
const POLL_MS = 2;

/**
 * Reads all of a non-blocking descriptor 0 with readSync, sleeping POLL_MS (Atomics.wait) whenever nothing has arrived,
 * up to `maxBytes` (past it, as the thread-pool reader does) and `timeoutMs` of running time, counted as afterRunningMs
 * counts it (a gap longer than two ticks, a process starved of CPU, counts as two ticks), checked after every read.
 */
function readNonBlocking(options: { maxBytes: number; timeoutMs: number }, spill?: (chunk: Uint8Array) => void): StdinResult {
  const input = collectStdin(options.maxBytes, spill);
  const finish = (result: StdinResult) => (result.problem && input.spillAll(), result);
  let cell: Int32Array | null = null;
  let charged = 0;
  let last = Date.now();
  // A fresh buffer after every read that kept a chunk, so a chunk kept is never written over (and a wait allocates none).
  let buf = new Uint8Array(64 * 1024);
  for (;;) {
    let n = -1;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return finish(input.result('error'));
    }
    if (n === 0) return finish(input.result());
    if (n > 0) {
      if (!input.add(buf.subarray(0, n))) return finish({ text: '', problem: 'too_large' });
      buf = new Uint8Array(64 * 1024);
    }
    const now = Date.now();
    charged += Math.max(0, Math.min(now - last, 2 * RUNNING_TICK_MS));
    last = now;
    if (charged >= options.timeoutMs) return finish(input.result('timeout'));
    if (n < 0) Atomics.wait((cell ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, POLL_MS);
  }
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
