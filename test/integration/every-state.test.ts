/**
 * Every state, one story: for each account state a person can be in (never signed in, signed in, expiring, expired
 * and renewable, expired with nothing to renew, refused, a sign-in waiting for approval, server down, signed out, a
 * pinned project, a pin set before sign-in, mcp.json unparsable, mcp.json missing), every view — `--status` (text and
 * JSON), diagnose-local (text and JSON), the session card, `--logout`, `config get project` — says the same state
 * word, the same facts (expiry, project), never "valid until" a past time, writes the home folder as `~`, never
 * counts a state the person chose as a FAIL, and names the one next step of the model's story. Then that next step
 * is run in that state, against the reference core, and must do what the views promised.
 *
 * The views run in this process (they are functions of the Cursor dir); only device-code, whose output is the
 * view, is spawned. One core for the file.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { signInWith } from '../helpers/sessionStart.js';
import { startSession } from '../helpers/sessionStartInProcess.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { jwt } from '../helpers/stateFixtures.js';
import { startCore } from '../../core/index.js';
import { REPO_ROOT } from '../helpers/repo.js';
import { runStatus } from '../../lib/commands/deviceCode/status.js';
import { runLogout } from '../../lib/commands/deviceCode/logout.js';
import { diagnose } from '../../lib/commands/diagnose/run.js';
import { runConfig } from '../../lib/commands/config/run.js';
import { renderTable } from '../../lib/platform/report.js';
import { ACCOUNT_WORDS, type AccountState } from '../../lib/agentstack/state/account.js';
import { RENEWAL_STEP, SIGN_IN_COMMAND } from '../../lib/agentstack/state/story.js';

const fx = useCoreAndCursorDirs('agentstack-every-state-');
const nowS = () => Math.floor(Date.now() / 1000);

/** What a sign-in's next step promises: running device-code signs in (the core approves the code it prints). */
type Promise_ = 'sign_in' | 'renewal' | 'fix_mcp_json' | 'approve_waiting' | 'nothing';

interface Case {
  name: string;
  state: AccountState;
  /** A state the person chose: diagnose has no FAIL row. */
  chosen: boolean;
  project: string;
  promise: Promise_;
  /** The server the views are pointed at (the core, or a closed port). */
  server?: () => string;
  make(dir: string): Promise<void>;
}

const signedIn = async (dir: string, ttl = 3600) => signInWith(dir, fx.core.baseUrl, await fx.core.issueTokens({ accessTokenTtl: ttl, refreshedAccessTokenTtl: 3600 }));
/** Replaces the Bearer with a token of the same subject the core did not sign: expired an hour ago, or (refused) not yet. */
function expireBearer(dir: string, exp = nowS() - 3600): void {
  const path = join(dir, 'mcp.json');
  const config = JSON.parse(readFileSync(path, 'utf8'));
  config.mcpServers.agentstack.headers.Authorization = `Bearer ${jwt({ sub: 'dev', iat: Math.min(exp, nowS()) - 60, exp, scope: 'actions:read' })}`;
  writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
}
const write = (dir: string, name: string, text: string) => writeFileSync(join(dir, name), text, { mode: 0o600 });
const DEFAULT = "your account's default";
let serverDown = '';

