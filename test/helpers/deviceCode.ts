/** Spawns the built device-code.mjs and reads its --json events as they come. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './repo.js';
import { baseChildEnv } from './platform.js';

export const DEVICE_CODE_SCRIPT = join(REPO_ROOT, 'hooks/scripts/device-code.mjs');

export interface DeviceRun {
  child: ChildProcess;
  events: Array<Record<string, unknown>>;
  /** Resolves with the first event named `name` (already seen or future). */
  waitFor(name: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number }>;
  stdout(): string;
  stderr(): string;
}

export function runDeviceCode(opts: { baseUrl: string; cursorDir: string; args?: string[]; env?: Record<string, string>; nodeArgs?: string[]; script?: string; uid?: number }): DeviceRun {
  const started = Date.now();
  const env: NodeJS.ProcessEnv = {
    ...baseChildEnv(),
    HOME: opts.cursorDir,
    AGENTSTACK_BASE_URL: opts.baseUrl,
    AGENTSTACK_CURSOR_DIR: opts.cursorDir,
    ...opts.env,
  };
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.script ?? DEVICE_CODE_SCRIPT, ...(opts.args ?? ['--json', '--no-browser'])], { env, stdio: ['ignore', 'pipe', 'pipe'], ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid }) });
  let stdout = '';
  let stderr = '';
  let buffered = '';
  const events: Array<Record<string, unknown>> = [];
  const waiters: Array<{ name: string; resolve: (e: Record<string, unknown>) => void }> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      const event = JSON.parse(line) as Record<string, unknown>;
      events.push(event);
      for (const w of waiters.filter((w) => w.name === event.event)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(event);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, ms: Date.now() - started }));
  });
  return {
    child,
    events,
    done,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor(name, timeoutMs = 90_000) { // a backstop (the event is what is awaited), for a loaded machine
      const seen = events.find((e) => e.event === name);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${name}" event within ${timeoutMs} ms; stdout=${stdout} stderr=${stderr}`)), timeoutMs);
        const onExit = () => setTimeout(() => reject(new Error(`exited before a "${name}" event; stdout=${stdout} stderr=${stderr}`)), 50);
        child.once('close', onExit);
        waiters.push({ name, resolve: (e) => { clearTimeout(timer); child.off('close', onExit); resolve(e); } });
      });
    },
  };
}
