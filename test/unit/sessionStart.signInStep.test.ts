/**
 * Session start's sign-in step, run in this process against the reference core on 127.0.0.1: when the credential is
 * unusable it starts a device flow in the background (or joins the running one), or only says what to do. The
 * poller it hands the flow to is a small script of this test's own that records what it was handed and waits, so
 * the test can read the handoff; the real poller is tested with the built hook (integration/session-start.signin).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { signInWith, stopBackgroundSignIn } from '../helpers/sessionStart.js';
import { startSession, todoOf } from '../helpers/sessionStartInProcess.js';

const fx = useCoreAndCursorDirs('agentstack-ss-signin-');
const used: string[] = [];
afterEach(() => {
  for (const dir of used.splice(0)) stopBackgroundSignIn(dir);
});

const devices = () => fx.core.counters.deviceAuthorizations;
const line = (card: string, start: string) => card.split('\n').find((l) => l.startsWith(start));

/** A Cursor dir whose mcp.json holds a placeholder Bearer (a credential that cannot work), and a poller script. */
function placeholderDir(): { dir: string; script: string } {
  const dir = fx.cursorDir();
  used.push(dir);
  writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: `${fx.core.baseUrl}/mcp`, headers: { Authorization: 'Bearer ${env:AGENTSTACK_ACCESS_TOKEN}' } } } }));
  const script = join(dir, 'poller.cjs');
  writeFileSync(script, [
    "let text = '';",
    "process.stdin.setEncoding('utf8').on('data', (d) => { text += d; }).on('end', () => {",
    // Written whole, then renamed into place: the test waits for the file to exist, never for a half-written one.
    `  require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'handoff.json.tmp'))}, text);`,
    `  require('node:fs').renameSync(${JSON.stringify(join(dir, 'handoff.json.tmp'))}, ${JSON.stringify(join(dir, 'handoff.json'))});`,
    '  setTimeout(() => {}, 120000);',
    '});',
  ].join('\n'));
  return { dir, script };
}
const handoff = (dir: string) => JSON.parse(readFileSync(join(dir, 'handoff.json'), 'utf8')) as { projectId: number | null; baseUrl: string };

