/**
 * The per-action policy, pure: the rule syntax (what `config set` refuses), globs, the policy in effect from the
 * settings rows, and the decision as a table: preset x rule x read/write/admin/no-capability/unknown action.
 */
import { pluginCommand } from '../../lib/agentstack/plugin/root.js';
import { describe, expect, it } from 'vitest';
import { capabilityKind, isReadCapability } from '../../lib/agentstack/auth/capabilityKind.js';
import { CAPABILITY_SCOPES, SCOPE_PRESETS } from '../../lib/agentstack/auth/scopes.js';
import { NO_POLICY, isNoPolicy, policyInEffect, type Policy, type PolicyInEffect } from '../../lib/agentstack/policy/effective.js';
import { globMatches, isCapabilityRule, isPolicyPreset, parsePolicyPreset, parseRuleList, ruleEntries } from '../../lib/agentstack/policy/rules.js';
import type { SettingRow } from '../../lib/agentstack/settings/effective.js';
import { parseExecuteArgs } from '../../lib/commands/preMcp/decide.js';
import { decidePolicy, policySteps, strictest, type PolicyStep } from '../../lib/commands/preMcp/policy.js';
import { describePolicy, policyNotice } from '../../lib/agentstack/policy/describe.js';
import { renderCard } from '../../lib/commands/sessionStart/card.js';
import { fourActionSnapshot } from '../helpers/fixtures.js';

const FILE = '/home/u/.cursor/agentstack-settings.json';
const settingsFrom = { origin: 'settings' as const, source: FILE };
const policy = (p: Partial<Omit<Policy, 'from'>>, from: Partial<Policy['from']> = {}): PolicyInEffect => ({
  kind: 'ok',
  policy: { ...NO_POLICY, ...p, from: { policy: settingsFrom, 'ask-actions': settingsFrom, 'deny-actions': settingsFrom, ...from } },
});

const READ: PolicyStep = { action: 'projects.list', known: true, cap: 'projects:read' };
const WRITE: PolicyStep = { action: 'data.write', known: true, cap: 'data:write' };
const ADMIN: PolicyStep = { action: 'projects.delete', known: true, cap: 'projects:admin' };
const FREE: PolicyStep = { action: 'system.ping', known: true, cap: null };
const UNKNOWN: PolicyStep = { action: 'storage.purge', known: false, cap: null };

describe('capability kinds: one rule for the sign-in presets and the policy', () => {
  it.each([
    ['projects:read', 'read'], ['read:data', 'read'], ['files.view', 'read'], ['all.readonly', 'read'], ['items:list', 'read'], ['x:get', 'read'],
    ['data:write', 'write'], ['actions:execute', 'write'], ['jobs.exec', 'write'], ['jobs.run', 'write'], ['items.create', 'write'], ['items.update', 'write'], ['org.manage', 'write'],
    ['projects:admin', 'admin'], ['admin:read', 'admin'], ['data:delete', 'admin'], ['tenant.purge', 'admin'], ['db:destroy', 'admin'], ['org:owner', 'admin'], ['ADMIN', 'admin'],
    ['misc', 'unknown'], ['readme', 'unknown'], ['', 'unknown'],
  ])('%s is %s', (scope, kind) => {
    expect(capabilityKind(scope)).toBe(kind);
  });

  it('the sign-in readonly preset holds exactly the known capabilities the policy calls read', () => {
    expect(CAPABILITY_SCOPES.filter((c) => isReadCapability(c))).toEqual([...SCOPE_PRESETS.readonly]);
    expect(isReadCapability(null)).toBe(true);
    expect(isReadCapability('data:write')).toBe(false);
    expect(isReadCapability('misc')).toBe(false);
  });
});

