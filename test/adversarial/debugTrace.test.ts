/**
 * The API trace and the support report against the reference core (real HTTP on 127.0.0.1). Fault: tracing on
 * everywhere (the `--debug` flag, AGENTSTACK_DEBUG=api, the `debug` setting) while a person signs in, the session
 * start hook refreshes, verify and `diagnose-local --report` run, and the person signs out with a client secret and
 * a proxy password in the environment. Outcome: the trace shows each request in order with its status; and no
 * secret the core issued (device codes, access, refresh and ID tokens), nor the client secret or proxy password,
 * appears whole or as any 12-character run in any stdout, stderr, the debug log, the sign-in log or the report.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { copyPlugin } from '../helpers/pluginCopy.js';
import { IS_WINDOWS, PRIVATE_MODE, baseChildEnv } from '../helpers/platform.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { findLeaks } from '../helpers/secretScan.js';
import { sessionStart, signInWith } from '../helpers/sessionStart.js';

const DEVICE_CODE = join(REPO_ROOT, 'hooks/scripts/device-code.mjs');
const DIAGNOSE = join(REPO_ROOT, 'scripts/diagnose-local.mjs');
const VERIFY = join(REPO_ROOT, 'scripts/verify-mcp-surface-e2e.mjs');
const CONFIG = join(REPO_ROOT, 'scripts/config.mjs');
const CLIENT_SECRET = 'cs-7Hq2Vx9LpR4mZt8WcY3nKb6D';
const PROXY_PASSWORD = 'pp-Jd83kQm2Xs7VrT5yHw9Lc4Nf';

let core: RunningCore;
let tmp: ReturnType<typeof tempDir>;
let dir: string;
const outputs: Array<{ what: string; text: string }> = [];

beforeAll(async () => {
  // Short-lived access tokens: the session start hook after the sign-in has to refresh.
  core = await startCore({ port: 0, interval: 1, accessTokenTtl: 60 });
  tmp = tempDir('agentstack-trace-');
  dir = join(tmp.path, 'cursor');
  mkdirSync(join(dir, 'plugins/local/agentstack'), { recursive: true });
  copyPlugin(join(dir, 'plugins/local/agentstack'));
});
afterAll(async () => {
  await core?.close();
  tmp?.cleanup();
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: core.baseUrl, NO_PROXY: '127.0.0.1,localhost', ...extra };
}

/** A script run to the end; every byte it printed is kept for the scan. */
function run(what: string, args: string[], e: NodeJS.ProcessEnv, onOutput?: (text: string) => void): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { env: e, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; onOutput?.(stdout + stderr); });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; onOutput?.(stdout + stderr); });
  return new Promise((resolve) => child.on('close', (code) => {
    outputs.push({ what: `${what} stdout`, text: stdout }, { what: `${what} stderr`, text: stderr });
    resolve({ code, stdout, stderr });
  }));
}

/** The request lines of a trace, `METHOD path -> status`, in the order they were written. */
function requestLines(trace: string): string[] {
  return [...trace.matchAll(/^\[api[^\]]*\] \S+ (\S+) (\S+) -> (\S+)/gm)].map((m) => `${m[1]} ${new URL(m[2]!).pathname} -> ${m[3]}`);
}

