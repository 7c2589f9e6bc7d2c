/**
 * The per-action rules end to end: a reference core (with tenant actions that need an admin capability, and tokens
 * that list no granted scopes, so only the rules decide) serves GET /mcp/actions; the session-start hook fetches the
 * snapshot as it does for a person; the rules are set with config.mjs or Cursor's environment; the built pre-MCP
 * hook answers read, write and admin actions under each preset and list. Never `allow`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../../core/index.js';
import { readSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { REPO_ROOT, tempDir } from '../helpers/repo.js';
import { PRE_MCP_SCRIPT, hookEnv, runHook, sessionStart, signInWith } from '../helpers/sessionStart.js';

const CONFIG = join(REPO_ROOT, 'scripts/config.mjs');
const tmp = tempDir('agentstack-policy-');
let core: RunningCore;
let dir: string;

beforeAll(async () => {
  core = await startCore({ port: 0, interval: 1, variant: ['admin-actions', 'no-caps-claim'] });
  dir = join(tmp.path, 'cursor');
  mkdirSync(dir);
  await signInWith(dir, core.baseUrl, await core.issueTokens());
  const started = await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' });
  expect(started.code).toBe(0);
});
afterAll(async () => {
  await core?.close();
  tmp.cleanup();
});

const READ = 'projects.list';
const WRITE = 'data.write';
const ADMIN = 'projects.delete';
const settingsPath = () => join(dir, 'agentstack-settings.json');

function config(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CONFIG, ...args], { env: { ...hookEnv(dir, core.baseUrl), ...env }, encoding: 'utf8' });
}

async function hook(actions: string[], env: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  const stdin = JSON.stringify({
    hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', url: `${core.baseUrl}/mcp`, mcp_server_name: 'user-agentstack',
    tool_input: JSON.stringify({ steps: actions.map((action, i) => ({ id: String(i + 1), action, params: {} })) }), ...extra,
  });
  const run = await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, core.baseUrl, env), stdin);
  expect(run.code).toBe(0);
  expect(run.json.permission).not.toBe('allow');
  return run;
}

/** The answer for each of read, write and admin, one call each. */
async function answers(env: Record<string, string> = {}): Promise<Array<string | undefined>> {
  const out: Array<string | undefined> = [];
  for (const action of [READ, WRITE, ADMIN]) out.push((await hook([action], env)).json.permission as string | undefined);
  return out;
}