describe('rule syntax', () => {
  it('presets: the three words, trimmed; anything else refused with the choices', () => {
    expect(POLICY_WORDS.map((w) => parsePolicyPreset(` ${w} `, 'policy'))).toEqual(POLICY_WORDS);
    expect(isPolicyPreset('readonly')).toBe(true);
    expect(isPolicyPreset('read-only')).toBe(false);
    expect(() => parsePolicyPreset('strict', 'policy')).toThrow('policy must be one of default, confirm-writes, readonly (got "strict")');
    expect(() => parsePolicyPreset('x'.repeat(50), 'policy')).toThrow(`(got "${'x'.repeat(40)}")`);
  });

  it('lists: normalized, duplicates dropped; empty entries, spaces inside, controls, too many or too long refused', () => {
    expect(parseRuleList(' storage.* , projects.delete,*.purge,projects:admin ', 'deny-actions')).toBe('storage.*,projects.delete,*.purge,projects:admin');
    expect(parseRuleList('a,a,b', 'x')).toBe('a,b');
    expect(parseRuleList('数据.读取', 'x')).toBe('数据.读取');
    expect(() => parseRuleList('', 'deny-actions')).toThrow('deny-actions has an empty entry');
    expect(() => parseRuleList('a,,b', 'x')).toThrow('empty entry');
    expect(() => parseRuleList('a, ', 'x')).toThrow('empty entry');
    expect(() => parseRuleList('projects.delete data.write', 'x')).toThrow('x: "projects.delete data.write" holds white space');
    expect(() => parseRuleList('a\u0007b', 'x')).toThrow('x holds control or invisible characters');
    expect(() => parseRuleList('a\u202eb', 'x')).toThrow('control or invisible');
    expect(() => parseRuleList('a,b\n', 'x')).toThrow('control or invisible');
    expect(parseRuleList('x'.repeat(200), 'x')).toHaveLength(200);
    expect(() => parseRuleList('x'.repeat(201), 'x')).toThrow('x: an entry is longer than 200 characters');
    const many = Array.from({ length: 100 }, (_, i) => `a${i}`).join(',');
    expect(parseRuleList(many, 'x')).toBe(many);
    expect(() => parseRuleList(`${many},z`, 'x')).toThrow('x has 101 entries; at most 100');
    // Every refusal is a typed invalid_config (config.mjs turns exactly that code into exit 2, nothing changed).
    const codeOf = (fn: () => unknown) => { try { fn(); } catch (error) { return (error as { code?: string }).code; } return 'no error'; };
    for (const bad of ['a,,b', 'a\u0007b', 'a b', 'x'.repeat(201), `${many},z`]) expect(codeOf(() => parseRuleList(bad, 'x')), bad.slice(0, 20)).toBe('invalid_config');
    expect(codeOf(() => parsePolicyPreset('strict', 'policy'))).toBe('invalid_config');
    // A long entry with white space is quoted cut short.
    expect(() => parseRuleList(`${'y'.repeat(70)} z`, 'x')).toThrow(`x: "${'y'.repeat(60)}" holds white space`);
  });

  it('entries and kinds', () => {
    expect(ruleEntries('a,b')).toEqual(['a', 'b']);
    expect(ruleEntries('')).toEqual([]);
    expect(ruleEntries(null)).toEqual([]);
    expect(isCapabilityRule('projects:admin')).toBe(true);
    expect(isCapabilityRule('projects.*')).toBe(false);
  });

  it.each([
    ['storage.*', 'storage.buckets.delete', true], ['storage.*', 'storage.', true], ['storage.*', 'storage', false], ['storage.*', 'xstorage.a', false],
    ['*.purge', 'data.purge', true], ['*.purge', 'a.b.purge', true], ['*.purge', 'data.purge2', false], ['*', 'anything', true], ['*', '', true],
    ['projects.delete', 'projects.delete', true], ['projects.delete', 'Projects.Delete', true], ['PROJECTS.*', 'projects.list', true],
    ['projects.delete', 'projects.deletes', false], ['projects.delete', 'projects.delet', false], ['', '', true], ['', 'a', false],
    ['a*b*c', 'aXbYc', true], ['a*b*c', 'abc', true], ['a*b*c', 'acb', false], ['a*b', 'ab_b', true], ['a*b', 'abba', false], ['**a', 'xa', true],
    ['*:admin', 'projects:admin', true], ['*:admin', 'projects:admin2', false], ['a?c', 'abc', false], ['a.c', 'abc', false],
  ])('glob %s on %s: %s', (glob, text, expected) => {
    expect(globMatches(glob, text)).toBe(expected);
  });
});