async function waitFor(check: () => boolean): Promise<void> {
  const end = Date.now() + 15_000;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const SIGN_IN_LINE = /^- A sign-in is waiting for your approval: open (\S+) and enter the code (\S+) \(until (\S+)\); Cursor picks up the new token by itself\. Progress is logged in (.+)\.$/;

describe('session start in process: the sign-in step', () => {
  it('a placeholder: starts one device flow, shows its link and code; the next start joins it', async () => {
    const { dir, script } = placeholderDir();
    const before = devices();
    const run = await startSession(dir, fx.core.baseUrl, { script });
    expect(devices()).toBe(before + 1);
    const todo = todoOf(run.card);
    expect(todo).toHaveLength(1);
    const [, url, code, until, log] = SIGN_IN_LINE.exec(todo[0]!)!;
    expect(url).toContain(`${fx.core.baseUrl}/activate`);
    expect(Date.parse(until!)).toBeGreaterThan(Date.now());
    expect(log).toBe(join(dir, 'agentstack-device.log'));
    await waitFor(() => existsSync(join(dir, 'handoff.json')));
    expect(handoff(dir)).toMatchObject({ projectId: null, baseUrl: fx.core.baseUrl });

    const again = await startSession(dir, fx.core.baseUrl, { script });
    expect(devices()).toBe(before + 1);
    expect(todoOf(again.card)).toEqual(todo);
    expect(code).toMatch(/\S/);
  });

  it('joining a running sign-in needs no network steps: with them unavailable the card still shows its code, and only that', async () => {
    const { dir, script } = placeholderDir();
    const first = await startSession(dir, fx.core.baseUrl, { script });
    const again = await startSession(dir, fx.core.baseUrl, { script, loadNet: () => Promise.reject(new Error('chunk missing')) });
    expect(todoOf(again.card)).toEqual(todoOf(first.card));
    expect(again.card).not.toContain('network steps could not start');
  });

  it('keeps the project pin for the new sign-in; a pin file that holds no pin is said and left out', async () => {
    const pinned = placeholderDir();
    writeFileSync(join(pinned.dir, 'agentstack-project'), '42\n');
    await startSession(pinned.dir, fx.core.baseUrl, { script: pinned.script });
    await waitFor(() => existsSync(join(pinned.dir, 'handoff.json')));
    expect(handoff(pinned.dir).projectId).toBe(42);

    const broken = placeholderDir();
    writeFileSync(join(broken.dir, 'agentstack-project'), 'abc\n');
    const run = await startSession(broken.dir, fx.core.baseUrl, { script: broken.script });
    const todo = todoOf(run.card);
    expect(todo[0]).toMatch(/^- The project pin .* holds "abc", not an integer greater than 1 .*; it was ignored and the sign-in goes on without a project pin/);
    expect(todo[1]).toMatch(SIGN_IN_LINE);
    await waitFor(() => existsSync(join(broken.dir, 'handoff.json')));
    expect(handoff(broken.dir).projectId).toBeNull();
  });

  it('a bad AGENTSTACK_PROJECT_ID: no device flow, the card says why', async () => {
    const { dir, script } = placeholderDir();
    const before = devices();
    const run = await startSession(dir, fx.core.baseUrl, { script, extraEnv: { AGENTSTACK_PROJECT_ID: 'abc' } });
    expect(devices()).toBe(before);
    expect(todoOf(run.card)).toEqual([expect.stringMatching(/^- Automatic sign-in could not start: .*AGENTSTACK_PROJECT_ID.*\. Sign in with \/agentstack\-authorize\ \(or\ node\ \~\/\.cursor\/plugins\/local\/agentstack\/hooks\/scripts\/device\-code\.mjs\)\.$/)]);
  });

  it('the device endpoint fails: the card points at /agentstack-authorize and no flow is left running', async () => {
    const { dir, script } = placeholderDir();
    fx.core.setFaults({ endpointFaults: { device: { kind: '5xx' } } });
    try {
      const run = await startSession(dir, fx.core.baseUrl, { script });
      expect(todoOf(run.card)).toEqual([expect.stringMatching(/^- Automatic sign-in could not start: .+\. Sign in with \/agentstack\-authorize\ \(or\ node\ \~\/\.cursor\/plugins\/local\/agentstack\/hooks\/scripts\/device\-code\.mjs\)\.$/)]);
      expect(existsSync(join(dir, 'agentstack-device.lock'))).toBe(false);
    } finally {
      fx.core.setFaults({ endpointFaults: {} });
    }
  });

  it('the network steps cannot load: the sign-in could not start, said once', async () => {
    const { dir, script } = placeholderDir();
    const before = devices();
    const run = await startSession(dir, fx.core.baseUrl, { script, loadNet: () => Promise.reject(new Error('chunk missing')) });
    expect(devices()).toBe(before);
    expect(todoOf(run.card)).toEqual(['- Automatic sign-in could not start: the network steps could not start. Sign in with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).']);
  });
});

describe('session start in process: when no sign-in starts by itself', () => {
  it('automatic sign-in off by the environment or by the settings: each named on the card', async () => {
    const byEnv = placeholderDir();
    const before = devices();
    const run = await startSession(byEnv.dir, fx.core.baseUrl, { script: byEnv.script, extraEnv: { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' } });
    expect(todoOf(run.card)).toEqual(['- Automatic sign-in is off: AGENTSTACK_DISABLE_AUTO_LOGIN=1. Sign in again with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).']);
    const bySettings = placeholderDir();
    writeFileSync(join(bySettings.dir, 'agentstack-settings.json'), JSON.stringify({ 'auto-login': false }));
    const off = await startSession(bySettings.dir, fx.core.baseUrl, { script: bySettings.script });
    expect(todoOf(off.card)).toEqual(['- Automatic sign-in is off: auto-login is false in the settings. Sign in again with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).']);
    expect(devices()).toBe(before);
    expect(existsSync(join(bySettings.dir, 'agentstack-device.lock'))).toBe(false);
  });

  it('never signed in: only the way to connect; signed out on purpose: says so, and neither starts a flow', async () => {
    const before = devices();
    const unsigned = fx.cursorDir();
    const run = await startSession(unsigned, fx.core.baseUrl);
    expect(line(run.card, '- Account:')).toBe('- Account: not signed in');
    expect(todoOf(run.card)).toEqual(['- Sign in with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).']);

    const { dir, script } = placeholderDir();
    writeFileSync(join(dir, 'agentstack-signed-out'), JSON.stringify({ signed_out_at: new Date().toISOString(), server_url: `${fx.core.baseUrl}/mcp` }));
    const out = await startSession(dir, fx.core.baseUrl, { script });
    expect(line(out.card, '- Account:')).toBe('- Account: signed out');
    expect(todoOf(out.card)).toEqual(['- Sign in again with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs) when you want AgentStack back.']);
    expect(devices()).toBe(before);
  });

  it('signed in: no flow is started or joined, even with one running', async () => {
    const { dir, script } = placeholderDir();
    await startSession(dir, fx.core.baseUrl, { script });
    await signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens());
    const before = devices();
    const run = await startSession(dir, fx.core.baseUrl, { script });
    expect(devices()).toBe(before);
    expect(run.card).not.toContain('Action needed');
    expect(line(run.card, '- Account:')).toBe('- Account: signed in as dev@agentstack.test');
  });

  it('a bad AGENTSTACK_BASE_URL with an unusable credential: fix that first, nothing is sent', async () => {
    const { dir, script } = placeholderDir();
    const before = devices();
    const run = await startSession(dir, 'ftp://agentstack.example', { script });
    expect(devices()).toBe(before);
    expect(todoOf(run.card)[1]).toBe('- Fix the problem above first. Sign in again with /agentstack-authorize (or node ~/.cursor/plugins/local/agentstack/hooks/scripts/device-code.mjs).');
  });
});