const CASES: Case[] = [
  { name: 'never signed in', state: 'never_signed_in', chosen: true, project: DEFAULT, promise: 'sign_in', make: async () => {} },
  { name: 'signed in', state: 'signed_in', chosen: false, project: DEFAULT, promise: 'nothing', make: (d) => signedIn(d) },
  { name: 'expiring', state: 'expiring', chosen: false, project: DEFAULT, promise: 'renewal', make: (d) => signedIn(d, 60) },
  { name: 'expired and renewable', state: 'expired_renewable', chosen: false, project: DEFAULT, promise: 'renewal', make: async (d) => { await signedIn(d); expireBearer(d); } },
  {
    name: 'expired with nothing to renew', state: 'expired', chosen: false, project: DEFAULT, promise: 'sign_in',
    make: async (d) => { await signedIn(d); expireBearer(d); rmSync(join(d, 'agentstack-refresh')); },
  },
  {
    // Nothing to renew it: with a refresh token, session start renews a refused token (it counts as expired).
    name: 'refused by the server', state: 'refused', chosen: false, project: DEFAULT, promise: 'sign_in',
    make: async (d) => {
      await signedIn(d);
      expireBearer(d, nowS() + 3600);
      rmSync(join(d, 'agentstack-refresh'));
      write(d, 'agentstack-capabilities-failed.json', JSON.stringify({ at: new Date(Date.now() + 1000).toISOString(), server_url: `${fx.core.baseUrl}/mcp`, message: 'HTTP 401', unauthorized: true }));
    },
  },
  { name: 'sign-in waiting for approval', state: 'never_signed_in', chosen: true, project: DEFAULT, promise: 'approve_waiting', make: async () => {} },
  {
    name: 'server down', state: 'signed_in', chosen: false, project: DEFAULT, promise: 'nothing', server: () => serverDown,
    make: async (d) => {
      // Signed in to a second core that is then stopped: the files are a signed-in machine's, the server is gone.
      const gone = await startCore({ port: 0 });
      await signInWith(d, gone.baseUrl, await gone.issueTokens());
      serverDown = gone.baseUrl;
      await gone.close();
    },
  },
  {
    name: 'signed out', state: 'signed_out', chosen: true, project: DEFAULT, promise: 'sign_in',
    make: async (d) => { await signedIn(d); expect(await logout(d)).toMatchObject({ code: 0 }); },
  },
  {
    name: 'project pinned', state: 'signed_in', chosen: false, project: '42 (pinned)', promise: 'nothing',
    make: async (d) => {
      await signedIn(d);
      const path = join(d, 'mcp.json');
      const config = JSON.parse(readFileSync(path, 'utf8'));
      config.mcpServers.agentstack.headers['X-Project-ID'] = '42';
      writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
      write(d, 'agentstack-project', '42\n');
    },
  },
  { name: 'pin set before sign-in', state: 'never_signed_in', chosen: true, project: `${DEFAULT}; 42 is pinned for your next sign-in`, promise: 'sign_in', make: async (d) => write(d, 'agentstack-project', '42\n') },
  {
    name: 'mcp.json unparsable', state: 'unreadable', chosen: false, project: DEFAULT, promise: 'fix_mcp_json',
    make: async (d) => {
      await signedIn(d);
      copyFileSync(join(d, 'mcp.json'), join(d, 'mcp.json.good'));
      write(d, 'mcp.json', `${readFileSync(join(d, 'mcp.json'), 'utf8').slice(0, -1)},\n`);
    },
  },
  { name: 'mcp.json missing', state: 'never_signed_in', chosen: true, project: DEFAULT, promise: 'sign_in', make: async (d) => { await signedIn(d); rmSync(join(d, 'mcp.json')); } },
];

const envOf = (dir: string, server: string): NodeJS.ProcessEnv => ({ HOME: dir, AGENTSTACK_CURSOR_DIR: dir, AGENTSTACK_BASE_URL: server, AGENTSTACK_DISABLE_AUTO_LOGIN: '1', PATH: process.env.PATH });

/** `fn` with HOME at `dir`, as a person's shell has it: `~` in text means this folder. */
async function withHome<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const home = process.env.HOME;
  process.env.HOME = dir;
  try { return await fn(); } finally { process.env.HOME = home; }
}

async function status(dir: string, server: string, extra: { json?: boolean; online?: boolean } = {}): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await withHome(dir, () => runStatus({ env: envOf(dir, server), json: extra.json === true, online: extra.online === true, streams: { stdout: { write: (t: string) => (out += t) } } }));
  return { code, out };
}

