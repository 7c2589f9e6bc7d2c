/**
 * `agentstack-device.log`, the background sign-in's log, opened like every other file the plugin owns: never
 * through a symlink (another file would be truncated and chmod'ed), only a regular file (a FIFO would block the
 * session-start hook past every deadline), created 0600.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { tempDir } from '../helpers/repo.js';
import { SESSION_INPUT, SESSION_START_SCRIPT, hookEnv, stopBackgroundSignIn } from '../helpers/sessionStart.js';
import { expectWithinDeadline, scriptStartMs } from '../helpers/deadline.js';
import { SESSION_START_BUDGET_MS } from '../../lib/commands/sessionStart/run.js';

let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;
let count = 0;

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
  tmp = tempDir('agentstack-devicelog-');
});
afterAll(async () => {
  // The sign-ins these session starts began would otherwise poll on after the suite.
  for (let i = 0; i < count; i++) stopBackgroundSignIn(join(tmp.path, `d${i}`));
  await core?.close();
  tmp?.cleanup();
});

/** A Cursor dir whose agentstack entry holds a placeholder Bearer: session-start starts a background sign-in. */
function placeholderDir(): string {
  const dir = join(tmp.path, `d${count++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));
  return dir;
}

/** Runs session-start and gives up (killing it) after `limitMs`: a hook that blocks must fail the test, not hang it. */
function sessionStartWithin(dir: string, limitMs: number): Promise<{ answered: boolean; context: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [SESSION_START_SCRIPT, '--from-hook'], { env: hookEnv(dir, core.baseUrl), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stdin.end(JSON.stringify(SESSION_INPUT));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('close', () => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.trim());
      let context = '';
      try { context = String((JSON.parse(line ?? '') as { additional_context?: unknown }).additional_context ?? ''); } catch { /* no answer */ }
      resolve({ answered: line !== undefined, context, ms: Date.now() - started });
    });
  });
}

describe('the device log is never opened through a link or as a FIFO', () => {
  it('a symlink to another file: that file keeps its content and mode; the hook says to move the link aside', async () => {
    const dir = placeholderDir();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious notes\n');
    chmodSync(victim, 0o644);
    symlinkSync(victim, join(dir, 'agentstack-device.log'));
    const run = await sessionStartWithin(dir, 15_000);
    expect(run.answered).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('precious notes\n');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(dir, 'agentstack-device.log')).isSymbolicLink()).toBe(true);
    expect(run.context).toMatch(/agentstack-device\.log is not a regular file/);
  });

  it('a FIFO: session-start answers inside its deadline instead of blocking on the open', async () => {
    const dir = placeholderDir();
    const fifo = join(dir, 'agentstack-device.log');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const [run, startMs] = await Promise.all([sessionStartWithin(dir, 60_000), scriptStartMs(SESSION_START_SCRIPT)]);
    expect(run.answered).toBe(true);
    expectWithinDeadline(run.ms, { deadlineMs: SESSION_START_BUDGET_MS, baselineMs: startMs, what: 'session-start with a FIFO as its log' });
    expect(run.context).toMatch(/agentstack-device\.log is not a regular file/);
  });

  it('control: no log yet: it is created 0600 as a regular file and the sign-in starts', async () => {
    const dir = placeholderDir();
    const run = await sessionStartWithin(dir, 15_000);
    expect(run.context).toMatch(/enter the code/);
    const log = join(dir, 'agentstack-device.log');
    expect(existsSync(log)).toBe(true);
    expect(lstatSync(log).isFile()).toBe(true);
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });
});
