/**
 * What a person at a terminal sees while slow steps run, and what a program never sees: verify against a server
 * that accepts connections and never answers ends after one deadline (its later requests are not sent) with
 * progress notes on a terminal and none under --json; the audit says before it rebuilds. A terminal is a real
 * pseudo-terminal (util-linux `script`), so the scripts' own isTTY test decides.
 */
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { baseChildEnv, IS_WINDOWS } from '../helpers/platform.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { expectWithinDeadline, scriptStartMs } from '../helpers/deadline.js';
import { DEFAULT_TIMEOUT_MS } from '../../lib/platform/net/http.js';

const VERIFY = join(REPO_ROOT, 'scripts/verify-mcp-surface-e2e.mjs');
const AUDIT = join(REPO_ROOT, 'scripts/audit-cursor-plugin.mjs');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function run(args: string[], env: NodeJS.ProcessEnv, options: { tty: boolean }): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  const node = [process.execPath, ...args].map(quote).join(' ');
  const child = options.tty
    ? spawn('script', ['-qec', node, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
  child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(killer); resolve({ code, stdout, stderr, ms: Date.now() - started }); }));
}

/** A server that accepts connections and never answers, with the request lines it received. */
async function startSilent(): Promise<{ base: string; requestLines: string[]; close(): Promise<void> }> {
  const held: Socket[] = [];
  const requestLines: string[] = [];
  const server: Server = createServer((socket) => {
    held.push(socket);
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      for (const line of chunk.split('\r\n')) if (/^[A-Z]+ \/\S* HTTP\/1\.1$/.test(line)) requestLines.push(line);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, requestLines, close: () => new Promise<void>((resolve) => { for (const socket of held) socket.destroy(); server.close(() => resolve()); }) };
}

// Each test has its own silent server: the two 10 s deadlines (and the audit's rebuilds) run side by side.
describe.concurrent('verify-mcp-surface-e2e against a server that accepts connections and never answers', () => {
  const fixture = useCoreAndCursorDirs('agentstack-silent-verify-');
  const env = () => { const dir = fixture.cursorDir(); return { ...baseChildEnv(), HOME: dir, AGENTSTACK_CURSOR_DIR: dir, NO_PROXY: '*' }; };

  it('--json: one document after one 10 s deadline, the later requests not sent, no progress note', async ({ onTestFinished }) => {
    const silent = await startSilent();
    onTestFinished(() => silent.close());
    const base = silent.base;
    const [r, startMs] = await Promise.all([run([VERIFY, '--base-url', base, '--json'], env(), { tty: false }), scriptStartMs(VERIFY)]);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    const byId = Object.fromEntries((doc.checks as Array<{ id: string; status: string; summary: string }>).map((c) => [c.id, c]));
    expect(byId['mcp.initialize']).toMatchObject({ status: 'FAIL', summary: `No answer from ${base}/mcp within 10 s` });
    for (const id of ['rest.health', 'rest.icon', 'oauth.protected_resource', 'oauth.www_authenticate']) {
      expect(byId[id]!.summary).toContain(`Not asked: ${base} gave no answer to an earlier request within 10 s`);
    }
    expect(byId['oauth.connect_antipattern']).toMatchObject({ status: 'WARN', summary: expect.stringMatching(/^not checked/) });
    expect(r.stderr).toBe('');
    // One deadline, not the six in a row it used to wait (62 s): only the initialize request was sent.
    expectWithinDeadline(r.ms, { deadlineMs: DEFAULT_TIMEOUT_MS, baselineMs: startMs, what: 'verify against a silent server' });
    expect(silent.requestLines).toEqual(['POST /mcp HTTP/1.1']);
  }, 60_000);

  it.skipIf(IS_WINDOWS)('on a terminal: a note as each stage starts and one while it waits, before the table', async ({ onTestFinished }) => {
    const silent = await startSilent();
    onTestFinished(() => silent.close());
    const base = silent.base;
    const r = await run([VERIFY, '--base-url', base], env(), { tty: true });
    expect(r.code).toBe(1);
    const out = r.stdout.replace(/\r\n/g, '\n');
    const notes = [
      `Checking the MCP endpoint ${base}/mcp…`,
      `Still waiting for ${base} (each request gives up after 10 s)…`,
      `Checking the REST endpoints and OAuth discovery of ${base}…`,
    ];
    let at = -1;
    for (const note of notes) {
      const next = out.indexOf(note);
      expect(next, note).toBeGreaterThan(at);
      at = next;
    }
    expect(out.indexOf(`AgentStack MCP surface: ${base}`)).toBeGreaterThan(at);
    expect(out.match(/Still waiting/g)).toHaveLength(1);
  }, 60_000);
});

describe.concurrent('audit-cursor-plugin rebuilding this repository', () => {
  it.skipIf(IS_WINDOWS)('says it is rebuilding on a terminal, and never under --json', async () => {
    const env = { ...baseChildEnv(), HOME: REPO_ROOT };
    const tty = await run([AUDIT], env, { tty: true });
    expect(tty.stdout).toContain(`Rebuilding the bundles of ${REPO_ROOT} to compare them with the committed ones…`);
    const json = await run([AUDIT, '--json'], env, { tty: false });
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout).checks.find((c: { id: string }) => c.id === 'bundles.fresh')).toMatchObject({ summary: 'every bundle is byte-identical to a fresh build' });
    const quiet = await run([AUDIT, '--no-rebuild'], env, { tty: true });
    expect(quiet.stdout).not.toContain('Rebuilding');
  }, 120_000);
});
