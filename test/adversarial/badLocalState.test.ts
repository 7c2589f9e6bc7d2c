/**
 * Bad local state. Fault: what a person's ~/.cursor may really hold: mcp.json empty, a JSON array, 20 MB, with a BOM,
 * with comments, read-only, a symlink, a folder; lock files and a refresh file full of garbage; pins 1, 0, -5, abc.
 * Outcome (the built scripts, run as Cursor or a person runs them): a clear message naming the file and what to do,
 * and a safe result: a file we cannot understand is left byte for byte, a hook still answers one JSON object.
 */
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { bearerOf } from '../../lib/agentstack/mcpJson/credential.js';
import { CURSOR_FILES } from '../../lib/agentstack/server/paths.js';
import { fileMode } from '../../lib/platform/fs/secureFile.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { copyPlugin, makeReadable } from '../helpers/pluginCopy.js';
import { PRE_MCP_SCRIPT, SESSION_START_SCRIPT, signInWith } from '../helpers/sessionStart.js';
import { IS_WINDOWS, PRIVATE_MODE, baseChildEnv } from '../helpers/platform.js';
import { expectWithinDeadline, scriptStartMs } from '../helpers/deadline.js';
import { SESSION_START_BUDGET_MS } from '../../lib/commands/sessionStart/run.js';

const DIAGNOSE = join(REPO_ROOT, 'scripts/diagnose-local.mjs');
const fixture = useCoreAndCursorDirs('agentstack-badstate-');
const { cursorDir } = fixture;