const POLICY_WORDS = ['default', 'confirm-writes', 'readonly'];

describe('the policy in effect', () => {
  const row = (key: SettingRow['key'], value: string | null, origin: SettingRow['origin'] = 'settings', problem?: string): SettingRow => ({
    key, value, origin, source: origin === 'env' ? 'AGENTSTACK_X' : origin === 'settings' ? FILE : null, ...(problem ? { problem } : {}),
  });
  const file = (more: Partial<{ broken: boolean; problems: string[]; rejected: Array<'policy' | 'ask-actions' | 'deny-actions'> }> = {}) => ({
    path: FILE, broken: false, problems: [], rejected: [], ...more,
  });

  it('defaults: no rules, nothing changes', () => {
    const rows = [row('policy', 'default', 'default'), row('ask-actions', null, 'default'), row('deny-actions', null, 'default')];
    const effect = policyInEffect(rows, file());
    expect(effect).toEqual({ kind: 'ok', policy: NO_POLICY });
    expect(policyInEffect([], file())).toEqual({ kind: 'ok', policy: NO_POLICY });
    expect(isNoPolicy(NO_POLICY)).toBe(true);
  });

  it('each part with where it is set: the variable or the file', () => {
    const rows = [row('policy', ' confirm-writes ', 'env'), row('ask-actions', 'storage.*', 'settings'), row('deny-actions', 'a , b', 'env')];
    expect(policyInEffect(rows, file())).toEqual({
      kind: 'ok',
      policy: {
        preset: 'confirm-writes', ask: ['storage.*'], deny: ['a', 'b'],
        from: { policy: { origin: 'env', source: 'AGENTSTACK_POLICY' }, 'ask-actions': { origin: 'settings', source: FILE }, 'deny-actions': { origin: 'env', source: 'AGENTSTACK_DENY_ACTIONS' } },
      },
    });
    const ask = policyInEffect([row('ask-actions', 'x', 'env')], file());
    expect(ask.kind === 'ok' && ask.policy.from['ask-actions'].source).toBe('AGENTSTACK_ASK_ACTIONS');
    expect(ask.kind === 'ok' && isNoPolicy(ask.policy)).toBe(false);
    const deny = policyInEffect([row('deny-actions', 'x')], file());
    expect(deny.kind === 'ok' && isNoPolicy(deny.policy)).toBe(false);
    const preset = policyInEffect([row('policy', 'readonly')], file());
    expect(preset.kind === 'ok' && isNoPolicy(preset.policy)).toBe(false);
  });

  it('a rule that cannot be read makes the whole policy unreadable', () => {
    expect(policyInEffect([row('deny-actions', 'a,,b', 'env', 'AGENTSTACK_DENY_ACTIONS has an empty entry')], file())).toMatchObject({ kind: 'unreadable', reason: 'AGENTSTACK_DENY_ACTIONS has an empty entry' });
    expect(policyInEffect([], file({ broken: true, problems: ['The settings file is not valid JSON'] }))).toMatchObject({ kind: 'unreadable', reason: 'The settings file is not valid JSON' });
    expect(policyInEffect([], file({ broken: true }))).toMatchObject({ kind: 'unreadable', reason: `the settings file ${FILE} cannot be read` });
    expect(policyInEffect([row('ask-actions', null, 'default')], file({ rejected: ['ask-actions'] }))).toMatchObject({ kind: 'unreadable', reason: `the value of ask-actions in ${FILE} is not valid` });
    // A value that slipped past the file's check (an env row without a problem cannot be bad): still unreadable.
    expect(policyInEffect([row('policy', 'strict', 'settings')], file())).toMatchObject({ kind: 'unreadable', reason: 'policy must be one of default, confirm-writes, readonly (got "strict")' });
  });

  it('every rule set by the environment: a broken file or a refused file value no longer matters', () => {
    const rows = [row('policy', 'readonly', 'env'), row('ask-actions', 'a', 'env'), row('deny-actions', 'b', 'env')];
    expect(policyInEffect(rows, file({ broken: true, rejected: ['policy'] })).kind).toBe('ok');
    expect(policyInEffect(rows.slice(0, 2), file({ broken: true })).kind).toBe('unreadable');
  });
});

