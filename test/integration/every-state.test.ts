/**
 * Every state, one story: for each account state a person can be in (never signed in, signed in, expiring, expired
 * and renewable, expired with nothing to renew, refused with a refresh token to renew it, refused with nothing to
 * renew, a sign-in waiting for approval, server down, signed out, a pinned project, a pin set before sign-in,
 * mcp.json unparsable, mcp.json missing with and without a refresh token, the agentstack entry removed by hand with
 * its refresh token kept, a renewal refused with a sign-in waiting), every view — `--status` (text and JSON, offline and --online),
 * diagnose-local (text and JSON), its `--report`, `activity`, the session card, the pre-MCP notice, `--logout`,
 * `config get project` — says the same state word, the same facts (expiry, project), never "valid until" a past
 * time, writes the home folder as `~`, prints no secret, never counts a state the person chose as a FAIL, and names
 * the one next step of the model's story. Then that next step is run in that state, against the reference core, and
 * must do what the views promised.
 *
 * Every view is a built bundle, spawned as a person or Cursor runs it, from a plugin folder where a marketplace install
 * puts it (not ~/.cursor/plugins/local/agentstack): every command a view names must be this copy's. AGENTSTACK_VIEWS_ROOT
 * points the views at another tree's bundles (an older commit's worktree, say) to see which rows that tree gets
 * wrong; unset, they are this tree's. One core for the file.
 */
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useCoreAndCursorDirs } from '../helpers/coreFixture.js';
import { SESSION_INPUT, signInWith } from '../helpers/sessionStart.js';
import { runDeviceCode } from '../helpers/deviceCode.js';
import { jwt } from '../helpers/stateFixtures.js';
import { findLeaks } from '../helpers/secretScan.js';
import { startCore } from '../../core/index.js';
import { builtPlugin, installPlugin, installed, runView } from '../helpers/stateTable.js';
import { ACCOUNT_WORDS, type AccountState } from '../../lib/agentstack/state/account.js';
import { REFUSED_RENEWAL_STEP, RENEWAL_STEP, RESTORE_STEP, SIGN_IN_COMMAND } from '../../lib/agentstack/state/story.js';

const fx = useCoreAndCursorDirs('agentstack-every-state-');
/** The plugin installed in `home` (see above), from one copy of the built tree per file. */
const rootOf = (home: string) => installPlugin(builtPlugin(fx.tmp.path), home);
const deviceCodeIn = (home: string) => join(rootOf(home), 'hooks/scripts/device-code.mjs');
const SIGN_IN = installed(SIGN_IN_COMMAND);
const nowS = () => Math.floor(Date.now() / 1000);

/**
 * What a state's next step promises: running device-code signs in (the core approves the code it prints), the next
 * session start renews (or restores the entry, without a new sign-in), approving the waiting code signs in.
 */
type Promise_ = 'sign_in' | 'renewal' | 'refused_renewal' | 'restore' | 'fix_mcp_json' | 'approve_waiting' | 'nothing';

/** What making a state left behind: the session card that made it, the code of the sign-in it left waiting. */
interface Made { card?: string; code?: string }

