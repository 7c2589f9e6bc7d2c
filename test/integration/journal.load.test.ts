/**
 * The journal on a loaded machine: the after hook's stdin deadline is for a writer that keeps the pipe open, not for a
 * hook that the machine did not run. Hooks starved of CPU (busy loops beside them, or a process stopped outright) must
 * still read the input that waited for them, whole, and leave one whole record each.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../lib/agentstack/journal/file.js';
import { EXECUTE_TOOL } from '../../lib/agentstack/server/toolNames.js';
import { startBusyLoops } from '../helpers/busyLoops.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { hookEnv, runHook } from '../helpers/sessionStart.js';

const AFTER_SCRIPT = join(REPO_ROOT, 'hooks/scripts/after-mcp-journal.cjs');
const root = mkdtempSync(join(tmpdir(), 'agentstack-journal-load-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));
let n = 0;
const cursorDir = () => mkdtempSync(join(root, `c${n++}-`));
// No server is reached: the after hook reads no network; the base url only has to be well formed.
const envOf = (dir: string) => hookEnv(dir, 'http://127.0.0.1:9');

/** An afterMCPExecution input as Cursor builds it, `conversation_id` last (a reader that stops early never sees it). */
function afterInput(conversation: string, padding = ''): string {
  const args = { steps: [{ id: '1', action: 'system.ping', params: { padding } }] };
  const result = { structuredContent: { ok: true, results: [{ id: '1', action: 'system.ping', ok: true }] } };
  return JSON.stringify({ hook_event_name: 'afterMCPExecution', tool_name: EXECUTE_TOOL, mcp_server_name: 'user-agentstack', tool_input: JSON.stringify(args), result_json: JSON.stringify(result), conversation_id: conversation });
}

function wholeRecords(dir: string) {
  const { records, skipped } = readJournal(join(dir, 'agentstack-journal.jsonl'));
  expect(skipped).toBe(0);
  for (const record of records) expect(record).not.toHaveProperty('unreadable');
  return records.map((r) => r.conversation_id).sort();
}

describe('the journal on a loaded machine', () => {
  it('16 concurrent after hooks beside 8 busy loops: 16 whole records, each with its conversation_id', async () => {
    const loops = startBusyLoops(8);
    try {
      const dir = cursorDir();
      const runs = await Promise.all(Array.from({ length: 16 }, (_, i) => runHook(AFTER_SCRIPT, [], envOf(dir), afterInput(`conv-${i}`))));
      expect(runs.map((r) => [r.code, r.stderr])).toEqual(runs.map(() => [0, '']));
      expect(wholeRecords(dir)).toEqual(Array.from({ length: 16 }, (_, i) => `conv-${i}`).sort());
    } finally {
      await loops.stop();
    }
  }, 120_000);

  it('a hook stopped mid-input for longer than its stdin deadline (as a starved process is) records the whole call', async () => {
    const dir = cursorDir();
    const text = afterInput('conv-stopped', 'x'.repeat(512 * 1024));
    const half = Math.floor(text.length / 2);
    const child = spawn(process.execPath, [AFTER_SCRIPT], { env: envOf(dir), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.stdin.on('error', () => { /* a hook that gave up early closes its stdin: the assertions below say so */ });
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The first half is flushed only once the hook is reading it (it is far larger than a pipe holds): the hook's stdin
    // deadline is running. Stopped, it is given the rest of its input (what the pipe holds at once, the rest as it reads)
    // and is then not run for longer than the deadline.
    await new Promise<void>((resolve, reject) => child.stdin.write(text.slice(0, half), (error) => (error ? reject(error) : resolve())));
    child.kill('SIGSTOP');
    child.stdin.end(text.slice(half));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    child.kill('SIGCONT');
    expect(await closed).toBe(0);
    expect(stdout.trim()).toBe('{}');
    expect(stderr).toBe('');
    expect(wholeRecords(dir)).toEqual(['conv-stopped']);
  }, 60_000);
});
