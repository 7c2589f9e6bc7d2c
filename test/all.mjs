#!/usr/bin/env node
/**
 * `npm test`: the type check, the main suite (vitest.config.ts) and the managed-settings suite (test/managed/isolated.mjs,
 * in a mount namespace of its own, so its /etc/agentstack is not the one the main suite sees) run side by side. The
 * suites spend much of their time waiting on the processes, servers and timers they test, so what runs beside them
 * costs little wall time. The main suite prints as it goes; the other two print when they end, after it. Exits 0 only
 * when all three pass. Arguments go to the main suite (`npm test -- test/unit`).
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;
const JOBS = [
  // package.json's own `typecheck` script (npm.cmd on Windows needs a shell to start).
  { name: 'type check', argv: ['npm', 'run', '--silent', 'typecheck'], live: false, shell: process.platform === 'win32' },
  { name: 'main suite', argv: [node, join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)], live: true },
  { name: 'managed settings suite', argv: [node, join(ROOT, 'test/managed/isolated.mjs')], live: false },
];

const started = Date.now();
const children = new Set();

/** Runs one job; resolves with its exit status and, for a job that does not print as it goes, what it printed. */
function run(job) {
  return new Promise((resolve) => {
    const child = spawn(job.argv[0], job.argv.slice(1), { cwd: ROOT, shell: job.shell ?? false, stdio: job.live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    children.add(child);
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
    for (const child of children) child.kill(signal);
    process.exitCode = 130;
  });
}

const live = run(JOBS[1]);
const quiet = [run(JOBS[0]), run(JOBS[2])];
const results = [await live];
for (const r of await Promise.all(quiet)) {
  if (r.output.trim()) process.stdout.write(`\n── ${r.job.name} ──\n${r.output.trimEnd()}\n`);
  results.push(r);
}
process.stdout.write('\n');
for (const r of results) process.stdout.write(`${r.ok ? 'passed' : 'FAILED'}: ${r.job.name} (${r.ok ? 'ended' : `exit ${r.status}`} at ${r.seconds} s)\n`);
if (process.exitCode !== 130) process.exitCode = results.every((r) => r.ok) ? 0 : 1;
