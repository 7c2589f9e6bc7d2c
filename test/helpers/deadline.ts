/**
 * Deadline tests on a machine whose speed changes under load. A run with a fault is judged against the product's own
 * deadline (none for "at once") plus a margin taken from a baseline: the same work without the fault, measured in the
 * same run and, where it can be, started beside it, so a busy machine moves the limit as it moves the run. No fixed
 * number of milliseconds stands in for "the machine is slow today".
 */
import { spawn } from 'node:child_process';
import { expect } from 'vitest';

/**
 * How many baselines of room a faulty run gets on top of its deadline: its error path does a little more work, and
 * with four workers on two cores the load changes between the baseline and the run (three baselines were missed by
 * a few percent in fresh-clone runs of the suite). The faults these tests guard against wait seconds or forever.
 */
export const BASELINE_MARGIN = 5;

export interface DeadlineBudget {
  /** The product's own deadline for this work, in ms (0 or absent: it should fail at once). */
  deadlineMs?: number;
  /** What the same work costs without the fault, measured in this run. */
  baselineMs: number;
  /**
   * The deadline's own length, when `deadlineMs` is a timer of it fired in this run (`timerMs`): how late that timer
   * fired is how late this process is woken now, which the faulty run's error path may meet again.
   */
  nominalMs?: number;
  what: string;
}

/** The margin's unit: the baseline, or how late this run fired a timer of the deadline, whichever is more. */
function unitOf(budget: DeadlineBudget): number {
  const lateness = budget.nominalMs !== undefined && budget.deadlineMs !== undefined ? budget.deadlineMs - budget.nominalMs : 0;
  return Math.max(budget.baselineMs, lateness);
}

export function limitOf(budget: DeadlineBudget): number {
  return (budget.deadlineMs ?? 0) + BASELINE_MARGIN * unitOf(budget);
}

export function expectWithinDeadline(elapsedMs: number, budget: DeadlineBudget): void {
  const deadline = budget.deadlineMs ?? 0;
  expect(elapsedMs, `${budget.what}: ${Math.round(elapsedMs)} ms, over ${Math.round(deadline)} ms + ${BASELINE_MARGIN} x ${Math.round(unitOf(budget))} ms (the same work without the fault, or a timer's lateness, measured in this run)`)
    .toBeLessThanOrEqual(limitOf(budget));
}

/**
 * `work`'s value and how long it took to settle, on its own: awaited beside a `timerMs`, the run is judged by its own
 * end, not by whichever of the two ends last.
 */
export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** Runs `work` with `baseline` started beside it: the baseline meets the same load. Both timed. */
export async function besideBaseline<T>(work: () => Promise<T>, baseline: () => Promise<unknown>): Promise<{ value: T; ms: number; baselineMs: number }> {
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