describe('per-action rules in the pre-MCP hook', { timeout: 90_000 }, () => {
  it('the snapshot from the core lists read, write and admin actions', () => {
    const snapshot = readSnapshot(join(dir, 'agentstack-capabilities.json'))!;
    const capOf = (name: string) => snapshot.actions.find((a) => a.action === name)?.required_cap;
    expect([capOf(READ), capOf(WRITE), capOf(ADMIN), capOf('data.purge')]).toEqual(['projects:read', 'data:write', 'projects:admin', 'data:admin']);
  });

  it('no rules: nothing changes', async () => {
    expect(await answers()).toEqual([undefined, undefined, undefined]);
    expect((await hook([READ, WRITE, ADMIN])).json).toEqual({});
  });

  it('policy confirm-writes (environment): read passes, write and admin ask, naming the action and the variable', async () => {
    const env = { AGENTSTACK_POLICY: 'confirm-writes' };
    expect(await answers(env)).toEqual([undefined, 'ask', 'ask']);
    const ask = await hook([WRITE], env);
    expect(ask.json.user_message).toContain(`data.write (policy confirm-writes: it needs "data:write", which is not a read capability, set by AGENTSTACK_POLICY in Cursor's environment)`);
  });

  it('policy readonly (settings file, set with config.mjs): read passes, write and admin are denied with the way back', async () => {
    expect(config(['set', 'policy', 'readonly']).status).toBe(0);
    try {
      expect(await answers()).toEqual([undefined, 'deny', 'deny']);
      const deny = await hook([ADMIN]);
      expect(deny.json.user_message).toContain(`projects.delete (policy readonly: it needs "projects:admin", which is not a read capability, set in ${settingsPath()})`);
      // The way back names the config script of the copy that runs (this repository's, here).
      expect(deny.json.user_message).toContain(`To change that: node ${REPO_ROOT}/scripts/config.mjs set policy … (or unset policy)`);
      // The environment wins over the file, as for every setting.
      expect(await answers({ AGENTSTACK_POLICY: 'default' })).toEqual([undefined, undefined, undefined]);
    } finally {
      expect(config(['unset', 'policy']).status).toBe(0);
    }
  });

  it('ask-actions: the matching actions ask, whatever their capability', async () => {
    expect(config(['set', 'ask-actions', 'data.*,projects.list']).status).toBe(0);
    try {
      expect(await answers()).toEqual(['ask', 'ask', undefined]);
      expect(await answers({ AGENTSTACK_ASK_ACTIONS: 'projects:admin' })).toEqual([undefined, undefined, 'ask']);
    } finally {
      config(['unset', 'ask-actions']);
    }
  });

  it('deny-actions: by capability and by glob; several steps take the strictest answer', async () => {
    expect(config(['set', 'deny-actions', 'projects:admin, *.purge']).status).toBe(0);
    try {
      expect(await answers()).toEqual([undefined, undefined, 'deny']);
      const purge = await hook(['data.purge']);
      expect(purge.json).toMatchObject({ permission: 'deny', user_message: expect.stringContaining('data.purge (rule "*.purge" in deny-actions') });
      const mixed = await hook([READ, WRITE, ADMIN], { AGENTSTACK_POLICY: 'confirm-writes' });
      expect(mixed.json.permission).toBe('deny');
      expect(mixed.json.user_message).toContain('projects.delete (rule "projects:admin" in deny-actions');
      expect(mixed.json.agent_message).not.toContain('data.write');
      expect(await answers({ AGENTSTACK_DENY_ACTIONS: 'data.write', AGENTSTACK_POLICY: 'confirm-writes' })).toEqual([undefined, 'deny', 'ask']);
      // Another server's call never reaches the rules.
      const other = await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, core.baseUrl), JSON.stringify({ tool_name: 'execute', tool_input: '{"steps":[{"action":"projects.delete"}]}', url: 'https://other.example/mcp' }));
      expect(other.json).toEqual({});
    } finally {
      config(['unset', 'deny-actions']);
    }
  });

  it('a rule file that cannot be read: ask for every AgentStack execute call, reported; other calls untouched', async () => {
    writeFileSync(settingsPath(), '{"deny-actions": "projects.*",');
    try {
      for (const action of [READ, WRITE, ADMIN]) {
        const run = await hook([action]);
        expect(run.json.permission).toBe('ask');
        expect(run.json.user_message).toContain('could not read your per-action rules');
        expect(run.stderr).toContain('is not valid JSON');
      }
      const other = await runHook(PRE_MCP_SCRIPT, [], hookEnv(dir, core.baseUrl), JSON.stringify({ tool_name: 'search', tool_input: '{}', url: 'https://other.example/mcp' }));
      expect(other.json).toEqual({});
      // A value the hook cannot accept (typed by hand) is unreadable too; the environment's bad value as well.
      writeFileSync(settingsPath(), JSON.stringify({ policy: 'strict' }));
      expect(await answers()).toEqual(['ask', 'ask', 'ask']);
      writeFileSync(settingsPath(), '{}');
      expect((await hook([READ], { AGENTSTACK_DENY_ACTIONS: 'a,,b' })).json.permission).toBe('ask');
    } finally {
      writeFileSync(settingsPath(), '{}');
    }
  });

  it('seen where people look: the session card and diagnose-local (WARN for a rule that matches nothing)', async () => {
    const set = config(['set', 'deny-actions', 'projects:admin,storage.*']);
    expect(set.status).toBe(0);
    expect(set.stderr).toMatch(/^! "storage\.\*" matches no action in the capability snapshot \(\d+ actions\); check the spelling\.$/m);
    expect(set.stderr).not.toContain('projects:admin');
    try {
      const env = { AGENTSTACK_DISABLE_AUTO_LOGIN: '1', AGENTSTACK_POLICY: 'confirm-writes' };
      const card = String((await sessionStart(dir, core.baseUrl, env)).json.additional_context);
      expect(card).toContain(`- Per-action rules: policy confirm-writes (env AGENTSTACK_POLICY); deny-actions projects:admin,storage.* (${settingsPath()})`);
      const diagnose = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/diagnose-local.mjs'), '--json'], { env: { ...hookEnv(dir, core.baseUrl), ...env }, encoding: 'utf8' });
      const row = (JSON.parse(diagnose.stdout).checks as Array<{ id: string; status: string; summary: string }>).find((c) => c.id === 'policy');
      expect(row).toMatchObject({ status: 'WARN', summary: expect.stringContaining('"storage.*" matches no action in the snapshot') });
      expect(row!.summary).toContain('policy confirm-writes (env AGENTSTACK_POLICY)');
    } finally {
      config(['unset', 'deny-actions']);
    }
    const card = String((await sessionStart(dir, core.baseUrl, { AGENTSTACK_DISABLE_AUTO_LOGIN: '1' })).json.additional_context);
    expect(card).not.toContain('Per-action rules');
  });

  it('config.mjs set refuses bad rules with the reason, exit 2, the file unchanged', () => {
    expect(config(['set', 'ask-actions', 'storage.*']).status).toBe(0);
    const before = readFileSync(settingsPath(), 'utf8');
    try {
      for (const [key, value, reason] of [
        ['policy', 'strict', 'policy must be one of default, confirm-writes, readonly'],
        ['deny-actions', '', 'deny-actions has an empty entry'],
        ['deny-actions', 'a,,b', 'empty entry'],
        ['ask-actions', 'projects.delete\u001b[2J', 'control or invisible characters'],
        ['ask-actions', 'a b', 'holds white space'],
      ] as const) {
        const run = config(['set', key, value]);
        expect(run.status, `${key}=${JSON.stringify(value)}`).toBe(2);
        expect(run.stderr).toContain(reason);
        expect(run.stderr).toContain('nothing was changed');
        expect(readFileSync(settingsPath(), 'utf8')).toBe(before);
      }
      const list = config(['list']);
      expect(list.stdout).toMatch(/^policy\s+default\s+default$/m);
      // The file is shown as ~/… (HOME is the Cursor dir here).
      expect(list.stdout).toMatch(/^ask-actions\s+storage\.\*\s+settings \(~\/agentstack-settings\.json\)$/m);
      expect(config(['list'], { AGENTSTACK_DENY_ACTIONS: 'x.y' }).stdout).toMatch(/^deny-actions\s+x\.y\s+env \(AGENTSTACK_DENY_ACTIONS\)$/m);
    } finally {
      config(['unset', 'ask-actions']);
    }
  });
});