describe('the API trace and the support report keep every secret out', () => {
  it('sign-in, refresh, verify, report and sign-out with tracing on', async () => {
    // 1. Sign in with --debug: the trace goes to stderr, one entry per exchange, in order.
    let approved = false;
    const signIn = await run('device-code --debug', [DEVICE_CODE, '--no-browser', '--debug'], env(), (text) => {
      const code = /([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
      if (code && !approved) {
        approved = true;
        void core.approve(code);
      }
    });
    expect(signIn.code, signIn.stderr).toBe(0);
    const signInRequests = requestLines(signIn.stderr);
    const firstIndex = (pattern: RegExp) => signInRequests.findIndex((line) => pattern.test(line));
    const discovery = firstIndex(/^GET \/\.well-known\/\S+ -> 200$/);
    const device = firstIndex(/^POST \S*device\S* -> 200$/);
    const token = firstIndex(/^POST \S*token -> 200$/);
    expect(discovery, signInRequests.join('\n')).toBeGreaterThanOrEqual(0);
    expect(device).toBeGreaterThan(discovery);
    expect(token).toBeGreaterThan(device);
    // The device code and the tokens are in the exchanges, masked: their fields are there, their values are not.
    expect(signIn.stderr).toMatch(/"device_code":"[^"]{4}\*+"/);
    expect(signIn.stderr).toMatch(/"access_token":"[^"]{4}\*+"/);
    expect(signIn.stderr).toMatch(/device_code=[^&\s]{4}\*+/);

    // 2. The session start hook refreshes the short-lived token; the `debug` setting sends its trace to the debug log.
    const set = await run('config set debug api', [CONFIG, 'set', 'debug', 'api'], env());
    expect(set.code, set.stderr).toBe(0);
    const hook = await sessionStart(dir, core.baseUrl, { NO_PROXY: '127.0.0.1,localhost' });
    outputs.push({ what: 'session-start stdout', text: hook.stdout }, { what: 'session-start stderr', text: hook.stderr });
    expect(hook.code).toBe(0);
    const debugLog = join(dir, 'agentstack-debug.log');
    expect(statSync(debugLog).mode & 0o777).toBe(PRIVATE_MODE);
    const hookTrace = readFileSync(debugLog, 'utf8');
    expect(hookTrace).toMatch(/^\[api session-start pid \d+\] \S+ POST \S+ -> 200/m);
    expect(hookTrace).toMatch(/grant_type=refresh_token/);
    expect(hookTrace).toMatch(/refresh_token=[^&\s]{4}\*+/);
    expect(core.counters.refreshGrants).toBeGreaterThanOrEqual(1);

    // 3. verify and the report, with a client secret and a proxy password in the environment.
    const withSecrets = env({ AGENTSTACK_OAUTH_CLIENT_SECRET: CLIENT_SECRET, HTTPS_PROXY: `http://support:${PROXY_PASSWORD}@127.0.0.1:9` });
    const verify = await run('verify --debug', [VERIFY, '--debug'], withSecrets);
    expect(requestLines(verify.stderr).length).toBeGreaterThan(3);
    expect(verify.stderr).toMatch(/> authorization: Bearer \S{4}\*+/);
    const report = await run('diagnose-local --report', [DIAGNOSE, '--report'], withSecrets);
    expect(report.stdout).toMatch(/^# AgentStack plugin support report\n\n> This report contains no secret/);
    for (const heading of ['## Versions', '## Diagnosis', '## Settings in effect', '## Last sign-in', '## API trace (last entries)']) expect(report.stdout).toContain(heading);
    expect(report.stdout).toMatch(/\| Cursor \(last seen by the plugin's hooks\) \| 2\.1\.0 \|/);
    expect(report.stdout).toMatch(/debug\s+api\s+settings/);
    expect(report.stdout).toContain('[api session-start pid');
    expect(report.stdout).toMatch(/PASS\s+online\./);

    // 4. Sign out with the client secret: the revocation request carries it by HTTP Basic (the core's metadata lists
    // client_secret_basic), never in the body, and the trace masks the header.
    const signOut = await run('device-code --logout --debug', [DEVICE_CODE, '--logout', '--debug'], withSecrets);
    expect(signOut.code, signOut.stderr).toBe(0);
    expect(signOut.stderr).toMatch(/^\[api\] \S+ POST \S*revo\S* -> \d{3}/m);
    expect(signOut.stderr).toMatch(/> authorization: Basic \S{4}\*+/);
    expect(signOut.stderr).not.toMatch(/client_secret=/);

    // 5. Every byte written anywhere, against every secret there was.
    for (const name of ['agentstack-debug.log', 'agentstack-debug.log.1', 'agentstack-device.log']) {
      const path = join(dir, name);
      if (existsSync(path)) outputs.push({ what: name, text: readFileSync(path, 'utf8') });
    }
    const secrets = [...core.issuedSecrets(), CLIENT_SECRET, PROXY_PASSWORD];
    expect(core.issuedSecrets().length).toBeGreaterThanOrEqual(4);
    expect(findLeaks(outputs, secrets)).toEqual([]);
  }, 120_000);

  it.skipIf(IS_WINDOWS)('the hook with tracing off writes no debug log; with a FIFO in its place it is refused and the hook still answers', async () => {
    const expiring = async (name: string) => {
      const cursor = join(tmp.path, name);
      mkdirSync(cursor);
      await signInWith(cursor, core.baseUrl, await core.issueTokens({ accessTokenTtl: 30 }));
      return cursor;
    };
    const off = await expiring('off');
    const before = core.counters.refreshGrants;
    const quiet = await sessionStart(off, core.baseUrl, { NO_PROXY: '127.0.0.1,localhost' });
    expect(quiet.code).toBe(0);
    expect(core.counters.refreshGrants).toBeGreaterThan(before);
    expect(existsSync(join(off, 'agentstack-debug.log'))).toBe(false);

    const fifo = await expiring('fifo');
    expect(spawnSync('mkfifo', [join(fifo, 'agentstack-debug.log')]).status).toBe(0);
    // Nobody reads the FIFO: a blocking open would hold the hook until its deadline and the test's.
    const hook = await sessionStart(fifo, core.baseUrl, { NO_PROXY: '127.0.0.1,localhost', AGENTSTACK_DEBUG: 'api' });
    expect(hook.code).toBe(0);
    expect(hook.stderr).toMatch(/session-start: the debug log .*agentstack-debug\.log cannot be written \(ENOTREGULAR\); tracing stopped/);
    expect(String(hook.json.additional_context)).toMatch(/AgentStack/);
    expect(lstatSync(join(fifo, 'agentstack-debug.log')).isFIFO()).toBe(true);
  }, 60_000);
});
