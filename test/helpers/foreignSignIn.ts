/**
 * Drives the built plugin (device-code.mjs, its --status and --logout, the session-start hook) against a foreign
 * deployment (test/fixtures/foreignDeployment.ts), each run in its own temporary home.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { FOREIGN_CLIENT_ID, type ForeignDeployment } from '../fixtures/foreignDeployment.js';
import { approveInBrowser, approveOverHttp } from './foreignApproval.js';
import { DEVICE_CODE_SCRIPT, runDeviceCode } from './deviceCode.js';
import { sessionStart, type HookRun } from './sessionStart.js';
import { baseChildEnv } from './platform.js';
import { tempDir } from './repo.js';

export interface ForeignHome {
  path: string;
  /** The base URL the plugin is given: the MCP server's origin (its MCP URL is `<base>/mcp`). */
  base: string;
  env: Record<string, string>;
  cleanup(): void;
}

export function foreignHome(d: ForeignDeployment, extraEnv: Record<string, string> = {}): ForeignHome {
  const dir = tempDir('agentstack-foreign-');
  return { path: dir.path, base: new URL(d.mcpUrl).origin, env: { AGENTSTACK_OAUTH_CLIENT_ID: FOREIGN_CLIENT_ID, ...extraEnv }, cleanup: dir.cleanup };
}

export interface SignInResult {
  /** The device_code event, or null when the sign-in stopped before showing a code. */
  started: Record<string, unknown> | null;
  final: Record<string, unknown> | undefined;
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `device-code --json --no-browser`; when it shows a code, the person approves it through the provider's own pages
 * (in Chromium when `browser` is given, else the same forms over HTTP). `approve: false` stops at the code.
 */
export async function signIn(d: ForeignDeployment, home: ForeignHome, opts: { browser?: Browser; screenshot?: string; approve?: boolean; args?: string[] } = {}): Promise<SignInResult> {
  const run = runDeviceCode({ baseUrl: home.base, cursorDir: home.path, env: home.env, args: ['--json', '--no-browser', ...(opts.args ?? [])] });
  const started = await Promise.race([run.waitFor('device_code'), run.done.then(() => null)]).catch(() => null);
  if (started && opts.approve === false) run.child.kill('SIGTERM');
  else if (started) {
    if (opts.browser) await approveInBrowser(opts.browser, String(started.verification_uri_complete), opts.screenshot);
    else await approveOverHttp(String(started.verification_uri_complete));
  }
  const done = await run.done;
  const final = [...run.events].reverse().find((e) => e.event === 'authorized' || e.event === 'error');
  return { started, final, code: done.code, stdout: done.stdout, stderr: done.stderr };
}

function fullEnv(home: ForeignHome): NodeJS.ProcessEnv {
  return { ...baseChildEnv(), HOME: home.path, AGENTSTACK_BASE_URL: home.base, AGENTSTACK_CURSOR_DIR: home.path, ...home.env };
}

/** Runs device-code.mjs with `args` without blocking: the deployment answers from this same process. */
function runScript(home: ForeignHome, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DEVICE_CODE_SCRIPT, ...args], { env: fullEnv(home), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); }));
}

/** `device-code --status --json` (`online`: with `--online`, which asks the server). */
export async function status(home: ForeignHome, online = false): Promise<{ code: number | null; json: Record<string, any> }> {
  const r = await runScript(home, ['--status', '--json', ...(online ? ['--online'] : [])]);
  return { code: r.code, json: JSON.parse(r.stdout) as Record<string, any> };
}

/** `device-code --logout` (the person's words on stdout/stderr). */
export async function logout(home: ForeignHome): Promise<{ code: number | null; text: string }> {
  const r = await runScript(home, ['--logout']);
  return { code: r.code, text: `${r.stdout}\n${r.stderr}` };
}

/** The session-start hook as Cursor runs it, automatic sign-in off (renewal still runs). */
export function startSession(home: ForeignHome): Promise<HookRun> {
  return sessionStart(home.path, home.base, { ...home.env, AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
}

/** The Bearer the plugin left in mcp.json, or null. */
export function bearer(home: ForeignHome): string | null {
  try {
    const config = JSON.parse(readFileSync(join(home.path, 'mcp.json'), 'utf8')) as { mcpServers?: Record<string, { headers?: Record<string, string> }> };
    return /^Bearer (\S+)$/.exec(config.mcpServers?.agentstack?.headers?.Authorization ?? '')?.[1] ?? null;
  } catch {
    return null;
  }
}

/** The MCP server's answer to `initialize` with `token`: 200 when it accepts it. */
export async function mcpStatus(d: ForeignDeployment, token: string | null): Promise<number> {
  const res = await fetch(d.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await res.body?.cancel();
  return res.status;
}

/** The scopes of a request's `scope` parameter, as a sorted list (null when the parameter is absent). */
export function scopesOf(params: Record<string, string> | undefined): string[] | null {
  const scope = params?.scope;
  return scope === undefined ? null : scope.split(' ').filter(Boolean).sort();
}

/** The requests a route of the AS received. */
export function requestsTo(d: ForeignDeployment, route: string, grantType?: string) {
  return d.oauth.filter((o) => o.route === route && (!grantType || o.params.grant_type === grantType));
}

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
