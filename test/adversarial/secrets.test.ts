/**
 * Secrets. Fault: every script and hook run through its success and failure paths (sign-in approved and denied,
 * refresh, refresh with the token endpoint down, invalid_grant, auto sign-in through the detached poller, pre-MCP
 * deny, diagnose offline and online, verify with the server failing). Outcome: no run of 12 or more characters of
 * any issued access token or refresh token in any stdout, stderr, hook output or
 * ~/.cursor/agentstack-device.log; and every file that appears in ~/.cursor while they run is 0600 when first seen.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, SESSION_START_SCRIPT, signInWith } from '../helpers/sessionStart.js';
import { PRIVATE_MODE, baseChildEnv } from '../helpers/platform.js';
import { findLeaks } from '../helpers/secretScan.js';

const DIAGNOSE = join(REPO_ROOT, 'scripts/diagnose-local.mjs');
const VERIFY = join(REPO_ROOT, 'scripts/verify-mcp-surface-e2e.mjs');

let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;
/** Everything any process printed, and every secret ever seen in a file or issued by the core. */
const output: Array<{ what: string; text: string }> = [];
const secrets = new Set<string>();
/** Files seen appearing in a watched dir, with their mode when first seen. */
const firstModes = new Map<string, number>();
const watchers: FSWatcher[] = [];

function watchDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const look = (name: string) => {
    const path = join(dir, name);
    if (firstModes.has(path)) return;
    try {
      const st = lstatSync(path);
      if (st.isFile()) firstModes.set(path, st.mode & 0o777);
    } catch { /* already gone (a temp file renamed away) */ }
  };
  watchers.push(watch(dir, (_event, name) => { if (name) look(String(name)); }));
  // fs.watch may coalesce events: a tight poll catches what it misses
  const timer = setInterval(() => { try { readdirSync(dir).forEach(look); } catch { /* removed */ } }, 2);
  watchers.push({ close: () => clearInterval(timer) } as unknown as FSWatcher);
}

/** Reads the secrets the plugin stored in `dir` (Bearer and refresh token), so the scan knows what to look for. */
function harvest(dir: string): void {
  try { const t = bearerOf(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8'))); if (t) secrets.add(t); } catch { /* none */ }
  try { const r = JSON.parse(readFileSync(join(dir, 'agentstack-refresh'), 'utf8')).refresh_token; if (r) secrets.add(r); } catch { /* none */ }
}

let dirs = 0;
function cursorDir(): string {
  const dir = join(tmp.path, `c${dirs++}`);
  watchDir(dir);
  return dir;
}

function env(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: core.baseUrl, ...extra };
}

function run(what: string, args: string[], e: NodeJS.ProcessEnv, stdin = ''): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, args, { env: e, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => {
    output.push({ what: `${what} stdout`, text: stdout }, { what: `${what} stderr`, text: stderr });
    resolve({ code, stdout });
  }));
}

/** device-code run to the end, in human mode or --json; the test approves (or denies) the code it prints. */
async function deviceSignIn(dir: string, opts: { deny?: boolean; json?: boolean } = {}): Promise<number | null> {
  const args = [join(REPO_ROOT, 'hooks/scripts/device-code.mjs'), '--no-browser', ...(opts.json ? ['--json'] : [])];
  const child = spawn(process.execPath, args, { env: env(dir), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let approved = false;
  const onData = () => {
    const code = /([A-Z]{4}-[A-Z]{4})/.exec(stdout + stderr)?.[1];
    if (code && !approved) {
      approved = true;
      void core.approve(code, { deny: opts.deny });
    }
  };
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; onData(); });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; onData(); });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  output.push({ what: `device-code${opts.json ? ' --json' : ''} stdout`, text: stdout }, { what: 'device-code stderr', text: stderr });
  harvest(dir);
  return code;
}

const EXECUTE = JSON.stringify({ tool_name: 'agentstack.execute', tool_input: JSON.stringify({ steps: [{ id: '1', action: 'nope.nothing' }] }), url: 'https://agentstack.tech/mcp', mcp_server_name: 'user-agentstack' });

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1 });
  tmp = tempDir('agentstack-secrets-');
});
afterAll(async () => {
  for (const w of watchers) w.close();
  await core?.close();
  tmp?.cleanup();
});

