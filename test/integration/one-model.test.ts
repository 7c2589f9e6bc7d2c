/**
 * Every view of this machine's AgentStack state renders the one model: for each Cursor dir of the shared fixture set
 * (each account state, a pinned project), `device-code --status` (text and --json), `diagnose-local` (text and
 * --json), the session card, the pre-MCP notice and `config list` are run as a person runs them (the built scripts,
 * a temporary home) and must agree: the same state word, the same expiry, the same project with the same reason, no
 * "valid until" a past time, "signed out" only after a sign-out. The server is a closed port: nothing here needs it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT_WORDS } from '../../lib/agentstack/state/account.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, sessionStart } from '../helpers/sessionStart.js';
import { SERVER, STATE_FIXTURES, makeStateDir, type StateFixture } from '../helpers/stateFixtures.js';

const tmp = tempDir('agentstack-one-model-');
afterAll(() => tmp.cleanup());

const script = (p: string) => join(REPO_ROOT, p);
const env = (dir: string) => hookEnv(dir, SERVER, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
function run(path: string, args: string[], dir: string) {
  return spawnSync(process.execPath, [script(path), ...args], { env: env(dir), encoding: 'utf8', timeout: 30_000 });
}

interface Views {
  statusText: string;
  statusJson: Record<string, any>;
  diagnoseText: string;
  diagnoseJson: Record<string, any>;
  card: string;
  notice: string | null;
}

async function views(fixture: StateFixture): Promise<Views> {
  const dir = (tag: string) => makeStateDir(tmp.path, fixture, tag);
  const status = dir('status');
  const diagnose = dir('diagnose');
  const hook = dir('hook');
  const call = JSON.stringify({ hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', url: `${SERVER}/mcp`, tool_input: JSON.stringify({ steps: [{ id: '1', action: 'projects.list' }] }) });
  const pre = await runHook(PRE_MCP_SCRIPT, [], env(hook), call);
  const session = await sessionStart(dir('card'), SERVER, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
  return {
    statusText: run('hooks/scripts/device-code.mjs', ['--status'], status).stdout,
    statusJson: JSON.parse(run('hooks/scripts/device-code.mjs', ['--status', '--json'], status).stdout),
    diagnoseText: run('scripts/diagnose-local.mjs', [], diagnose).stdout,
    diagnoseJson: JSON.parse(run('scripts/diagnose-local.mjs', ['--json'], diagnose).stdout),
    card: String(session.json.additional_context),
    notice: typeof pre.json.user_message === 'string' ? pre.json.user_message : null,
  };
}

const lineOf = (text: string, prefix: string) => text.split('\n').find((l) => l.trimStart().startsWith(prefix))?.trim() ?? '';

describe('one model of the local state, every view', { timeout: 120_000 }, () => {
  for (const fixture of STATE_FIXTURES) {
    it(`${fixture.name}: every view names ${fixture.state} the same way`, async () => {
      const v = await views(fixture);
      const word = ACCOUNT_WORDS[fixture.state];
      // The state: one name in every --json, one word in every text.
      expect(v.statusJson.state).toBe(fixture.state);
      expect(v.diagnoseJson.account.state).toBe(fixture.state);
      expect(lineOf(v.statusText, 'Account:')).toContain(word);
      expect(lineOf(v.card, '- Account:')).toContain(word);
      const accountRow = (v.diagnoseJson.checks as Array<{ id: string; summary: string }>).find((c) => c.id === 'account')!;
      expect(accountRow.summary).toContain(word);
      if (v.notice !== null) expect(v.notice).toContain(`(${word})`);
      // The expiry: the same time everywhere, never "valid until" a time already past.
      expect(v.diagnoseJson.account.expires_at).toBe(v.statusJson.expires_at);
      if (fixture.expiry) expect(v.statusJson.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      for (const text of [v.statusText, v.card, v.diagnoseText]) {
        for (const m of text.matchAll(/valid until (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/g)) expect(Date.parse(m[1]!)).toBeGreaterThan(Date.now() - 5_000);
        if (fixture.expiry && v.statusJson.expires_at) expect(text).toContain(v.statusJson.expires_at);
      }
      // The project calls go to, with the same reason.
      expect(lineOf(v.statusText, 'Project:')).toBe(`Project: ${fixture.project}`);
      expect(lineOf(v.card, '- Project:')).toBe(`- Project: ${fixture.project}`);
      expect(accountRow.summary).toContain(`project ${fixture.project}`);
      expect(v.diagnoseJson.account.project).toEqual(v.statusJson.project);
      // "signed out" only after a sign-out.
      for (const text of [v.statusText, v.card, v.diagnoseText, v.notice ?? '']) {
        if (fixture.state !== 'signed_out') expect(text).not.toMatch(/\bsigned out\b/i);
      }
    });
  }

  it('config list shows the pin the views name, with its file as ~/…; diagnose and --report never print the home folder', () => {
    const fixture = STATE_FIXTURES.find((f) => f.project === '42 (pinned)')!;
    const dir = makeStateDir(tmp.path, fixture, 'config');
    const list = run('scripts/config.mjs', ['list'], dir);
    expect(list.stdout).toMatch(/^project\s+42\s+settings \(~\/agentstack-project\)$/m);
    const json = JSON.parse(run('scripts/config.mjs', ['list', '--json'], dir).stdout);
    expect(json.settings.find((r: { key: string }) => r.key === 'project').value).toBe('42');
    const diagnose = run('scripts/diagnose-local.mjs', [], dir).stdout;
    expect(diagnose).not.toContain(dir);
    const report = run('scripts/diagnose-local.mjs', ['--report'], dir).stdout;
    expect(report).not.toContain(dir);
    expect(report).toContain('run with --include-account to keep them');
    const full = run('scripts/diagnose-local.mjs', ['--report', '--include-account'], dir).stdout;
    expect(full).toContain('It includes your account');
  });
});