describe('the decision (never allow)', () => {
  type Row = [string, PolicyInEffect, PolicyStep, 'deny' | 'ask' | undefined, string?];
  const table: Row[] = [
    // default: nothing changes, whatever the action
    ['default, read', policy({}), READ, undefined],
    ['default, write', policy({}), WRITE, undefined],
    ['default, admin', policy({}), ADMIN, undefined],
    ['default, unknown', policy({}), UNKNOWN, undefined],
    // confirm-writes: ask unless the capability is a read one (or none)
    ['confirm-writes, read', policy({ preset: 'confirm-writes' }), READ, undefined],
    ['confirm-writes, no capability', policy({ preset: 'confirm-writes' }), FREE, undefined],
    ['confirm-writes, write', policy({ preset: 'confirm-writes' }), WRITE, 'ask', 'data.write (policy confirm-writes: it needs "data:write", which is not a read capability, set in'],
    ['confirm-writes, admin', policy({ preset: 'confirm-writes' }), ADMIN, 'ask', 'projects:admin'],
    ['confirm-writes, unknown', policy({ preset: 'confirm-writes' }), UNKNOWN, 'ask', 'policy confirm-writes: its capability is unknown (not in the snapshot)'],
    // readonly: deny what is not a read, ask when it cannot tell
    ['readonly, read', policy({ preset: 'readonly' }), READ, undefined],
    ['readonly, no capability', policy({ preset: 'readonly' }), FREE, undefined],
    ['readonly, write', policy({ preset: 'readonly' }), WRITE, 'deny', 'data.write (policy readonly: it needs "data:write", which is not a read capability, set in'],
    ['readonly, admin', policy({ preset: 'readonly' }), ADMIN, 'deny', 'projects.delete (policy readonly'],
    ['readonly, unknown', policy({ preset: 'readonly' }), UNKNOWN, 'ask', 'policy readonly: its capability is unknown'],
    ['readonly, unknown cap of a known action', policy({ preset: 'readonly' }), { action: 'x.y', known: true, cap: 'misc' }, 'deny', 'it needs "misc"'],
    // deny-actions: by name or glob, by capability
    ['deny glob, matching', policy({ deny: ['projects.*'] }), ADMIN, 'deny', 'projects.delete (rule "projects.*" in deny-actions, set in'],
    ['deny glob, not matching', policy({ deny: ['storage.*'] }), WRITE, undefined],
    ['deny by name, read action', policy({ deny: ['projects.list'] }), READ, 'deny', 'rule "projects.list"'],
    ['deny capability', policy({ deny: ['projects:admin'] }), ADMIN, 'deny', 'rule "projects:admin" in deny-actions'],
    ['deny capability glob', policy({ deny: ['*:admin'] }), ADMIN, 'deny', 'rule "*:admin"'],
    ['deny capability, other capability', policy({ deny: ['projects:admin'] }), WRITE, undefined],
    ['deny capability, action needs none', policy({ deny: ['*:*'] }), FREE, undefined],
    ['deny capability, unknown action: ask', policy({ deny: ['projects:admin'] }), UNKNOWN, 'ask', 'rule "projects:admin" in deny-actions may apply: its capability is unknown'],
    ['deny name, unknown action', policy({ deny: ['*.purge'] }), UNKNOWN, 'deny', 'rule "*.purge"'],
    ['deny name wins over readonly', policy({ preset: 'readonly', deny: ['data.*'] }), WRITE, 'deny', 'rule "data.*" in deny-actions'],
    ['deny over ask for one action', policy({ ask: ['data.*'], deny: ['data.write'] }), WRITE, 'deny'],
    ['deny cap unsure, later name rule denies', policy({ deny: ['x:admin', '*.purge'] }), UNKNOWN, 'deny', 'rule "*.purge"'],
    // ask-actions
    ['ask glob', policy({ ask: ['data.*'] }), WRITE, 'ask', 'data.write (rule "data.*" in ask-actions, set in'],
    ['ask glob, read action', policy({ ask: ['projects.*'] }), READ, 'ask'],
    ['ask glob, not matching', policy({ ask: ['storage.*'] }), READ, undefined],
    ['ask capability', policy({ ask: ['data:write'] }), WRITE, 'ask', 'rule "data:write" in ask-actions'],
    ['ask capability, unknown action', policy({ ask: ['data:write'] }), UNKNOWN, 'ask', 'rule "data:write" in ask-actions'],
    ['ask before confirm-writes', policy({ preset: 'confirm-writes', ask: ['data.*'] }), WRITE, 'ask', 'rule "data.*" in ask-actions'],
    ['readonly deny over ask', policy({ preset: 'readonly', ask: ['data.*'] }), WRITE, 'deny', 'policy readonly'],
    ['readonly: unsure deny rule loses to the preset', policy({ preset: 'readonly', deny: ['x:admin'] }), WRITE, 'deny', 'policy readonly'],
    ['confirm-writes, unsure deny rule: ask naming the rule', policy({ preset: 'confirm-writes', deny: ['x:admin'] }), UNKNOWN, 'ask', 'rule "x:admin" in deny-actions may apply'],
  ];

  it.each(table)('%s', (_name, effect, step, permission, text) => {
    const answer = decidePolicy(effect, [step], { pluginRoot: '/p' });
    expect(answer.permission).toBe(permission);
    expect((answer as { permission?: string }).permission).not.toBe('allow');
    if (!permission) expect(answer).toEqual({});
    if (text) expect(answer.user_message).toContain(text);
    if (permission) expect(answer.agent_message).toContain(step.action);
  });

  it('deny names the action, the rule, where it is set and how to change it', () => {
    const deny = decidePolicy(policy({ deny: ['projects.*'] }), [ADMIN], { pluginRoot: '/p' });
    expect(deny).toEqual({
      permission: 'deny',
      user_message: `AgentStack blocked this call: your rules deny projects.delete (rule "projects.*" in deny-actions, set in ${FILE}). To change that: node /p/scripts/config.mjs set deny-actions … (or unset deny-actions).`,
      agent_message: 'AgentStack call blocked by the person\'s per-action rules: projects.delete. Do not retry or work around it; tell the person which action was refused.',
    });
    const fromEnv = decidePolicy(policy({ preset: 'readonly' }, { policy: { origin: 'env', source: 'AGENTSTACK_POLICY' } }), [WRITE]);
    expect(fromEnv.user_message).toContain("set by AGENTSTACK_POLICY in Cursor's environment). To change that: change or unset AGENTSTACK_POLICY where Cursor is started, then restart Cursor.");
    const noRoot = decidePolicy(policy({ deny: ['data.write'] }), [WRITE]);
    // Without a root given: the scripts of the copy that runs.
    expect(noRoot.user_message).toContain(`To change that: ${pluginCommand('scripts/config.mjs')} set deny-actions … (or unset deny-actions).`);
  });

  it('several steps: the strictest answer, naming every action it concerns', () => {
    const steps = [READ, WRITE, ADMIN];
    const mixed = decidePolicy(policy({ preset: 'confirm-writes', deny: ['projects.delete'] }), steps);
    expect(mixed.permission).toBe('deny');
    expect(mixed.user_message).toContain('projects.delete');
    expect(mixed.user_message).not.toContain('data.write');
    const asks = decidePolicy(policy({ preset: 'confirm-writes' }), steps);
    expect(asks).toEqual({
      permission: 'ask',
      user_message: `AgentStack: your rules ask before data.write (policy confirm-writes: it needs "data:write", which is not a read capability, set in ${FILE}); projects.delete (policy confirm-writes: it needs "projects:admin", which is not a read capability, set in ${FILE}). Allow only if you want them to run.`,
      agent_message: "The person's AgentStack rules ask them to confirm data.write, projects.delete; wait for their answer.",
    });
    const one = decidePolicy(policy({ preset: 'confirm-writes' }), [WRITE]);
    expect(one.user_message).toMatch(/Allow only if you want it to run\.$/);
    expect(decidePolicy(policy({ preset: 'confirm-writes' }), [READ, FREE])).toEqual({});
    expect(decidePolicy(policy({ preset: 'readonly' }), [])).toEqual({});
  });

  it('many actions: five named, the rest counted', () => {
    const steps = Array.from({ length: 7 }, (_, i) => ({ action: `data.w${i}`, known: true, cap: 'data:write' }));
    const ask = decidePolicy(policy({ preset: 'confirm-writes' }), steps);
    expect(ask.user_message).toContain('data.w4 (');
    expect(ask.user_message).not.toContain('data.w5');
    expect(ask.user_message).toContain('; and 2 more.');
    expect(ask.agent_message).toContain('data.w0, data.w1, data.w2, data.w3, data.w4 and 2 more;');
    const deny = decidePolicy(policy({ preset: 'readonly' }), steps);
    expect(deny.agent_message).toContain('data.w4 and 2 more.');
    const five = decidePolicy(policy({ preset: 'readonly' }), steps.slice(0, 5));
    expect(five.agent_message).toContain('data.w4. Do not');
    expect(five.user_message).not.toContain('more');
    const fiveAsked = decidePolicy(policy({ preset: 'confirm-writes' }), steps.slice(0, 5));
    expect(fiveAsked.user_message).toContain('data.w4 (');
    expect(fiveAsked.user_message).not.toContain('more');
    expect(fiveAsked.agent_message).toContain('data.w3, data.w4; wait');
  });

  it('an unreadable policy: ask for every execute call, saying why', () => {
    const answer = decidePolicy({ kind: 'unreadable', reason: 'the settings file is not valid JSON' }, [READ]);
    expect(answer).toEqual({
      permission: 'ask',
      user_message: `AgentStack could not read your per-action rules (the settings file is not valid JSON), so every AgentStack call asks until they are fixed. Check them with ${pluginCommand('scripts/config.mjs')} list or diagnose-local.`,
      agent_message: "The person's AgentStack per-action rules cannot be read, so they are asked to confirm every AgentStack call.",
    });
    expect(decidePolicy({ kind: 'unreadable', reason: 'r' }, []).permission).toBe('ask');
  });
});