describe('secrets never leave their files', () => {
  it('every script through success and failure paths', async () => {
    // 1. device-code: approved (human and --json), then denied
    const signed = cursorDir();
    expect(await deviceSignIn(signed)).toBe(0);
    expect(await deviceSignIn(cursorDir(), { json: true })).toBe(0);
    const denied = cursorDir();
    expect(await deviceSignIn(denied, { deny: true })).toBe(1);

    // 2. session-start: fresh token; expiring token refreshed; refresh with the token endpoint down; invalid_grant
    await run('session-start fresh', [SESSION_START_SCRIPT, '--from-hook'], env(signed), '{}');
    const refreshing = cursorDir();
    const expiring = await core.issueTokens({ accessTokenTtl: 30 });
    secrets.add(expiring.access_token).add(expiring.refresh_token!);
    await signInWith(refreshing, core.baseUrl, expiring);
    await run('session-start refresh', [SESSION_START_SCRIPT, '--from-hook'], env(refreshing), '{}');
    harvest(refreshing);
    const down = cursorDir();
    const expiring2 = await core.issueTokens({ accessTokenTtl: 30 });
    secrets.add(expiring2.access_token).add(expiring2.refresh_token!);
    await signInWith(down, core.baseUrl, expiring2);
    core.setFaults({ endpointFaults: { token: { kind: '5xx' } } });
    await run('session-start token 5xx', [SESSION_START_SCRIPT, '--from-hook'], env(down, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }), '{}');
    core.setFaults({ endpointFaults: {} });
    const revoked = cursorDir();
    const expiring3 = await core.issueTokens({ accessTokenTtl: 30 });
    secrets.add(expiring3.access_token).add(expiring3.refresh_token!);
    await signInWith(revoked, core.baseUrl, expiring3);
    const { refresh } = await import('../../core/testing.js');
    const rotated = await refresh(core.baseUrl, expiring3.refresh_token!); // the stored one is now used: invalid_grant
    secrets.add(String(rotated.body.access_token)).add(String(rotated.body.refresh_token));
    await run('session-start invalid_grant', [SESSION_START_SCRIPT, '--from-hook'], env(revoked, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }), '{}');

    // 3. auto sign-in from session-start: the detached poller logs to agentstack-device.log
    const auto = cursorDir();
    writeFileSync(join(auto, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }), { mode: 0o600 });
    const hook = await run('session-start auto sign-in', [SESSION_START_SCRIPT, '--from-hook'], env(auto), '{}');
    const code = /([A-Z]{4}-[A-Z]{4})/.exec(hook.stdout)?.[1];
    expect(code, hook.stdout).toBeDefined();
    await core.approve(code!);
    for (let i = 0; i < 150 && !bearerOf(JSON.parse(readFileSync(join(auto, 'mcp.json'), 'utf8'))); i++) await new Promise((r) => setTimeout(r, 50));
    harvest(auto);
    expect(bearerOf(JSON.parse(readFileSync(join(auto, 'mcp.json'), 'utf8')))).toBeTruthy();

    // 4. pre-MCP (deny), diagnose offline / --online / --fix, verify passing and failing
    await run('pre-mcp deny', [PRE_MCP_SCRIPT], env(signed), EXECUTE);
    await run('diagnose', [DIAGNOSE], env(signed));
    await run('diagnose --online', [DIAGNOSE, '--online', '--json'], env(signed));
    await run('diagnose --fix', [DIAGNOSE, '--fix'], env(refreshing));
    await run('verify', [VERIFY, '--base-url', core.baseUrl], env(signed));
    core.setFaults({ endpointFaults: { mcp: { kind: '5xx' }, actions: { kind: 'malformed' } } });
    await run('verify failing', [VERIFY, '--base-url', core.baseUrl, '--json'], env(signed));
    await run('diagnose --online failing', [DIAGNOSE, '--online'], env(signed));
    core.setFaults({ endpointFaults: {} });

    // the scan: every byte of every output and of every device log
    for (const dir of readdirSync(tmp.path).map((d) => join(tmp.path, d))) {
      const log = join(dir, 'agentstack-device.log');
      if (existsSync(log)) output.push({ what: `${log}`, text: readFileSync(log, 'utf8') });
    }
    const real = [...secrets].filter((s) => s && s !== 'undefined' && s.length >= 20);
    expect(real.length).toBeGreaterThanOrEqual(10);
    const hits = findLeaks(output, real);
    console.info(`[secrets] outputs scanned=${output.length} bytes=${output.reduce((a, o) => a + o.text.length, 0)} secrets=${real.length} hits=${hits.length}`);
    expect(hits).toEqual([]);
    expect(output.some((o) => o.what.endsWith('agentstack-device.log') && o.text.length > 0)).toBe(true);
  }, 240_000); // a backstop for a hang: the run is many processes, several times slower on a loaded machine

  it('every file that appeared in ~/.cursor during those runs was 0600 when first seen', () => {
    const loose = [...firstModes].filter(([, mode]) => mode !== PRIVATE_MODE).map(([p, m]) => `${p.slice(tmp.path.length)} ${m.toString(8)}`);
    const names = new Set([...firstModes.keys()].map((p) => p.split('/').pop()!.replace(/\.\d+\.[0-9a-f]+\.tmp$/, '.<pid>.tmp')));
    console.info(`[secrets] files seen=${firstModes.size} kinds=${[...names].sort().join(',')}`);
    // the test's own setup files (written by this test with 0600 too) are included; nothing may be looser
    expect(loose).toEqual([]);
    for (const name of ['mcp.json', 'agentstack-refresh', 'agentstack-capabilities.json', 'agentstack-device.log']) expect(names.has(name), name).toBe(true);
  });
});

describe('the leak scan', () => {
  it('sees any 12-character run of a secret (prefix, middle, suffix), not a gh-style mask', async () => {
    const { maskSecret } = await import('../../lib/platform/text/mask.js');
    const secret = 'eyJhbGciOiJFUzI1NiJ9.payload-part-of-the-token.signature-0123456789';
    for (const printed of [secret.slice(0, 12), secret.slice(20, 32), secret.slice(-12), `Bearer ${secret.slice(3, 40)}…`]) {
      expect(findLeaks([{ what: 'out', text: `x ${printed} y` }], [secret]), printed).toHaveLength(1);
    }
    expect(findLeaks([{ what: 'out', text: `token ${maskSecret(secret)} ${secret.slice(5, 16)}` }], [secret])).toEqual([]);
  });
});