interface Run { code: number | null; stdout: string; stderr: string; ms: number }
function run(script: string, args: string[], dir: string, opts: { stdin?: string; env?: Record<string, string>; uid?: number } = {}): Promise<Run> {
  const started = Date.now();
  const env = { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: fixture.core.baseUrl, AGENTSTACK_DISABLE_AUTO_LOGIN: '1', ...opts.env };
  const child = spawn(process.execPath, [script, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'], ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.uid } : {}) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  child.stdin.end(opts.stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
}

/** session-start as Cursor runs it: exit 0 and exactly one JSON object; returns its context. */
async function sessionStartContext(dir: string, opts: { uid?: number; script?: string } = {}): Promise<string> {
  const r = await run(opts.script ?? SESSION_START_SCRIPT, ['--from-hook'], dir, { stdin: '{"hook_event_name":"sessionStart"}', ...opts });
  expect(r.code).toBe(0);
  const lines = r.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return String(JSON.parse(lines[0]!).additional_context ?? '');
}

async function diagnoseChecks(dir: string, args: string[] = [], opts: { uid?: number; script?: string } = {}): Promise<Record<string, { status: string; summary: string }>> {
  const r = await run(opts.script ?? DIAGNOSE, ['--json', ...args], dir, opts);
  expect([0, 1]).toContain(r.code);
  const out: Record<string, { status: string; summary: string }> = {};
  for (const c of JSON.parse(r.stdout).checks as Array<{ id: string; status: string; summary: string }>) out[c.id] = c;
  return out;
}

async function deviceCodeError(dir: string): Promise<Record<string, unknown>> {
  const device = runDeviceCode({ baseUrl: fixture.core.baseUrl, cursorDir: dir });
  const done = await device.done;
  expect(done.code).toBe(1);
  expect(device.events).toHaveLength(1);
  return device.events[0]!;
}

async function signInByScript(dir: string): Promise<void> {
  const device = runDeviceCode({ baseUrl: fixture.core.baseUrl, cursorDir: dir });
  const code = await device.waitFor('device_code');
  await fixture.core.approve(String(code.user_code));
  expect((await device.done).code).toBe(0);
}

const FAT = { type: 'streamable-http', url: 'https://agentstack.tech/mcp', tools: { 'agentstack.execute': { enabled: true } }, notes: 'x' };
const OTHER = { github: { command: 'npx', args: ['-y', 'gh-mcp'], env: { TOKEN: '${env:GH}' } } };

describe('mcp.json that cannot be used: left byte for byte, with a message naming it', () => {
  it.each([
    ['a JSON array', '[{"mcpServers": {}}]\n', /must hold a JSON object/],
    ['comments (JSONC)', '{\n  // my servers\n  "mcpServers": {}\n}\n', /is not valid JSON \(line 2, column 3/],
    ['cut short', '{"mcpServers": {"github": {"command": "npx"', /is not valid JSON \(line 1/],
  ])('%s: session-start reports it, device-code stops before any request, diagnose fails the gate', async (_name, text, message) => {
    const dir = cursorDir();
    const path = join(dir, 'mcp.json');
    writeFileSync(path, text, { mode: 0o600 });
    const requests = fixture.core.counters.deviceAuthorizations;
    expect(await sessionStartContext(dir)).toMatch(message);
    const error = await deviceCodeError(dir);
    expect(error).toMatchObject({ event: 'error', error: 'invalid_config' });
    expect(String(error.message)).toMatch(message);
    // The home folder as `~` (HOME is this dir), and the way out: fix the file, no new sign-in.
    expect(String(error.message)).toContain('~/mcp.json');
    expect(String(error.message)).toMatch(/Fix (line \d+, column \d+ of )?~\/mcp\.json/);
    expect((await diagnoseChecks(dir, ['--fix']))['mcp.readable']).toMatchObject({ status: 'FAIL' });
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(fixture.core.counters.deviceAuthorizations).toBe(requests);
  });

  it('a folder named mcp.json: a message naming it as a folder (not a raw EISDIR), nothing written', async () => {
    const dir = cursorDir();
    mkdirSync(join(dir, 'mcp.json'));
    const context = await sessionStartContext(dir);
    expect(context).toContain('mcp.json cannot be read (it is a folder, not a file)');
    const error = await deviceCodeError(dir);
    expect(error).toMatchObject({ error: 'invalid_config' });
    expect(String(error.message)).toContain('cannot be read (it is a folder, not a file)');
    const readable = (await diagnoseChecks(dir))['mcp.readable']!;
    expect(readable.status).toBe('FAIL');
    expect(readable.summary).toContain('cannot be read (it is a folder, not a file)');
    expect(lstatSync(join(dir, 'mcp.json')).isDirectory()).toBe(true);
  });
});

describe('mcp.json that is odd but usable', () => {
  it('empty file: treated as no servers; the hook says "not signed in"; sign-in writes a lean entry', async () => {
    const dir = cursorDir();
    writeFileSync(join(dir, 'mcp.json'), '');
    expect(await sessionStartContext(dir)).toContain('not signed in');
    await signInByScript(dir);
    const config = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8'));
    expect(Object.keys(config.mcpServers)).toEqual(['agentstack']);
    expect(bearerOf(config)).toBeTruthy();
    expect(fileMode(join(dir, 'mcp.json'))).toBe(PRIVATE_MODE);
  });

  it('a BOM: read, normalized, other servers kept exactly (the BOM is not written back)', async () => {
    const dir = cursorDir();
    writeFileSync(join(dir, 'mcp.json'), `\uFEFF${JSON.stringify({ mcpServers: { ...OTHER, agentstack: FAT } })}`);
    expect(await sessionStartContext(dir)).toContain('Cleaned up the agentstack entry');
    const text = readFileSync(join(dir, 'mcp.json'), 'utf8');
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    const config = JSON.parse(text);
    expect(config.mcpServers.github).toEqual(OTHER.github);
    expect(config.mcpServers.agentstack).toEqual({ type: 'streamable-http', url: `${fixture.core.baseUrl}/mcp` });
  });

  it('20 MB (a huge other server): read and normalized within the hook budget, the other server kept byte for byte', async () => {
    const dir = cursorDir();
    const big = { command: 'node', args: ['x'], env: { BLOB: 'x'.repeat(20 * 1024 * 1024) } };
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { big, agentstack: FAT } }));
    const started = Date.now();
    expect(await sessionStartContext(dir)).toContain('Cleaned up the agentstack entry');
    const sessionMs = Date.now() - started;
    const config = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8'));
    expect(config.mcpServers.big.env.BLOB.length).toBe(20 * 1024 * 1024);
    expect(config.mcpServers.agentstack.tools).toBeUndefined();
    // the pre-MCP hook reads mcp.json on every execute call: it must still answer inside its 5 s timeout
    const [pre, preStartMs, sessionStartMs] = await Promise.all([
      run(PRE_MCP_SCRIPT, [], dir, { stdin: JSON.stringify({ tool_name: 'agentstack.execute', tool_input: '{"steps":[{"id":"1","action":"system.ping"}]}', url: 'https://agentstack.tech/mcp' }) }),
      scriptStartMs(PRE_MCP_SCRIPT),
      scriptStartMs(SESSION_START_SCRIPT),
    ]);
    expect(pre.code).toBe(0);
    // Cursor's own timeouts (5 s for the pre-MCP hook, session start's budget inside its 20 s), beside what starting
    // each script costs here now.
    expectWithinDeadline(pre.ms, { deadlineMs: 5_000, baselineMs: preStartMs, what: 'the pre-MCP hook with a 20 MB mcp.json' });
    expectWithinDeadline(sessionMs, { deadlineMs: SESSION_START_BUDGET_MS, baselineMs: sessionStartMs, what: 'session-start with a 20 MB mcp.json' });
    console.info(`[badLocalState] 20 MB mcp.json: session-start ${sessionMs} ms, pre-MCP hook ${pre.ms} ms`);
  });

  it.skipIf(IS_WINDOWS)('a symlink to a file elsewhere: never written through; the link is replaced by a regular 0600 file, and the card says so', async () => {
    const dir = cursorDir();
    const target = join(fixture.tmp.path, `target-${basename(dir)}.json`);
    const original = JSON.stringify({ mcpServers: { ...OTHER, agentstack: FAT } });
    writeFileSync(target, original);
    symlinkSync(target, join(dir, 'mcp.json'));
    const context = await sessionStartContext(dir);
    expect(context).toContain('Cleaned up the agentstack entry');
    expect(context).toContain(`was a symlink to ${target}; it is now a regular file`);
    expect(readFileSync(target, 'utf8')).toBe(original);
    expect(lstatSync(join(dir, 'mcp.json')).isFile()).toBe(true);
    expect(fileMode(join(dir, 'mcp.json'))).toBe(PRIVATE_MODE);
    expect(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')).mcpServers.github).toEqual(OTHER.github);
  });

  it.skipIf(IS_WINDOWS)('read-only (file 0400 in a folder 0500, as an ordinary user): the hook answers, the file is left as it was', async () => {
    const dir = cursorDir();
    const text = JSON.stringify({ mcpServers: { ...OTHER, agentstack: FAT } });
    writeFileSync(join(dir, 'mcp.json'), text, { mode: 0o400 });
    // root ignores permissions: run the scripts as `nobody` so read-only means read-only
    const uid = process.getuid?.() === 0 ? 65534 : undefined;
    // `nobody` may not be able to enter the checkout (under a 0700 folder, as `mktemp -d` makes): it runs a copy of
    // the plugin in the (readable) test folder instead.
    let scripts = { sessionStart: SESSION_START_SCRIPT, diagnose: DIAGNOSE };
    if (uid !== undefined) {
      chownSync(dir, uid, uid);
      chownSync(join(dir, 'mcp.json'), uid, uid);
      chmodSync(fixture.tmp.path, 0o755);
      const plugin = join(fixture.tmp.path, 'plugin-for-nobody');
      mkdirSync(plugin);
      copyPlugin(plugin);
      makeReadable(plugin);
      scripts = { sessionStart: join(plugin, 'hooks/scripts/session-start.cjs'), diagnose: join(plugin, 'scripts/diagnose-local.mjs') };
    }
    chmodSync(dir, 0o500);
    try {
      const context = await sessionStartContext(dir, { uid, script: scripts.sessionStart });
      expect(context).toContain('permission denied');
      expect(context).toContain('~/mcp.json');
      expect(context).toContain('Cannot create the lock file');
      const checks = await diagnoseChecks(dir, [], { uid, script: scripts.diagnose });
      expect(checks['mcp.readable']?.status).toBe('PASS');
      expect(checks['mcp.no-tools']?.status).toBe('FAIL');
      // --fix cannot repair a read-only folder: it says so in a line and still reports every gate
      const fixed = await run(scripts.diagnose, ['--fix'], dir, { uid });
      expect(fixed.code).toBe(1);
      expect(fixed.stdout).toMatch(/could not normalize .*mcp\.json: Cannot create the lock file .* \(permission denied\)/);
      expect(fixed.stderr).not.toMatch(/at .*\.mjs:\d+/);
      expect(readFileSync(join(dir, 'mcp.json'), 'utf8')).toBe(text);
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe('garbage in the plugin\'s own files', () => {
  it('device lock and mcp.json lock full of garbage: treated as stale and replaced; sign-in completes', async () => {
    const dir = cursorDir();
    writeFileSync(join(dir, 'agentstack-device.lock'), '\u0000\u0001garbage{');
    writeFileSync(join(dir, CURSOR_FILES.mcpJsonLock), 'zzz');
    expect((await diagnoseChecks(dir))['device.lock']?.summary).toMatch(/malformed/);
    await signInByScript(dir);
    expect(bearerOf(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')))).toBeTruthy();
  });

  it('refresh file with garbage and an expiring token: no refresh request, a message to sign in again, mcp.json intact', async () => {
    const dir = cursorDir();
    const tokens = await fixture.core.issueTokens({ accessTokenTtl: 30 });
    await signInWith(dir, fixture.core.baseUrl, { ...tokens, refresh_token: undefined });
    writeFileSync(join(dir, 'agentstack-refresh'), '{not json', { mode: 0o600 });
    const before = readFileSync(join(dir, 'mcp.json'), 'utf8');
    const grants = fixture.core.counters.refreshGrants;
    const context = await sessionStartContext(dir);
    expect(context).toContain('agentstack-refresh is not valid JSON; sign in again');
    expect(fixture.core.counters.refreshGrants).toBe(grants);
    expect(bearerOf(JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')))).toBe(bearerOf(JSON.parse(before)));
    expect((await diagnoseChecks(dir))['refresh.file']).toMatchObject({ status: 'FAIL' });
  });

  it.each(['1', '0', '-5', 'abc'])('project pin file %j: device-code signs in without X-Project-ID and says the pin was ignored and how to fix it; diagnose fails the pin gate with that fix', async (pin) => {
    const dir = cursorDir();
    writeFileSync(join(dir, 'agentstack-project'), `${pin}\n`);
    const device = runDeviceCode({ baseUrl: fixture.core.baseUrl, cursorDir: dir });
    const code = await device.waitFor('device_code');
    await fixture.core.approve(String(code.user_code));
    const done = await device.done;
    expect(done.code).toBe(0);
    expect(device.events.at(-1)).toMatchObject({ event: 'authorized', project_id: null });
    expect(done.stderr).toContain(`holds "${pin}"`);
    expect(done.stderr).toContain('it was ignored and the sign-in goes on without a project pin');
    expect(done.stderr).toMatch(/config\.mjs set project ID`, or remove it with `config unset project/);
    const headers = JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')).mcpServers.agentstack.headers as Record<string, string>;
    expect(Object.keys(headers).map((h) => h.toLowerCase())).not.toContain('x-project-id');
    expect(readFileSync(join(dir, 'agentstack-project'), 'utf8')).toBe(`${pin}\n`);
    const gate = (await diagnoseChecks(dir))['project.pin'] as { status: string; fix?: string };
    expect(gate).toMatchObject({ status: 'FAIL', fix: expect.stringContaining('config.mjs set project ID') });
    expect(gate.fix).toContain('config unset project');
    // The environment variable is an explicit request: a bad one still stops the sign-in before any request.
    const requests = fixture.core.counters.deviceAuthorizations;
    const viaEnv = runDeviceCode({ baseUrl: fixture.core.baseUrl, cursorDir: cursorDir(), env: { AGENTSTACK_PROJECT_ID: pin } });
    expect((await viaEnv.done).code).toBe(1);
    expect(viaEnv.events[0]).toMatchObject({ error: 'invalid_config' });
    expect(String(viaEnv.events[0]!.message)).toContain(`must be a project id, an integer greater than 1 (got "${pin}")`);
    expect(fixture.core.counters.deviceAuthorizations).toBe(requests);
  });
});
