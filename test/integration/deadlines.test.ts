/**
 * Every request ends at its deadline, on this Node and on the other engines, even when the caller passes its own
 * Ctrl-C signal and the collector runs often (Node 20 could collect a timeout signal combined with another one, and
 * the request then never ended). And a sign-in whose last steps stall, or are cancelled, says what the disk holds.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module shared with the bench
import { engines } from '../../bench/engines.mjs';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { DEVICE_CODE_SCRIPT, runDeviceCode } from '../helpers/deviceCode.js';
import { expectWithinDeadline, scriptStartMs } from '../helpers/deadline.js';
import { DEFAULT_TIMEOUT_MS } from '../../lib/platform/net/http.js';
import { baseChildEnv, IS_WINDOWS } from '../helpers/platform.js';
import { REPO_ROOT } from '../helpers/repo.js';

type Engine = { version: string; path: string | null };
const all: Engine[] = [{ version: `${process.versions.node} (this one)`, path: process.execPath }, ...(engines as () => Engine[])()];

function runNode(node: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(node, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
  child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(killer); resolve({ code, stdout, stderr, ms: Date.now() - started }); }));
}

describe.each(all)('Node $version: a request with a caller signal, the collector running every 20 ms', (engine) => {
  it('httpRequest and boundedFetch both end with `timeout` at their deadline', async (ctx) => {
    if (!engine.path) ctx.skip(`Node ${engine.version} is not in .node-cache (node bench/engines.mjs install)`);
    const r = await runNode(engine.path!, ['--expose-gc', '--import', 'tsx', 'test/fixtures/deadlineUnderGc.ts'], { ...baseChildEnv(), NO_PROXY: '*' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ gc: true, httpRequest: 'timeout', boundedFetch: 'timeout' });
  }, 60_000);
});

describe('device-code against a server that accepts connections and never answers', () => {
  let silent: Server;
  let base = '';
  const held: Socket[] = [];
  const fixture = useCoreAndCursorDirs('agentstack-deadline-');
  beforeAll(async () => {
    silent = createServer((socket) => { held.push(socket); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => { for (const socket of held) socket.destroy(); silent.close(() => resolve()); }));

  it('fails with the discovery deadline, naming the URL, long before a second deadline (collector forced often)', async () => {
    const run = runDeviceCode({ baseUrl: base, cursorDir: fixture.cursorDir(), nodeArgs: ['--gc-interval=500'] });
    const [done, startMs] = await Promise.all([run.done, scriptStartMs(DEVICE_CODE_SCRIPT)]);
    expect(done.code).toBe(1);
    const last = JSON.parse(done.stdout.trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ event: 'error', error: 'network' });
    expect(last.message).toContain(`No answer from ${base}/`);
    // One discovery deadline is 10 s; four tries in a row (or a deadline that never fires) take far longer.
    expectWithinDeadline(done.ms, { deadlineMs: DEFAULT_TIMEOUT_MS, baselineMs: startMs, what: 'device-code against a silent server' });
  }, 120_000);
});

describe('a sign-in whose identity lookup hangs (`me` never answers)', () => {
  const fixture = useCoreAndCursorDirs('agentstack-mehang-');

  it('still ends: signed in, with a warning, and the files say so (collector forced often)', async () => {
    fixture.core.setFaults({ endpointFaults: { me: { kind: 'hang' } } });
    const dir = fixture.cursorDir();
    const run = runDeviceCode({ baseUrl: fixture.core.baseUrl, cursorDir: dir, nodeArgs: ['--gc-interval=500'] });
    const code = await run.waitFor('device_code');
    await fixture.core.approve(String(code.user_code));
    const done = await run.done;
    expect(done.code).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ event: 'authorized' });
    expect(done.stderr).toMatch(/Approved\. Saving the sign-in/);
    expect(done.stderr).toMatch(/warning: Looking up who signed in: No answer from .*\/api\/auth\/me within 5 s/);
    expect(readFileSync(join(dir, 'mcp.json'), 'utf8')).toMatch(/Bearer /);
  }, 120_000);

  it.skipIf(IS_WINDOWS)('Ctrl-C once the credential is written reports signed in (exit 0), not "nothing was changed"', async () => {
    fixture.core.setFaults({ endpointFaults: { me: { kind: 'hang' } } });
    const dir = fixture.cursorDir();
    const run = runDeviceCode({ baseUrl: fixture.core.baseUrl, cursorDir: dir });
    const code = await run.waitFor('device_code');
    await fixture.core.approve(String(code.user_code));
    const mcpJson = join(dir, 'mcp.json');
    for (let i = 0; i < 300 && !(existsSync(mcpJson) && readFileSync(mcpJson, 'utf8').includes('Bearer ')); i++) await new Promise((r) => setTimeout(r, 50));
    run.child.kill('SIGINT');
    const done = await run.done;
    expect(done.stdout).not.toMatch(/nothing was changed/);
    expect(run.events.at(-1)).toMatchObject({ event: 'authorized' });
    expect(done.code).toBe(0);
    expect(done.stderr).toMatch(/skipped, the sign-in was cancelled after it was saved/);
  }, 120_000);
});
