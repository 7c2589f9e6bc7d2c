import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface JsonLinesProcess {
  child: ChildProcess;
  /** Resolves with the first event matching `predicate`, or rejects when the process ends first or after `timeoutMs`. */
  waitFor(predicate: (event: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  events: Record<string, unknown>[];
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Spawns a script that prints one JSON object per line on stdout (e.g. device-code --json) and collects the events. */
export function spawnJsonLines(script: string, args: string[], env: NodeJS.ProcessEnv): JsonLinesProcess {
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const events: Record<string, unknown>[] = [];
  const waiters: Array<{ predicate: (e: Record<string, unknown>) => boolean; resolve: (e: Record<string, unknown>) => void }> = [];
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => { err += d; });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    out += `${line}\n`;
    let event: Record<string, unknown>;
    try { event = JSON.parse(line); } catch { return; }
    events.push(event);
    for (const w of [...waiters]) if (w.predicate(event)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(event); }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child, events, exited,
    stdout: () => out,
    stderr: () => err,
    waitFor(predicate, timeoutMs = 90_000) { // a backstop (the event is what is awaited), for a loaded machine
      const seen = events.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for an event; got ${JSON.stringify(events)}; stderr: ${err}`)), timeoutMs);
        waiters.push({ predicate, resolve: (e) => { clearTimeout(timer); resolve(e); } });
        exited.then((code) => { clearTimeout(timer); reject(new Error(`process exited ${code} first; events ${JSON.stringify(events)}; stderr: ${err}`)); });
      });
    },
  };
}