describe('steps and the strictest of two answers', () => {
  it('steps: once per action, with what the snapshot says; none for unreadable arguments', () => {
    const args = parseExecuteArgs(JSON.stringify({ steps: [{ action: 'data.write' }, { action: 'system.ping' }, { action: 'data.write' }, { action: 'nope' }] }));
    expect(policySteps(args, fourActionSnapshot())).toEqual([
      { action: 'data.write', known: true, cap: 'data:write' },
      { action: 'system.ping', known: true, cap: null },
      { action: 'nope', known: false, cap: null, unknown: 'the capability snapshot does not list it' },
    ]);
    const none = { known: false, cap: null, unknown: 'there is no capability snapshot yet' };
    expect(policySteps(args, { kind: 'missing' })).toEqual([
      { action: 'data.write', ...none }, { action: 'system.ping', ...none }, { action: 'nope', ...none },
    ]);
    expect(policySteps(args, null)[0]).toEqual({ action: 'data.write', ...none });
    expect(policySteps(args, { kind: 'malformed' })[0]).toEqual({ action: 'data.write', known: false, cap: null, unknown: 'the capability snapshot cannot be read' });
    expect(policySteps(parseExecuteArgs('{oops'), fourActionSnapshot())).toEqual([]);
  });

  it('deny over ask over neutral; equal answers say both', () => {
    const deny = { permission: 'deny' as const, user_message: 'D', agent_message: 'd' };
    const ask = { permission: 'ask' as const, user_message: 'A', agent_message: 'a' };
    const neutral = { agent_message: 'n' };
    expect(strictest(ask, deny)).toBe(deny);
    expect(strictest(deny, ask)).toBe(deny);
    expect(strictest(neutral, ask)).toBe(ask);
    expect(strictest(ask, {})).toBe(ask);
    expect(strictest(neutral, {})).toBe(neutral);
    expect(strictest({}, neutral)).toEqual({});
    expect(strictest(ask, { permission: 'ask', user_message: 'B', agent_message: 'b' })).toEqual({ permission: 'ask', user_message: 'A B', agent_message: 'a b' });
    expect(strictest(deny, { permission: 'deny', user_message: 'E' })).toEqual({ permission: 'deny', user_message: 'D E', agent_message: 'd' });
    // No key for a message neither answer has (JSON output would not show it, but the answer's shape is exact).
    expect(strictest({ permission: 'ask' }, { permission: 'ask', agent_message: 'b' })).toStrictEqual({ permission: 'ask', agent_message: 'b' });
    expect(strictest({ permission: 'ask', user_message: 'a' }, { permission: 'ask' })).toStrictEqual({ permission: 'ask', user_message: 'a' });
    expect(strictest({ permission: 'ask' }, { permission: 'ask' })).toStrictEqual({ permission: 'ask' });
  });
});

