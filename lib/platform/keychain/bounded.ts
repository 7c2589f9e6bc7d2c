/**
 * Runs a keychain tool: arguments without secrets, the secret (if any) written to its standard input, output
 * capped, and the whole call bounded (the process is killed when it does not answer in time).
 */
import { builtin } from '../builtin.js';
import { KEYCHAIN_TIMEOUT_MS } from './types.js';

export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The tool could not be started (ENOENT, EACCES). */
  spawnError: string | null;
}

const OUTPUT_CAP = 64 * 1024;

export function runTool(command: string, args: readonly string[], options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ToolResult> {
  const { spawn } = builtin<typeof import('node:child_process')>('node:child_process');
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const done = (result: Omit<ToolResult, 'stdout' | 'stderr' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, stdout, stderr, timedOut });
    };
    let child: import('node:child_process').ChildProcess;
    try {
      child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: options.env ?? process.env, windowsHide: true, detached: process.platform !== 'win32' });
    } catch (error) {
      resolve({ code: null, stdout, stderr, timedOut, spawnError: (error as NodeJS.ErrnoException).code ?? 'error' });
      return;
    }
    const timer = setTimeout(() => {
      timedOut = true;
      // The whole group: a tool that started a helper (a prompter) takes it along.
      try { if (child.pid && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL'); else child.kill('SIGKILL'); } catch { child.kill('SIGKILL'); }
      done({ code: null, spawnError: null });
    }, options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => { if (stdout.length < OUTPUT_CAP) stdout += chunk.toString('utf8'); });
    child.stderr?.on('data', (chunk: Buffer) => { if (stderr.length < OUTPUT_CAP) stderr += chunk.toString('utf8'); });
    child.on('error', (error: NodeJS.ErrnoException) => done({ code: null, spawnError: error.code ?? 'error' }));
    child.on('close', (code) => done({ code, spawnError: null }));
    child.stdin?.on('error', () => { /* the tool exited before reading: its exit code says why */ });
    child.stdin?.end(options.input ?? '');
  });
}

/** The first line of a tool's complaint, short and printable (never its stdout, which may hold a secret). */
export function complaint(result: ToolResult): string {
  const line = result.stderr.split(/\r?\n/).map((l) => l.trim()).find(Boolean) ?? `exit code ${result.code}`;
  return line.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '').slice(0, 160);
}