async function logout(dir: string, server = fx.core.baseUrl): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = { write: (t: string) => ((out += t), true) } as unknown as NodeJS.WriteStream;
  const code = await withHome(dir, () => runLogout({ json: false, env: envOf(dir, server), streams: { stdout: sink, stderr: sink } }));
  return { code, out };
}

/** A copy of `dir` (the views of one state each get their own, so none changes what another sees). */
function copyOf(dir: string): string {
  const copy = fx.cursorDir();
  for (const name of readdirSync(dir)) if (name !== 'agentstack-device.lock') copyFileSync(join(dir, name), join(copy, name));
  return copy;
}

/** Runs device-code --json in `dir`, approves the code it prints at the core, and returns its exit and events. */
async function signInApproved(dir: string, server: string) {
  const run = runDeviceCode({ baseUrl: server, cursorDir: dir });
  const issued = await run.waitFor('device_code');
  await fx.core.approve(String(issued.user_code));
  const done = await run.done;
  return { code: done.code, events: run.events };
}

const pastValidUntil = (text: string) => [...text.matchAll(/valid until (\d{4}-\d\d-\d\dT[\d:.]+Z)/g)].filter((m) => Date.parse(m[1]!) <= Date.now());

describe('every state, one story, every view', { timeout: 60_000 }, () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const dir = fx.cursorDir();
    await c.make(dir);
    const server = c.server?.() ?? fx.core.baseUrl;
    // A sign-in waiting for approval: a real device-code run, its code issued by the core and not yet approved.
    const waiting = c.promise === 'approve_waiting' ? runDeviceCode({ baseUrl: server, cursorDir: dir }) : null;
    const issued = waiting ? await waiting.waitFor('device_code') : null;
    try {
      const statusText = (await status(dir, server)).out;
      const statusJson = JSON.parse((await status(dir, server, { json: true })).out);
      const diagnosed = await withHome(dir, () => diagnose({ source: REPO_ROOT, env: envOf(dir, server) }));
      const diagnoseText = renderTable('diagnose-local', diagnosed.checks);
      const accountRow = diagnosed.checks.find((row) => row.id === 'account')!;
      const word = ACCOUNT_WORDS[c.state];

      // One state word; the same facts.
      expect(statusJson.state).toBe(c.state);
      expect(diagnosed.account.state).toBe(c.state);
      expect(statusText).toMatch(new RegExp(`Account: [^\\n]*${word.replace(/[()]/g, '\\$&')}`));
      expect(accountRow.summary).toContain(word);
      expect(diagnosed.account.expires_at).toBe(statusJson.expires_at);
      expect(diagnosed.account.project).toEqual(statusJson.project);
      expect(statusText).toContain(`Project: ${c.project}`);
      expect(accountRow.summary).toContain(`project ${c.project}`);

      // One next step, the same in every view that shows one.
      const next = statusJson.next_step as string | null;
      expect((accountRow.details as { next_step: unknown }).next_step).toBe(next);
      if (next !== null) {
        expect(statusText).toContain(next);
        expect(`${accountRow.summary} ${accountRow.fix ?? ''}`).toContain(next);
      }
      if (c.promise === 'sign_in') expect(next).toContain(SIGN_IN_COMMAND);
      if (c.promise === 'renewal') expect(next).toBe(RENEWAL_STEP);
      if (c.promise === 'approve_waiting') expect(next).toContain(`enter the code ${issued!.user_code}`);
      if (c.promise === 'fix_mcp_json') expect(next).toMatch(/^Fix line \d+, column \d+ of ~\/mcp\.json; no new sign-in is needed\.$/);
      if (c.promise === 'nothing') expect(next).toBeNull();

      // Chosen states are never a FAIL; the exit code follows.
      if (c.chosen) expect(diagnosed.checks.filter((row) => row.status === 'FAIL').map((row) => row.id)).toEqual([]);
      else if (c.promise !== 'nothing' && c.promise !== 'renewal') expect(accountRow.status).toBe('FAIL');

      // The card (auto sign-in off, so it only tells), logout and config, in copies.
      const cardDir = copyOf(dir);
      const card = c.promise === 'renewal' || c.promise === 'approve_waiting' ? '' : (await withHome(cardDir, () => startSession(cardDir, server, { extraEnv: { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' } }))).card;
      if (card) {
        expect(card).toMatch(new RegExp(`- Account: [^\\n]*${word.replace(/[()]/g, '\\$&')}`));
        if (next !== null && c.promise !== 'sign_in') expect(card).toContain(next);
        if (c.promise === 'sign_in') expect(card).toContain(SIGN_IN_COMMAND);
      }
      // --logout revokes the grant the copy shares with this dir: not where the renewal is checked next.
      const out = c.promise === 'approve_waiting' || c.promise === 'renewal' ? '' : (await logout(copyOf(dir), server)).out;
      if (out && c.project === DEFAULT) expect(out).not.toContain('project pin stays');
      const pin = await withHome(dir, () => runConfig({ action: 'get', key: 'project' }, { env: envOf(dir, server) }));
      if (c.project.includes('42')) expect(pin).toMatchObject({ code: 0, stdout: '42\n' });
      else expect(pin).toMatchObject({ code: 1, stderr: expect.stringMatching(/^no project pin is set/) });

      for (const text of [statusText, diagnoseText, card, out, pin.stderr]) {
        expect(pastValidUntil(text)).toEqual([]);
        expect(text).not.toContain(dir);
        if (c.state !== 'signed_out' && text !== out) expect(text).not.toMatch(/\bsigned out\b/i);
      }

      // The next step, run in this state, does what the views promised.
      if (c.promise === 'sign_in') {
        const run = await signInApproved(dir, server);
        expect(run.code).toBe(0);
        const after = JSON.parse((await status(dir, server, { json: true })).out);
        expect(after.state).toBe('signed_in');
        if (c.project.includes('42')) expect(after.project).toMatchObject({ id: 42, reason: 'pinned' });
      } else if (c.promise === 'renewal') {
        await startSession(dir, server);
        const after = JSON.parse((await status(dir, server, { json: true })).out);
        expect(after).toMatchObject({ state: 'signed_in', next_step: null });
        expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.now() + 10 * 60_000);
      } else if (c.promise === 'approve_waiting') {
        await fx.core.approve(String(issued!.user_code));
        expect((await waiting!.done).code).toBe(0);
        expect(JSON.parse((await status(dir, server, { json: true })).out).state).toBe('signed_in');
      } else if (c.promise === 'fix_mcp_json') {
        // device-code refuses with the story (no sign-in is started); fixing the file is all it takes.
        const refused = runDeviceCode({ baseUrl: server, cursorDir: dir, args: ['--no-browser'] });
        const done = await refused.done;
        expect(done.code).toBe(1);
        expect(done.stderr).toContain(next!);
        expect(done.stderr).not.toMatch(/enter the code/);
        copyFileSync(join(dir, 'mcp.json.good'), join(dir, 'mcp.json'));
        expect(JSON.parse((await status(dir, server, { json: true })).out).state).toBe('signed_in');
      } else if (c.name === 'server down') {
        const online = await status(dir, server, { online: true });
        expect(online.code).toBe(0);
        expect(online.out).toMatch(/Server check: no verdict/);
      }
    } finally {
      waiting?.child.kill();
    }
  });

  it('--status --online with an expired, renewable token: no "not signed in", no request, the renewal named', async () => {
    const dir = fx.cursorDir();
    mkdirSync(dir, { recursive: true });
    await signedIn(dir);
    expireBearer(dir);
    const online = await status(dir, fx.core.baseUrl, { online: true });
    expect(online.code).toBe(0);
    expect(online.out).not.toMatch(/not signed in/);
    expect(online.out).toContain(RENEWAL_STEP);
  });
});
