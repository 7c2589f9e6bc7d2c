/**
 * The hooks read stdin without process.stdin: a pipe or a socket made non-blocking and read with readSync, else with
 * fs.read on descriptor 0 (Node's thread pool). Either way bounded in size and time: a stdin that never closes gets the
 * deadline's answer (for an AgentStack call that could not be read whole: ask), and the process ends (the thread-pool
 * reader with SIGKILL on itself: a read blocked in the pool would hold a normal exit), so Cursor is never kept waiting
 * past the hook's own deadline.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRE_MCP_SCRIPT, SESSION_START_SCRIPT } from '../helpers/sessionStart.js';
import { tempDir } from '../helpers/repo.js';
import { bundleForTest } from '../helpers/bundle.js';
import { expectWithinDeadline } from '../helpers/deadline.js';
// The deadline, then the exit's grace for the read still in the thread pool, then SIGKILL on itself.
import { EXIT_GRACE_MS } from '../../lib/platform/fastHookIo.js';
import { notRunWhen } from '../helpers/notRun.js';

const HAS_PYTHON = spawnSync('python3', ['-c', 'pass']).status === 0;

/** `nodeArgs`: before the script (a preload, say). */
function start(script: string, args: string[], nodeArgs: string[] = []) {
  const dir = tempDir('agentstack-stdin-');
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
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

/** A preload that takes process.binding away, as a Node that no longer serves it would: the thread-pool reader reads. */
function noPipeHandle(dir: string): string {
  const file = join(dir, 'no-pipe-handle.cjs');
  writeFileSync(file, 'process.binding = undefined;\n');
  return file;
}

/**
 * The same hook with `input` on a stdin that closes, started at the same time: what the machine's load costs right
 * now, so a deadline is judged by what it adds to that rather than by a wall-clock figure a loaded machine misses.
 */
async function baseline(script: string, args: string[], input: string) {
  const { child, ended } = start(script, args);
  child.stdin.end(input);
  const r = await ended;
  expect(r.signal).toBeNull();
  return r;
}

describe('hook stdin, read without process.stdin', () => {
  // Both readers: the non-blocking one ends with a normal exit; the thread-pool one (where Node no longer serves its
  // pipe handle: a preload takes process.binding away) with SIGKILL on itself after the exit's grace.
  const readers = [
    { reader: 'non-blocking', nodeArgs: () => [], signal: null, graceMs: 0 },
    { reader: 'thread-pool', nodeArgs: (dir: string) => ['--require', noPipeHandle(dir)], signal: 'SIGKILL', graceMs: EXIT_GRACE_MS },
  ];

  it.each(readers)('pre-mcp ($reader reader): an execute call whose stdin never closes gets ask at the 2 s deadline, and the process ends', async ({ nodeArgs, signal, graceMs }) => {
    const dir = tempDir('agentstack-preload-');
    try {
      const { child, ended } = start(PRE_MCP_SCRIPT, [], nodeArgs(dir.path));
      child.stdin.write('{"tool_name": "agentstack.execute"'); // and never closed
      const base = baseline(PRE_MCP_SCRIPT, [], '{"tool_name": "agentstack.execute"}');
      const [r, b] = await Promise.all([ended, base]);
      child.stdin.destroy();
      expect(JSON.parse(r.stdout)).toMatchObject({ permission: 'ask' });
      expect(r.signal).toBe(signal); // ended by its own deadline, not by us
      if (signal === null) expect(r.code).toBe(0);
      expect(r.ms).toBeGreaterThanOrEqual(1_900);
      // What the deadline adds to the same hook started beside it: 2 s, with room for a loaded machine.
      expectWithinDeadline(r.ms, { deadlineMs: 2_000 + graceMs, baselineMs: b.ms, what: 'pre-mcp with a stdin that never closes' });
    } finally {
      dir.cleanup();
    }
  });

  it.each(readers)('session-start ($reader reader): a stdin that never closes still gets the status card', async ({ nodeArgs, signal, graceMs }) => {
    const dir = tempDir('agentstack-preload-');
    try {
      const { child, ended } = start(SESSION_START_SCRIPT, ['--from-hook'], nodeArgs(dir.path));
      child.stdin.write('{');
      const base = baseline(SESSION_START_SCRIPT, ['--from-hook'], '{}');
      const [r, b] = await Promise.all([ended, base]);
      child.stdin.destroy();
      expect(JSON.parse(r.stdout).additional_context).toMatch(/AgentStack/);
      expect(r.signal).toBe(signal);
      expect(r.stderr).toMatch(/stdin timeout; continuing without it/);
      // Its 1 s stdin deadline on top of what the same hook takes with a closed stdin, started beside it.
      expect(r.ms).toBeGreaterThanOrEqual(900);
      expectWithinDeadline(r.ms, { deadlineMs: 1_000 + graceMs, baselineMs: b.ms, what: 'session-start with a stdin that never closes' });
    } finally {
      dir.cleanup();
    }
  });

  it.each(readers)('pre-mcp ($reader reader): a stdin that never stops arriving (and never closes) gets ask at the 2 s deadline', async ({ nodeArgs, graceMs }) => {
    const dir = tempDir('agentstack-preload-');
    try {
      const { child, ended } = start(PRE_MCP_SCRIPT, [], nodeArgs(dir.path));
      child.stdin.on('error', () => { /* the hook is gone */ });
      child.stdin.write('{"tool_name": "agentstack.execute", "tool_input": "');
      const writer = setInterval(() => child.stdin.write('x'.repeat(64 * 1024)), 5);
      const base = baseline(PRE_MCP_SCRIPT, [], '{"tool_name": "agentstack.execute"}');
      const [r, b] = await Promise.all([ended, base]);
      clearInterval(writer);
      child.stdin.destroy();
      expect(JSON.parse(r.stdout)).toMatchObject({ permission: 'ask' });
      expectWithinDeadline(r.ms, { deadlineMs: 2_000 + graceMs, baselineMs: b.ms, what: 'pre-mcp with a stdin that never stops' });
    } finally {
      dir.cleanup();
    }
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

  // A writer that is not Node may hand over a non-blocking descriptor (the flag belongs to the shared open file; a
  // Node parent makes its children's stdio blocking): fs.read then fails with EAGAIN while no data is there, and the
  // hook goes on reading the same input through the stream reader. Python opens and passes such a descriptor here.
  it('pre-mcp: a non-blocking stdin that gets its input late is read whole, even over the cap', notRunWhen(process.platform === 'win32' ? 'it needs a POSIX non-blocking pipe' : !HAS_PYTHON && 'python3 is not installed (it writes the late input)', { timeout: 30_000 }), async () => {
    const dir = tempDir('agentstack-nonblock-');
    try {
      const answer = async (input: string) => {
        const fifo = join(dir.path, `in-${Math.random().toString(36).slice(2)}`);
        expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
        const opener = [
          'import os, sys',
          'fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)',
          'os.dup2(fd, 0)',
          'os.execv(sys.argv[2], sys.argv[2:])',
        ].join('\n');
        const child = spawn('python3', ['-c', opener, fifo, process.execPath, PRE_MCP_SCRIPT], {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { PATH: process.env.PATH, HOME: dir.path, AGENTSTACK_CURSOR_DIR: dir.path },
        });
        let stdout = '';
        child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
        const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
        // The writer opens once the hook holds its end (a FIFO with no writer would read as empty), and writes only
        // after the hook's first read found the pipe empty.
        // How long python and the hook take to start is the machine's business: wait for the hook's end of the pipe
        // until the hook has ended (then there is nothing to wait for).
        let writer = -1;
        let closed = false;
        void ended.then(() => { closed = true; });
        while (writer < 0 && !closed) {
          try { writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK); } catch { await new Promise((r) => setTimeout(r, 10)); }
        }
        expect(writer).toBeGreaterThanOrEqual(0);
        await new Promise((r) => setTimeout(r, 500));
        const bytes = Buffer.from(input);
        for (let off = 0; off < bytes.length;) {
          try {
            off += writeSync(writer, bytes, off, Math.min(65_536, bytes.length - off));
          } catch (error) {
            // The pipe is full: wait for the hook to read. Any other error (EPIPE: the hook has answered and closed
            // its end, as past its stdin deadline on a loaded machine) ends the writing; its answer is judged below.
            if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') break;
            await new Promise((r) => setTimeout(r, 2));
          }
        }
        closeSync(writer);
        expect(await ended).toBe(0);
        return JSON.parse(stdout) as Record<string, unknown>;
      };
      const call = (toolName: string, padding = '') => JSON.stringify({ tool_name: toolName, tool_input: JSON.stringify({ steps: [{ id: '1', action: 'projects.list' }] }), url: 'https://agentstack.tech/mcp', mcp_server_name: 'user-agentstack', padding });
      // Read whole: an execute call with no snapshot gets no decision, only the sign-in hint.
      expect(await answer(call('agentstack.execute'))).toMatchObject({ agent_message: expect.stringMatching(/snapshot does not exist yet/) });
      // Over the 4 MiB cap: the outer names are still seen, so an execute call gets ask and another tool {}.
      const big = 'x'.repeat(5 * 1024 * 1024);
      expect(await answer(call('agentstack.execute', big))).toMatchObject({ permission: 'ask' });
      expect(await answer(call('read_file', big))).toEqual({});
    } finally {
      dir.cleanup();
    }
  });

  // The kind of descriptor 0 is told without fstat on Linux (its /proc link names a pipe or a socket); every kind a
  // hook can be given reads the same, and a character device (a terminal, /dev/null) is no input, answered at once.
  it.skipIf(process.platform === 'win32')('reads stdin of every kind: a socket, a pipe, a file; a terminal or /dev/null is no input', async () => {
    const dir = tempDir('agentstack-kinds-');
    try {
      const probe = await bundleForTest('test/fixtures/stdinPoolProbe.ts', join(dir.path, 'probe.cjs'), { cjs: true });
      const env = { PATH: process.env.PATH, HOME: dir.path };
      const text = (r: { status: number | null; stdout: string }) => {
        expect(r.status).toBe(0);
        return (JSON.parse(r.stdout.trim().split('\n').pop()!) as { text: string }).text;
      };
      const input = '{"a":"é"}';
      // Node's spawn gives a socket; a shell pipeline a pipe; a redirect a regular file.
      expect(text(spawnSync(process.execPath, [probe], { input, encoding: 'utf8', env }))).toBe(input);
      expect(text(spawnSync('sh', ['-c', `printf '%s' '${input}' | "${process.execPath}" "${probe}"`], { encoding: 'utf8', env }))).toBe(input);
      const file = join(dir.path, 'input.json');
      writeFileSync(file, input);
      const fd = openSync(file, 'r');
      try {
        expect(text(spawnSync(process.execPath, [probe], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8', env }))).toBe(input);
      } finally {
        closeSync(fd);
      }
      const devNull = openSync('/dev/null', 'r');
      try {
        expect(text(spawnSync(process.execPath, [probe], { stdio: [devNull, 'pipe', 'pipe'], encoding: 'utf8', env }))).toBe('');
      } finally {
        closeSync(devNull);
      }
      // A terminal nobody types into (util-linux `script` gives the probe one, and its own stdin stays open): no
      // input, answered at once rather than at the 2 s deadline.
      if (spawnSync('script', ['-qec', 'true', '/dev/null']).status === 0) {
        const started = Date.now();
        const child = spawn('script', ['-qec', `"${process.execPath}" "${probe}"`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
        const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
        child.stdin.destroy();
        expect(text({ status, stdout })).toBe('');
        expect(Date.now() - started).toBeLessThan(1_900);
      }
    } finally {
      dir.cleanup();
    }
  });

  // The pre-MCP hook's stages do all their file work synchronously, so its stdin read starts Node's thread pool with one
  // thread: fewer threads to create before the answer. The variable that says so is the caller's if it set one, and is
  // gone again once the pool has read it, so no process the hook starts inherits it.
  it.skipIf(process.platform !== 'linux')('the one-pool-thread read starts one pool thread, keeps the caller\'s UV_THREADPOOL_SIZE and leaves none behind; the non-blocking read starts none', async () => {
    const dir = tempDir('agentstack-pool-');
    try {
      const probe = await bundleForTest('test/fixtures/stdinPoolProbe.ts', join(dir.path, 'probe.cjs'), { cjs: true });
      const run = (args: string[], env: Record<string, string> = {}) => {
        const r = spawnSync(process.execPath, [probe, ...args], { input: '{"a":1}', encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir.path, ...env } });
        expect(r.status).toBe(0);
        return JSON.parse(r.stdout) as { text: string; env: string | null; threads: number };
      };
      // The thread-pool reader (as where Node no longer serves its pipe handle).
      const four = run(['--no-pipe-handle']);
      const one = run(['--one-pool-thread', '--no-pipe-handle']);
      const callers = run(['--one-pool-thread', '--no-pipe-handle'], { UV_THREADPOOL_SIZE: '4' });
      expect([four.text, one.text, callers.text]).toEqual(['{"a":1}', '{"a":1}', '{"a":1}']);
      expect(four.threads - one.threads).toBe(3);
      expect(one.env).toBeNull();
      expect(callers).toMatchObject({ env: '4', threads: four.threads });
      // The non-blocking reader starts no pool thread at all.
      const none = run(['--one-pool-thread']);
      expect(none).toMatchObject({ text: '{"a":1}', env: null, threads: one.threads - 1 });
    } finally {
      dir.cleanup();
    }
  });
});
