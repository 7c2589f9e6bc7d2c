/**
 * A loaded machine for the tests that must hold on one: `count` processes that each spin on a core until stopped, or
 * until `maxMs` have passed (a test that dies before stopping them leaves nothing spinning for long).
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface BusyLoops {
  stop(): Promise<void>;
}

export function startBusyLoops(count: number, maxMs = 60_000): BusyLoops {
  const loops: ChildProcess[] = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${maxMs}; while (Date.now() < end) {}`], { stdio: 'ignore' }));
  return {
    async stop() {
      await Promise.all(loops.map((loop) => new Promise<void>((resolve) => {
        if (loop.exitCode !== null || loop.signalCode !== null) return resolve();
        loop.once('exit', () => resolve());
        loop.kill('SIGKILL');
      })));
    },
  };
}
