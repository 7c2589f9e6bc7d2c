#!/usr/bin/env node
/**
 * `npm test`: the type check beside the main suite (vitest.config.ts), then the managed-settings suite
 * (test/managed/isolated.mjs). The main suite spends much of its time waiting on the processes, servers and timers it
 * tests, so the type check runs in the CPU time it leaves idle: at the lowest priority, since the suite's deadline tests
 * measure their margins against baselines of the same run and a burst of other work between the two would skew them.
 * The suites print as they go; the type check prints when it ends, after them. Exits 0 only when all three pass.
 * Arguments go to the main suite (`npm test -- test/unit`).
 */
import { spawn } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;
// package.json's own `typecheck` script (npm.cmd on Windows needs a shell to start).
const TYPE_CHECK = { name: 'type check', argv: ['npm', 'run', '--silent', 'typecheck'], live: false, shell: process.platform === 'win32', idle: true };
const MAIN = { name: 'main suite', argv: [node, join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)], live: true };
const MANAGED = { name: 'managed settings suite', argv: [node, join(ROOT, 'test/managed/isolated.mjs')], live: true };

const started = Date.now();
const children = new Set();
let interrupted = false;

/** Runs one job; resolves with its exit status and, for a job that does not print as it goes, what it printed. */
function run(job) {
  return new Promise((resolve) => {
    const child = spawn(job.argv[0], job.argv.slice(1), { cwd: ROOT, shell: job.shell ?? false, stdio: job.live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    if (job.idle && child.pid) {
      // Its children (npm's, then tsc) inherit the priority.
      try { setPriority(child.pid, constants.priority.PRIORITY_LOW); } catch { /* not allowed here: it runs as it is */ }
    }
    const output = [];
    child.stdout?.on('data', (b) => output.push(b));
    child.stderr?.on('data', (b) => output.push(b));
    child.on('error', (error) => output.push(Buffer.from(`${job.name}: could not start (${error.message})\n`)));
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ job, ok: code === 0, status: code ?? signal, seconds: Math.round((Date.now() - started) / 1000), output: Buffer.concat(output).toString() });
    });
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    for (const child of children) child.kill(signal);
  });
}

const typeCheck = run(TYPE_CHECK);
const results = [await run(MAIN)];
if (!interrupted) results.push(await run(MANAGED));
const checked = await typeCheck;
if (checked.output.trim()) process.stdout.write(`\n── ${checked.job.name} ──\n${checked.output.trimEnd()}\n`);
results.push(checked);
process.stdout.write('\n');
for (const r of results) process.stdout.write(`${r.ok ? 'passed' : 'FAILED'}: ${r.job.name} (${r.ok ? 'ended' : `exit ${r.status}`} at ${r.seconds} s)\n`);
process.exitCode = interrupted ? 130 : results.every((r) => r.ok) ? 0 : 1;