interface Case {
  name: string;
  state: AccountState;
  /** A state the person chose: diagnose has no FAIL row. */
  chosen: boolean;
  project: string;
  promise: Promise_;
  /** The server the views are pointed at (the core, or a closed port). */
  server?: () => string;
  make(dir: string): Promise<void | Made>;
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
/** A Bearer the core did not sign (not expired), and the record of the server's 401 to it, as the catalog fetch leaves it. */
function refuse(dir: string): void {
  expireBearer(dir, nowS() + 3600);
  write(dir, 'agentstack-capabilities-failed.json', JSON.stringify({ at: new Date(Date.now() + 1000).toISOString(), server_url: `${fx.core.baseUrl}/mcp`, message: 'HTTP 401', unauthorized: true }));
}
const DEFAULT = "your account's default";
let serverDown = '';

const CASES: Case[] = [
  // A settings file (the journal on, as by default): its path shows as `~` in every view, --json included.
  { name: 'never signed in', state: 'never_signed_in', chosen: true, project: DEFAULT, promise: 'sign_in', make: async (d) => write(d, 'agentstack-settings.json', '{"journal":"on"}\n') },
  { name: 'signed in', state: 'signed_in', chosen: false, project: DEFAULT, promise: 'nothing', make: (d) => signedIn(d) },
  { name: 'expiring', state: 'expiring', chosen: false, project: DEFAULT, promise: 'renewal', make: (d) => signedIn(d, 60) },
  { name: 'expired and renewable', state: 'expired_renewable', chosen: false, project: DEFAULT, promise: 'renewal', make: async (d) => { await signedIn(d); expireBearer(d); } },
  {
    name: 'expired with nothing to renew', state: 'expired', chosen: false, project: DEFAULT, promise: 'sign_in',
    make: async (d) => { await signedIn(d); expireBearer(d); rmSync(join(d, 'agentstack-refresh')); },
  },
  {
    // The server answered 401 to this Bearer; the refresh token is kept, so the plugin renews it.
    name: 'refused, renewable', state: 'refused_renewable', chosen: false, project: DEFAULT, promise: 'refused_renewal',
    make: async (d) => { await signedIn(d); refuse(d); },
  },
  {
    name: 'refused, nothing to renew', state: 'refused', chosen: false, project: DEFAULT, promise: 'sign_in',
    make: async (d) => { await signedIn(d); refuse(d); rmSync(join(d, 'agentstack-refresh')); },
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
  // mcp.json gone with the refresh token kept: the entry is restored from it, as when the entry alone is taken out.
  { name: 'mcp.json missing', state: 'entry_removed', chosen: false, project: DEFAULT, promise: 'restore', make: async (d) => { await signedIn(d); rmSync(join(d, 'mcp.json')); } },
  { name: 'mcp.json missing, nothing to restore', state: 'never_signed_in', chosen: true, project: DEFAULT, promise: 'sign_in', make: async (d) => { await signedIn(d); rmSync(join(d, 'mcp.json')); rmSync(join(d, 'agentstack-refresh')); } },
  {
    // The person took the agentstack entry out of mcp.json by hand (another server stays); the refresh token is kept.
    name: 'entry removed by hand', state: 'entry_removed', chosen: false, project: DEFAULT, promise: 'restore',
    make: async (d) => {
      await signedIn(d);
      const path = join(d, 'mcp.json');
      const config = JSON.parse(readFileSync(path, 'utf8'));
      delete config.mcpServers.agentstack;
      config.mcpServers.other = { url: 'https://mcp.example.com/mcp' };
      writeFileSync(path, JSON.stringify(config), { mode: 0o600 });
    },
  },
  {
    // The renewal refused (invalid_grant: the server no longer knows the refresh token); the session start that met it
    // started a background sign-in, which waits for approval.
    name: 'renewal refused, sign-in waiting', state: 'renewal_refused', chosen: false, project: DEFAULT, promise: 'approve_waiting',
    make: async (d) => {
      await signedIn(d);
      expireBearer(d);
      const path = join(d, 'agentstack-refresh');
      const stored = JSON.parse(readFileSync(path, 'utf8'));
      stored.refresh_token = `${stored.refresh_token}-unknown`;
      writeFileSync(path, JSON.stringify(stored), { mode: 0o600 });
      const card = await sessionCard(d, fx.core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '' });
      const code = /enter the code (\S+) /.exec(card)?.[1];
      expect(code, card).toBeTruthy();
      return { card, code };
    },
  },
];

/** Runs one of the installed plugin's bundles in `dir` as a person's shell (or Cursor) does: HOME is `dir`, so `~` means it. */
const run = (script: string, args: string[], dir: string, server: string, opts: { env?: Record<string, string>; stdin?: string } = {}) =>
  runView(rootOf(dir), script, args, { home: dir, server, ...opts });

const status = (dir: string, server: string, ...flags: string[]) => run('hooks/scripts/device-code.mjs', ['--status', ...flags], dir, server);
const logout = (dir: string, server = fx.core.baseUrl) => run('hooks/scripts/device-code.mjs', ['--logout'], dir, server);
/** Session start as Cursor runs it; its card is the one JSON object's additional_context. */
async function sessionCard(dir: string, server: string, env: Record<string, string> = {}): Promise<string> {
  const done = await run('hooks/scripts/session-start.cjs', ['--from-hook'], dir, server, { env, stdin: JSON.stringify(SESSION_INPUT) });
  return String(JSON.parse(done.out).additional_context ?? '');
}
/** The pre-MCP hook's answer to an AgentStack call through the Device Code server: its user_message, or ''. */
async function preMcpNotice(dir: string, server: string): Promise<string> {
  const call = JSON.stringify({
    hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: `${server}/mcp`,
    tool_input: JSON.stringify({ steps: [{ id: '1', action: 'projects.list', params: {} }] }),
  });
  const done = await run('hooks/scripts/pre-mcp-cap-check.cjs', [], dir, server, { stdin: call });
  return String(JSON.parse(done.out).user_message ?? '');
}

/** The secrets a view must never print: the Bearer and the refresh token stored in `dir`. */
function secretsIn(dir: string): string[] {
  const found: string[] = [];
  for (const name of ['mcp.json', 'agentstack-refresh', 'mcp.json.good']) {
    let text = '';
    try { text = readFileSync(join(dir, name), 'utf8'); } catch { continue; }
    for (const m of text.matchAll(/Bearer ([A-Za-z0-9._~+/=-]{16,})|"refresh_token"\s*:\s*"([^"]{16,})"/g)) found.push((m[1] ?? m[2])!);
  }
  return found;
}

/** A copy of `dir` (the views of one state each get their own, so none changes what another sees). */
function copyOf(dir: string): string {
  const copy = fx.cursorDir();
  for (const name of readdirSync(dir)) if (name !== 'agentstack-device.lock' && statSync(join(dir, name)).isFile()) copyFileSync(join(dir, name), join(copy, name));
  return copy;
}

/** Runs device-code --json in `dir`, approves the code it prints at the core, and returns its exit and events. */
async function signInApproved(dir: string, server: string) {
  const signIn = runDeviceCode({ baseUrl: server, cursorDir: dir, script: deviceCodeIn(dir) });
  const issued = await signIn.waitFor('device_code');
  await fx.core.approve(String(issued.user_code));
  const done = await signIn.done;
  return { code: done.code, events: signIn.events };
}

async function until(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not done within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const escaped = (text: string) => text.replace(/[()]/g, '\\$&');
const pastValidUntil = (text: string) => [...text.matchAll(/valid until (\d{4}-\d\d-\d\dT[\d:.]+Z)/g)].filter((m) => Date.parse(m[1]!) <= Date.now());

describe('every state, one story, every view', { timeout: 240_000 }, () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const dir = fx.cursorDir();
    const made = (await c.make(dir)) ?? {};
    const server = c.server?.() ?? fx.core.baseUrl;
    // A sign-in waiting for approval: a real device-code run, its code issued by the core and not yet approved (or
    // the background sign-in the state's making left waiting).
    const waiting = c.promise === 'approve_waiting' && !made.code ? runDeviceCode({ baseUrl: server, cursorDir: dir, script: deviceCodeIn(dir) }) : null;
    const issued = waiting ? await waiting.waitFor('device_code') : made.code ? { user_code: made.code } : null;
    const renews = c.promise === 'renewal' || c.promise === 'refused_renewal' || c.promise === 'restore';
    try {
      const secrets = secretsIn(dir);
      const [statusText, statusJsonRun, onlineText, onlineJsonRun, diagnoseText, diagnoseJsonRun, report, activity, pin] = await Promise.all([
        status(dir, server), status(dir, server, '--json'), status(dir, server, '--online'), status(dir, server, '--online', '--json'),
        run('scripts/diagnose-local.mjs', [], dir, server), run('scripts/diagnose-local.mjs', ['--json'], dir, server),
        run('scripts/diagnose-local.mjs', ['--report'], dir, server), run('scripts/activity.mjs', [], dir, server),
        run('scripts/config.mjs', ['get', 'project'], dir, server),
      ]);
      const statusJson = JSON.parse(statusJsonRun.out);
      const onlineJson = JSON.parse(onlineJsonRun.out);
      const diagnosed = JSON.parse(diagnoseJsonRun.out) as { account: { state: string; expires_at: unknown; project: unknown }; checks: Array<{ id: string; status: string; summary: string; fix?: string; details?: { next_step?: unknown } }> };
      const accountRow = diagnosed.checks.find((row) => row.id === 'account') ?? { id: 'account', status: 'missing', summary: '', details: {} };
      const word = ACCOUNT_WORDS[c.state];

      // Soft: a row lists every view it gets wrong, not only the first.
      // One state word; the same facts.
      expect.soft(statusJson.state).toBe(c.state);
      expect.soft(onlineJson.state).toBe(c.state);
      expect.soft(diagnosed.account.state).toBe(c.state);
      expect.soft(statusText.out).toMatch(new RegExp(`Account: [^\\n]*${escaped(word)}`));
      expect.soft(onlineText.out).toMatch(new RegExp(`Account: [^\\n]*${escaped(word)}`));
      expect.soft(accountRow.summary).toContain(word);
      expect.soft(report.out).toContain(word);
      expect.soft(diagnosed.account.expires_at).toBe(statusJson.expires_at);
      expect.soft(onlineJson.expires_at).toBe(statusJson.expires_at);
      expect.soft(diagnosed.account.project).toEqual(statusJson.project);
      expect.soft(statusText.out).toContain(`Project: ${c.project}`);
      // --status is at most ten lines, with or without the server's answer.
      for (const text of [statusText.out, onlineText.out]) expect.soft(text.trimEnd().split('\n').length, text).toBeLessThanOrEqual(10);
      expect.soft(accountRow.summary).toContain(`project ${c.project}`);

      // One next step, the same in every view that shows one.
      const next = (statusJson.next_step ?? null) as string | null;
      expect.soft(onlineJson.next_step).toBe(next);
      expect.soft(accountRow.details?.next_step).toBe(next);
      if (next !== null) {
        for (const text of [statusText.out, onlineText.out]) expect.soft(text).toContain(next);
        // The report is for a support ticket: a live sign-in code in it is hidden (anyone reading it could approve).
        const code = issued ? String(issued.user_code) : null;
        expect.soft(report.out).toContain(code ? next.replace(`user_code=${code}`, 'user_code=****').replaceAll(code, '[sign-in code hidden]') : next);
        expect.soft(`${accountRow.summary} ${accountRow.fix ?? ''}`).toContain(next);
      }
      if (c.promise === 'sign_in') expect.soft(next).toContain(SIGN_IN);
      if (c.promise === 'renewal') expect.soft(next).toBe(RENEWAL_STEP);
      if (c.promise === 'refused_renewal') expect.soft(next).toBe(installed(REFUSED_RENEWAL_STEP));
      if (c.promise === 'restore') expect.soft(next).toBe(installed(RESTORE_STEP));
      if (c.promise === 'approve_waiting') expect.soft(next).toContain(`enter the code ${issued!.user_code}`);
      if (c.state === 'renewal_refused') expect.soft(statusText.out).toMatch(/^X AgentStack: renewal refused, sign-in waiting$/m);
      if (c.promise === 'fix_mcp_json') expect.soft(next).toMatch(/^Fix line \d+, column \d+ of ~\/mcp\.json; no new sign-in is needed\.$/);
      if (c.promise === 'nothing') expect.soft(next).toBeNull();
      // A token the plugin renews: no view tells the person to sign in, nor names another script's flags.
      if (renews) for (const text of [onlineText.out, report.out]) expect.soft(text).not.toMatch(/[Ss]ign in (again )?with|not signed in|--token-env/);

      // Chosen states are never a FAIL; the exit code follows.
      if (c.chosen) expect.soft(diagnosed.checks.filter((row) => row.status === 'FAIL').map((row) => row.id)).toEqual([]);
      else if (c.promise !== 'nothing' && c.promise !== 'approve_waiting' && !renews) expect.soft(accountRow.status).toBe('FAIL');
      if (c.chosen) expect.soft(diagnoseJsonRun.code).toBe(0);

      // The card (auto sign-in off, so it only tells), the pre-MCP notice, logout: in copies. A renewal's card is the
      // renewal itself (checked below); a copy would spend the refresh token the original dir holds.
      const card = made.card ?? (renews || c.promise === 'approve_waiting' ? '' : await sessionCard(copyOf(dir), server, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' }));
      if (card) {
        expect.soft(card).toMatch(new RegExp(`- Account: [^\\n]*${escaped(word)}`));
        if (next !== null && c.promise !== 'sign_in') expect.soft(card).toContain(next);
        if (c.promise === 'sign_in') expect.soft(card).toContain(SIGN_IN);
      }
      // (A background sign-in's lock stays where it is: the notice of that state is read where the sign-in waits.)
      const notice = await preMcpNotice(made.code ? dir : copyOf(dir), server);
      if (c.state === 'refused' || c.state === 'refused_renewable' || c.state === 'expired' || c.state === 'renewal_refused') {
        expect.soft(notice).toContain(`AgentStack (${word})`);
        expect.soft(notice).toContain(next!);
      } else if (notice) {
        expect.soft(notice).toContain(word);
      }
      // --logout revokes the grant the copy shares with this dir: not where the renewal is checked next.
      const out = c.promise === 'approve_waiting' || renews ? '' : (await logout(copyOf(dir), server)).out;
      // A token known dead is not sent to the server by the report's online checks.
      if (c.state === 'renewal_refused' || c.state === 'expired') expect.soft(report.out).toMatch(/online\.auth-me[^\n]*not checked: the token was not sent/);
      // The account row and the token's row tell one story: no FAIL beside a WARN, the same next step.
      const expiryRow = diagnosed.checks.find((row) => row.id === 'token.expiry');
      if (expiryRow && expiryRow.status !== 'PASS' && !expiryRow.summary.startsWith('not checked') && next) {
        expect.soft(expiryRow.status).toBe(accountRow.status);
        expect.soft(expiryRow.fix).toBe(next);
      }
      // A file that cannot be read says nothing of an entry in it.
      if (c.state === 'unreadable') {
        for (const id of ['mcp.no-tools', 'mcp.bearer']) expect.soft(diagnosed.checks.find((row) => row.id === id)?.summary, id).not.toContain('no "agentstack" entry');
      }
      // No refresh token row speaks of a token expiring where there is none.
      const refreshRow = diagnosed.checks.find((row) => row.id === 'refresh.file');
      if (statusJson.expires_at === null) expect.soft(refreshRow?.summary).not.toContain('when the token expires');
      if (out && c.project === DEFAULT) expect.soft(out).not.toContain('project pin stays');
      if (c.project.includes('42')) expect.soft(pin).toMatchObject({ code: 0, out: '42\n' });
      else expect.soft(pin).toMatchObject({ code: 1, err: expect.stringMatching(/^no project pin is set/) });
      expect.soft(activity.code).toBe(0);

      const texts = { status: statusText.out, online: onlineText.out, diagnose: diagnoseText.out, report: report.out, activity: activity.out, card, notice, logout: out, config: pin.err };
      expect.soft(findLeaks(Object.entries(texts).map(([what, text]) => ({ what, text })), secrets)).toEqual([]);
      for (const [what, text] of [['status --json', statusJsonRun.out], ['diagnose --json', diagnoseJsonRun.out]] as const) expect.soft(text, what).not.toContain(dir);
      for (const [what, text] of Object.entries(texts)) {
        expect.soft(pastValidUntil(text), what).toEqual([]);
        expect.soft(text, what).not.toContain(dir);
        // Every command a view names is this copy's: none names the local-folder install it is not.
        expect.soft(text, what).not.toContain('node ~/.cursor/plugins/local/agentstack');
        if (c.state !== 'signed_out' && what !== 'logout') expect.soft(text, what).not.toMatch(/\bsigned out\b/i);
      }

      // The next step, run in this state, does what the views promised.
      if (c.promise === 'sign_in') {
        const signIn = await signInApproved(dir, server);
        expect(signIn.code).toBe(0);
        const after = JSON.parse((await status(dir, server, '--json')).out);
        expect(after.state).toBe('signed_in');
        if (c.project.includes('42')) expect(after.project).toMatchObject({ id: 42, reason: 'pinned' });
      } else if (renews) {
        // The command the refused state names works in it (it said so above); the next session start renews (or
        // restores the entry from the refresh token: no new sign-in, and the card says so).
        const devices = fx.core.counters.deviceAuthorizations;
        const renewed = await sessionCard(dir, server, { AGENTSTACK_DISABLE_AUTO_LOGIN: '' });
        if (c.promise === 'restore') {
          expect(renewed).toContain('Restored the agentstack entry in ~/mcp.json from the stored refresh token (no new sign-in)');
          expect(fx.core.counters.deviceAuthorizations).toBe(devices);
        }
        const after = JSON.parse((await status(dir, server, '--json')).out);
        expect(after).toMatchObject({ state: 'signed_in', next_step: null });
        expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.now() + 10 * 60_000);
        if (c.promise === 'refused_renewal') expect(await status(dir, server, '--online')).toMatchObject({ code: 0, out: expect.stringContaining('the server accepts the token') });
        if (c.promise === 'restore') {
          // The other way the step names: --logout disconnects, and nothing restores the entry after it.
          expect(await logout(dir, server)).toMatchObject({ code: 0 });
          await sessionCard(dir, server, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
          expect(JSON.parse((await status(dir, server, '--json')).out).state).toBe('signed_out');
        }
      } else if (c.promise === 'approve_waiting') {
        await fx.core.approve(String(issued!.user_code));
        if (waiting) expect((await waiting.done).code).toBe(0);
        // The background sign-in finishes by itself once approved.
        else await until(async () => JSON.parse((await status(dir, server, '--json')).out).state === 'signed_in', 20_000);
        expect(JSON.parse((await status(dir, server, '--json')).out).state).toBe('signed_in');
      } else if (c.promise === 'fix_mcp_json') {
        // device-code refuses with the story (no sign-in is started); fixing the file is all it takes.
        const refused = runDeviceCode({ baseUrl: server, cursorDir: dir, args: ['--no-browser'], script: deviceCodeIn(dir) });
        const done = await refused.done;
        expect(done.code).toBe(1);
        expect(done.stderr).toContain(next!);
        expect(done.stderr).not.toMatch(/enter the code/);
        copyFileSync(join(dir, 'mcp.json.good'), join(dir, 'mcp.json'));
        expect(JSON.parse((await status(dir, server, '--json')).out).state).toBe('signed_in');
      } else if (c.name === 'server down') {
        // A server on this machine that is not running is named so; no network or proxy is to blame.
        expect.soft(report.out).toMatch(/online\.auth-me[\s\S]*?is not running/);
        expect.soft(report.out).not.toMatch(/network or proxy/);
        expect(onlineText.code).toBe(0);
        expect(onlineText.out).toMatch(/Server check: no verdict/);
      }
    } finally {
      waiting?.child.kill();
    }
  });
});
