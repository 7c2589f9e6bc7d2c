/**
 * Deadline tests on a machine whose speed changes under load. A run with a fault is judged against the product's own
 * deadline (none for "at once") plus a margin taken from a baseline: the same work without the fault, measured in the
 * same run and, where it can be, started beside it, so a busy machine moves the limit as it moves the run. No fixed
 * number of milliseconds stands in for "the machine is slow today".
 */
import { spawn } from 'node:child_process';
import { expect } from 'vitest';

/** How many baselines of room a faulty run gets on top of its deadline (its error path does a little more work). */
export const BASELINE_MARGIN = 3;

export interface DeadlineBudget {
  /** The product's own deadline for this work, in ms (0 or absent: it should fail at once). */
  deadlineMs?: number;
  /** What the same work costs without the fault, measured in this run. */
  baselineMs: number;
  what: string;
}

export function limitOf(budget: DeadlineBudget): number {
  return (budget.deadlineMs ?? 0) + BASELINE_MARGIN * budget.baselineMs;
}

export function expectWithinDeadline(elapsedMs: number, budget: DeadlineBudget): void {
  const deadline = budget.deadlineMs ?? 0;
  expect(elapsedMs, `${budget.what}: ${Math.round(elapsedMs)} ms, over ${deadline} ms + ${BASELINE_MARGIN} x ${Math.round(budget.baselineMs)} ms (the same work without the fault, measured in this run)`)
    .toBeLessThanOrEqual(limitOf(budget));
}

/** Runs `work` with `baseline` started beside it: the baseline meets the same load. Both timed. */
export async function besideBaseline<T>(work: () => Promise<T>, baseline: () => Promise<unknown>): Promise<{ value: T; ms: number; baselineMs: number }> {
  const timed = async <V>(fn: () => Promise<V>) => { const started = performance.now(); const value = await fn(); return { value, ms: performance.now() - started }; };
  const [run, base] = await Promise.all([timed(work), timed(baseline)]);
  return { value: run.value, ms: run.ms, baselineMs: base.ms };
}

/**
 * A plain timer of `ms`, started now: how long a deadline of `ms` really takes in this process under the machine's
 * current load (a loaded machine fires timers late). Start it beside the work and use it as the deadline.
 */
export function timerMs(ms: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => setTimeout(() => resolve(performance.now() - started), ms));
}

/**
 * What starting `script` costs here now (`node script --help`: Node's start, the bundle's load, a line of output):
 * the baseline of a run that should fail at once, whose error path does little more than that.
 */
export function scriptStartMs(script: string, env: NodeJS.ProcessEnv = { PATH: process.env.PATH }): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [script, '--help'], { env, stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve(performance.now() - started));
  });
}
