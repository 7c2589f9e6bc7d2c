/** Runs the built session-start hook as Cursor does (stdin JSON in, one JSON object out) and prepares its files. */
import { mkdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { applyBearer } from '../../lib/agentstack/mcpJson/entry.js';
import { updateMcpConfigFile } from '../../lib/agentstack/mcpJson/file.js';
import { writeRefreshFile } from '../../lib/agentstack/auth/refreshStore.js';
import { REPO_ROOT } from './repo.js';
import { baseChildEnv } from './platform.js';

export const SESSION_START_SCRIPT = join(REPO_ROOT, 'hooks/scripts/session-start.cjs');
export const PRE_MCP_SCRIPT = join(REPO_ROOT, 'hooks/scripts/pre-mcp-cap-check.cjs');
/** How long Cursor gives session start before it kills it (hooks/hooks.json). */
export const SESSION_START_TIMEOUT_MS = (JSON.parse(readFileSync(join(REPO_ROOT, 'hooks/hooks.json'), 'utf8')) as { hooks: { sessionStart: Array<{ timeout: number }> } }).hooks.sessionStart[0]!.timeout * 1000;

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The one JSON object on stdout (the run fails the test when there is not exactly one). */
  json: Record<string, unknown>;
}

export const SESSION_INPUT = {
  hook_event_name: 'sessionStart', session_id: 's1', conversation_id: 'c1', is_background_agent: false, composer_mode: 'agent',
  workspace_roots: ['/tmp/ws'], cursor_version: '2.1.0',
};

export function runHook(script: string, args: string[], env: NodeJS.ProcessEnv, stdin: string): Promise<HookRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      const lines = stdout.split('\n').filter((l) => l.trim());
      if (lines.length !== 1) return reject(new Error(`expected one JSON line, got ${JSON.stringify(stdout)}; stderr ${stderr}`));
      try {
        resolve({ code, stdout, stderr, ms: Date.now() - started, json: JSON.parse(lines[0]!) });
      } catch (error) {
        reject(error);
      }
    });
  });
}

export function hookEnv(cursorDir: string, baseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...baseChildEnv(), HOME: cursorDir, AGENTSTACK_CURSOR_DIR: cursorDir, AGENTSTACK_BASE_URL: baseUrl, ...extra };
}

export function sessionStart(cursorDir: string, baseUrl: string, extra: Record<string, string> = {}, stdin = JSON.stringify(SESSION_INPUT)): Promise<HookRun> {
  return runHook(SESSION_START_SCRIPT, ['--from-hook'], hookEnv(cursorDir, baseUrl, extra), stdin);
}

/** Signs the Cursor dir in with tokens from the core, the way device-code.mjs leaves it. */
export async function signInWith(cursorDir: string, baseUrl: string, tokens: { access_token: string; refresh_token?: string; expires_in: number; scope: string }): Promise<void> {
  if (tokens.refresh_token) {
    writeRefreshFile(join(cursorDir, 'agentstack-refresh'), {
      refresh_token: tokens.refresh_token,
      scope: tokens.scope,
      token_type: 'Bearer',
      obtained_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + tokens.expires_in * 1000).toISOString(),
      token_endpoint: `${baseUrl}/api/oauth2/token`,
      client_id: 'cursor-plugin',
      resource: `${baseUrl}/mcp`,
    });
  }
  await updateMcpConfigFile(join(cursorDir, 'mcp.json'), (config) => applyBearer(config, { token: tokens.access_token, baseUrl }));
}

/** Stops the background sign-in a session start left in `cursorDir` (its device lock names the pid), if any. */
export function stopBackgroundSignIn(cursorDir: string): void {
  let pid: unknown;
  try {
    pid = (JSON.parse(readFileSync(join(cursorDir, 'agentstack-device.lock'), 'utf8')) as { pid?: unknown }).pid;
  } catch {
    return;
  }
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 1 || pid === process.pid) return;
  try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
}

/**
 * A Cursor dir `name` under `root`, signed in to `core` and holding the snapshot a session start fetched (automatic
 * sign-in off): the state most hook tests start from.
 */
export async function signedInWithSnapshot(root: string, core: { baseUrl: string; issueTokens(): Promise<{ access_token: string; refresh_token?: string; expires_in: number; scope: string }> }, name = 'cursor'): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  await signInWith(dir, core.baseUrl, await core.issueTokens());
  const started = await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
  if (started.code !== 0) throw new Error(`session start failed: ${started.stderr}`);
  return dir;
}
