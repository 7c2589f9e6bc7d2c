/**
 * Whole-process timing, side by side: every round runs each command once, in a shuffled order (the same for every
 * bench run: a seeded shuffle), so drift and noise hit all of them alike and no command always follows the same one;
 * the figure is the median wall time after warm-up, and a ratio to a baseline is taken round by round (pairedRatio).
 */
import { spawn } from 'node:child_process';

export interface TimedCommand {
  name: string;
  argv: string[];
  stdin?: string;
  env?: NodeJS.ProcessEnv;
  /** The working directory (default: this process's). */
  cwd?: string;
  /** Runs before each timed run, outside the timing (e.g. put a token back near expiry). */
  before?: () => void | Promise<void>;
  /** Checked after each run; a command that fails is not a measurement. */
  expectExit?: number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * One run, timed from spawn to exit. Asynchronous on purpose: the reference core lives in this process and must keep
 * answering while the child runs.
 */
function runOnce(command: TimedCommand): Promise<{ ms: number; status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command.argv[0]!, command.argv.slice(1), { env: command.env ?? process.env, ...(command.cwd ? { cwd: command.cwd } : {}), stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, status, stderr }));
    child.stdin!.end(command.stdin ?? '');
  });
}

/** A seeded generator of numbers in [0, 1) (mulberry32): the same order of runs at every bench run. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `list` in a random order (Fisher-Yates). */
export function shuffled<T>(list: readonly T[], random: () => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export async function timeSideBySide(commands: TimedCommand[], options: { runs: number; warmup: number }): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(commands.map((c) => [c.name, []]));
  // BENCH_SEED: another order of the runs, to see whether an order effect is part of a figure.
  const random = seededRandom(Number(process.env.BENCH_SEED ?? 0x5eed));
  for (let round = 0; round < options.warmup + options.runs; round++) {
    for (const command of shuffled(commands, random)) {
      await command.before?.();
      const { ms, status, stderr } = await runOnce(command);
      const expected = command.expectExit ?? 0;
      if (status !== expected) {
        throw new Error(`${command.name} exited ${status} (expected ${expected}): ${stderr.slice(0, 400)}`);
      }
      if (round >= options.warmup) samples.get(command.name)!.push(ms);
    }
  }
  return samples;
}

/**
 * A command's ratio to a baseline timed in the same rounds: the median, over the rounds, of the command's time over
 * the baseline's in that round (`samples[i]` and `baseline[i]` from round i). A stretch in which this machine runs
 * slow (its start-ups vary by 20% from one second to the next) slows every command of a round alike and cancels out,
 * where a ratio of the two medians lets it through. Three identical rows, six runs of 61 rounds: ratios of medians
 * 0.96-1.09x, paired ratios 1.01-1.07x, the same mean (bench/notes.md).
 */
export function pairedRatio(samples: readonly number[], baseline: readonly number[]): number {
  return median(samples.map((v, i) => v / baseline[i]!));
}

/** In-process timing of a function: median milliseconds per call. */
export function timeInProcess(fn: () => unknown, options: { runs: number; warmup: number }): number {
  for (let i = 0; i < options.warmup; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    const started = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return median(times);
}

export interface Row {
  what: string;
  figure: string;
  ratio?: string;
  /** The ratio to the CommonJS floor (hook tables). */
  floor?: string;
  budget?: string;
  verdict?: 'PASS' | 'FAIL' | '';
}

export function markdownTable(rows: Row[], columns: { figure?: string } = {}): string {
  const lines = [`| what | ${columns.figure ?? 'median'} | ratio | budget | verdict |`, '|---|---:|---:|---:|---|'];
  for (const r of rows) lines.push(`| ${r.what} | ${r.figure} | ${r.ratio ?? ''} | ${r.budget ?? ''} | ${r.verdict ?? ''} |`);
  return lines.join('\n');
}
