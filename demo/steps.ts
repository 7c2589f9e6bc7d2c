/** Small pieces the demo narrates with: run a bundled script as Cursor would, and print what happened. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PLUGIN_ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
export const script = (relative: string) => join(PLUGIN_ROOT, relative);

export interface RunResult { code: number | null; stdout: string; stderr: string; ms: number }

/** Runs a bundled script with plain `node`, as Cursor does, feeding `stdin` and a bounded time. */
export function runScript(relative: string, args: string[], env: NodeJS.ProcessEnv, stdin = '', timeoutMs = 30_000): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script(relative), ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr, ms: Date.now() - started }); });
    child.stdin.end(stdin);
  });
}

export class StepFailed extends Error {}

export function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export function heading(n: number, title: string): void {
  say();
  say(`${n}. ${title}`);
}

export function indent(text: string, prefix = '   '): string {
  return text.replace(/\s+$/, '').split('\n').map((l) => `${prefix}${l}`).join('\n');
}

/** Parses a hook's stdout: it must be exactly one JSON object. */
export function hookAnswer(result: RunResult, name: string): Record<string, unknown> {
  if (result.code !== 0) throw new StepFailed(`${name} exited ${result.code}: ${result.stderr.trim().slice(0, 300)}`);
  try {
    const value = JSON.parse(result.stdout);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch { /* reported below */ }
  throw new StepFailed(`${name} did not print exactly one JSON object: ${result.stdout.slice(0, 200)}`);
}