describe('the rules in one line (session card, diagnose)', () => {
  it('none: no card line; some: each part and where it is set; unreadable: said', () => {
    expect(policyNotice(policy({}))).toBeNull();
    expect(describePolicy(policy({}))).toBe("default: no per-action rules (Cursor's own approval applies)");
    const some = policy({ preset: 'readonly', ask: ['a.*'], deny: ['b', 'c:admin'] }, { policy: { origin: 'env', source: 'AGENTSTACK_POLICY' } });
    expect(policyNotice(some, (p) => p.replace('/home/u', '~'))).toBe('policy readonly (env AGENTSTACK_POLICY); ask-actions a.* (~/.cursor/agentstack-settings.json); deny-actions b,c:admin (~/.cursor/agentstack-settings.json)');
    const listOnly = { kind: 'ok', policy: { ...NO_POLICY, deny: ['b'], from: { ...NO_POLICY.from, 'deny-actions': settingsFrom } } } as PolicyInEffect;
    expect(describePolicy(listOnly)).toBe(`policy default; deny-actions b (${FILE})`);
    expect(policyNotice({ kind: 'unreadable', reason: 'r' })).toBe('the per-action rules cannot be read (r): every AgentStack call asks until they are fixed');
    const card = (p: string | null) => renderCard({ serverUrl: 'https://x/mcp', account: { state: 'signed_in', expiresAt: null, apiKey: false }, who: null, project: { id: null, reason: 'account_default', source: null, nextSignIn: null }, capabilities: { count: 3 }, policy: p, pluginRoot: '/p', notes: [], todo: [], now: 0 });
    expect(card('policy readonly').split('\n')).toContain('- Per-action rules: policy readonly');
    expect(card(null)).not.toContain('Per-action rules');
  });
});
