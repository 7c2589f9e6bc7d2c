/**
 * A FIFO, or a link to /dev/zero, in place of any file the hooks read: every state file is opened without blocking,
 * kept only when fstat on the open descriptor says it is a regular file, and read up to its size cap. Before, each of
 * these hung the hook until Cursor killed it (and config.mjs then ignored SIGTERM).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { CURSOR_FILES } from '../../lib/agentstack/server/paths.js';
import { STATE_FILE_MAX_BYTES } from '../../lib/agentstack/server/fileLimits.js';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { bigSnapshot } from '../helpers/fixtures.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, SESSION_INPUT, SESSION_START_SCRIPT, hookEnv } from '../helpers/sessionStart.js';

const CONFIG = join(REPO_ROOT, 'scripts/config.mjs');
const LIMIT_MS = 15_000;
let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;
let count = 0;
beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
  tmp = tempDir('agentstack-statekinds-');
});
afterAll(async () => {
  await core?.close();
  tmp?.cleanup();
});

const EXECUTE = JSON.stringify({
  hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', tool_input: JSON.stringify({ steps: [{ id: '1', action: 'nope.nothing' }] }),
  url: 'https://agentstack.tech/mcp', mcp_server_name: 'user-agentstack',
});

/** A script run that is killed at `LIMIT_MS`: a hook that blocks fails the test instead of hanging it. */
function runWithin(args: string[], env: NodeJS.ProcessEnv, stdin: string): Promise<{ answered: boolean; stdout: string }> {
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.resume();
  child.stdin.on('error', () => {}).end(stdin);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stdout.split('\n').filter((l) => l.trim());
      resolve({ answered: code === 0 && lines.length >= 1, stdout });
    });
  });
}

type Kind = 'fifo' | 'zero';
function plant(path: string, kind: Kind): void {
  rmSync(path, { force: true, recursive: true });
  if (kind === 'fifo') expect(spawnSync('mkfifo', [path]).status).toBe(0);
  else symlinkSync('/dev/zero', path);
}

function cursorDir(): string {
  const dir = join(tmp.path, `d${count++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, CURSOR_FILES.mcpJson), JSON.stringify({ mcpServers: { other: { url: 'https://other.example/mcp' } } }));
  writeSnapshot(join(dir, CURSOR_FILES.capabilities), bigSnapshot(5));
  return dir;
}

const KINDS: Kind[] = ['fifo', 'zero'];
const POSIX = process.platform !== 'win32';

describe.runIf(POSIX)('a FIFO or /dev/zero where a state file should be never stalls a hook', () => {
  const preMcpFiles = [CURSOR_FILES.mcpJson, CURSOR_FILES.settings, CURSOR_FILES.capabilities] as const;
  it.each(preMcpFiles.flatMap((f) => KINDS.map((k) => [f, k] as const)))('pre-MCP hook, %s as %s: answers', async (file, kind) => {
    const dir = cursorDir();
    plant(join(dir, file), kind);
    const run = await runWithin([PRE_MCP_SCRIPT], hookEnv(dir, core.baseUrl), EXECUTE);
    expect(run.answered, run.stdout).toBe(true);
    const answer = JSON.parse(run.stdout) as { permission?: string; agent_message?: string };
    // Without a snapshot to check against, the call is left to Cursor's own approval, and the agent is told why.
    if (file === CURSOR_FILES.capabilities) expect(answer.agent_message).toMatch(/snapshot is unreadable/);
    else expect(['deny', 'ask']).toContain(answer.permission);
  }, LIMIT_MS + 5_000);

  const sessionFiles = [CURSOR_FILES.mcpJson, CURSOR_FILES.settings, CURSOR_FILES.capabilities, CURSOR_FILES.refresh, CURSOR_FILES.project, CURSOR_FILES.deviceLock] as const;
  it.each(sessionFiles.flatMap((f) => KINDS.map((k) => [f, k] as const)))('session start, %s as %s: answers', async (file, kind) => {
    const dir = cursorDir();
    plant(join(dir, file), kind);
    const run = await runWithin([SESSION_START_SCRIPT, '--from-hook'], hookEnv(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }), JSON.stringify(SESSION_INPUT));
    expect(run.answered, run.stdout).toBe(true);
    expect(typeof JSON.parse(run.stdout).additional_context).toBe('string');
  }, LIMIT_MS + 5_000);

  it.each(KINDS)('config.mjs list with the settings file as %s: answers and names the file', async (kind) => {
    const dir = cursorDir();
    plant(join(dir, CURSOR_FILES.settings), kind);
    const run = await runWithin([CONFIG, 'list'], { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir }, '');
    expect(run.answered, run.stdout).toBe(true);
  }, LIMIT_MS + 5_000);
});

describe('every state file has a size cap, checked before a byte is read', () => {
  it('a settings file past its cap (sparse, so the test writes nothing) is reported and ignored by config list', async () => {
    const dir = cursorDir();
    const path = join(dir, CURSOR_FILES.settings);
    writeFileSync(path, '{}');
    truncateSync(path, STATE_FILE_MAX_BYTES.settings + 1);
    const run = spawnSync(process.execPath, [CONFIG, 'list', '--json'], { env: { PATH: process.env.PATH, HOME: dir, AGENTSTACK_CURSOR_DIR: dir }, encoding: 'utf8', timeout: LIMIT_MS });
    expect(`${run.stdout}${run.stderr}`).toMatch(/EFBIG/);
  });
});
