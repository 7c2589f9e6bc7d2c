/**
 * The hooks read stdin with fs.read on descriptor 0 (not process.stdin): still bounded in size and time. A stdin that
 * never closes gets the deadline's answer (for an AgentStack call that could not be read whole: ask), and the process ends (SIGKILL on itself: a read blocked in Node's thread
 * pool would hold a normal exit), so Cursor is never kept waiting past the hook's own deadline.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PRE_MCP_SCRIPT, SESSION_START_SCRIPT } from '../helpers/sessionStart.js';
import { tempDir } from '../helpers/repo.js';

function start(script: string, args: string[]) {
  const dir = tempDir('agentstack-stdin-');
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  const started = Date.now();
  const ended = new Promise<{ code: number | null; signal: string | null; ms: number; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => { dir.cleanup(); resolve({ code, signal, ms: Date.now() - started, stdout, stderr }); });
  });
  return { child, ended };
}

describe('hook stdin, read without process.stdin', () => {
  it('pre-mcp: an execute call whose stdin never closes gets ask at the 2 s deadline, and the process ends', async () => {
    const { child, ended } = start(PRE_MCP_SCRIPT, []);
    child.stdin.write('{"tool_name": "agentstack.execute"'); // and never closed
    const r = await ended;
    child.stdin.destroy();
    expect(JSON.parse(r.stdout)).toMatchObject({ permission: 'ask' });
    expect(r.signal).toBe('SIGKILL');
    expect(r.ms).toBeGreaterThanOrEqual(1_900);
    expect(r.ms).toBeLessThan(6_000);
  });

  it('session-start: a stdin that never closes still gets the status card', async () => {
    const { child, ended } = start(SESSION_START_SCRIPT, ['--from-hook']);
    child.stdin.write('{');
    const r = await ended;
    child.stdin.destroy();
    expect(JSON.parse(r.stdout).additional_context).toMatch(/AgentStack/);
    expect(r.signal).toBe('SIGKILL');
    expect(r.stderr).toMatch(/stdin timeout; continuing without it/);
    expect(r.ms).toBeLessThan(8_000);
  });

  it('pre-mcp: an execute call over the 4 MiB cap gets ask (it cannot be checked), exit 0', async () => {
    const { child, ended } = start(PRE_MCP_SCRIPT, []);
    child.stdin.on('error', () => { /* the hook stops reading past the cap */ });
    child.stdin.end(`{"tool_name":"agentstack.execute","tool_input":"${'x'.repeat(5 * 1024 * 1024)}"}`);
    const r = await ended;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ permission: 'ask' });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('pre-mcp: stdin that arrives in pieces is read whole', async () => {
    const { child, ended } = start(PRE_MCP_SCRIPT, []);
    const text = JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'read_file', tool_input: '{}', url: 'https://files.example.com/mcp' });
    child.stdin.write(text.slice(0, 20));
    await new Promise((r) => setTimeout(r, 150));
    child.stdin.end(text.slice(20));
    const r = await ended;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('{}\n');
    expect(r.stderr).toBe('');
  });
});
