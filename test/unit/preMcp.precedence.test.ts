/**
 * The pre-MCP decision's precedence, from its public behaviour: what cannot work is denied before anything is
 * asked (deny beats ask), an unknown action before a missing capability, and nothing is ever answered `allow`.
 */
import { pluginCommand } from '../../lib/agentstack/plugin/root.js';
import { describe, expect, it } from 'vitest';
import { decidePreMcp, grantedCaps, parseExecuteArgs, type PreMcpContext } from '../../lib/commands/preMcp/decide.js';
import { closestActions } from '../../lib/commands/preMcp/suggest.js';
import { boundedEditDistance } from '../../lib/platform/text/editDistance.js';
import { indexSnapshot } from '../../lib/agentstack/snapshot/actionIndex.js';
import { fourActionSnapshot } from '../helpers/fixtures.js';

const BASE = 'https://agentstack.tech';
const snapshot = (unapproved: string[] = []) => fourActionSnapshot({ unapproved });
const call = (...actions: string[]) => ({
  tool_name: 'agentstack.execute',
  tool_input: JSON.stringify({ steps: actions.map((action, i) => ({ id: String(i), action, params: {} })) }),
  url: `${BASE}/mcp`,
});
const decide = (input: PreMcpContext['input'], more: Partial<PreMcpContext> = {}) =>
  decidePreMcp({ input, snapshot: snapshot(), claims: null, now: Date.now(), knownBaseUrls: [BASE], ...more });

describe('deny beats ask', () => {
  it('an unapproved action the token lacks the capability for is denied, not asked', () => {
    const answer = decide(call('data.write'), { snapshot: snapshot(['data.write']), claims: { caps: ['projects:read'] } });
    expect(answer.permission).toBe('deny');
    expect(answer.user_message).toContain('"data:write"');
  });

  it('one unapproved action and one missing capability in the same call: deny', () => {
    const answer = decide(call('projects.create', 'data.write'), { snapshot: snapshot(['projects.create']), claims: { caps: ['projects:write'] } });
    expect(answer.permission).toBe('deny');
    expect(answer.agent_message).toContain('data.write needs "data:write"');
  });

  it('an unknown action next to an unapproved one: deny, naming the unknown one', () => {
    const answer = decide(call('system.ping', 'projects.lst'), { snapshot: snapshot(['system.ping']) });
    expect(answer.permission).toBe('deny');
    expect(answer.user_message).toContain('unknown action "projects.lst" (closest: projects.list');
  });

  it('unknown beats missing capability: the unknown action is what is reported', () => {
    const answer = decide(call('data.write', 'nope.nothing'), { claims: { caps: [] } });
    expect(answer.permission).toBe('deny');
    expect(answer.user_message).toContain('unknown action "nope.nothing" (no similar action)');
    expect(answer.user_message).not.toContain('capability');
  });

  it('control: the same unapproved action with the capability granted is asked', () => {
    const answer = decide(call('data.write'), { snapshot: snapshot(['data.write']), claims: { caps: ['data:write'] } });
    expect(answer.permission).toBe('ask');
    expect(answer.user_message).toContain('data.write');
  });

  it('never answers allow, whatever the call', () => {
    const answers = [
      decide(call('system.ping')), decide(call('data.write'), { claims: { caps: 'data:write projects:read' } }),
      decide(call('data.write'), { snapshot: snapshot(['data.write']) }), decide(call('x.y')), decide(call('data.write'), { claims: { caps: [] } }),
    ];
    for (const answer of answers) expect(answer.permission === undefined || answer.permission === 'deny' || answer.permission === 'ask').toBe(true);
  });
});

describe('capabilities and messages', () => {
  it('reads caps as an array (strings only) or a space-separated string; anything else checks nothing', () => {
    expect(grantedCaps({ caps: ['a', 5, 'b'] })).toEqual(new Set(['a', 'b']));
    expect(grantedCaps({ caps: ' a  b ' })).toEqual(new Set(['a', 'b']));
    expect(grantedCaps({ caps: 5 })).toBeNull();
    expect(grantedCaps(null)).toBeNull();
    expect(decide(call('data.write'), { claims: { caps: 5 } })).toEqual({});
  });

  it('an action without a required capability passes with any caps', () => {
    expect(decide(call('system.ping'), { claims: { caps: [] } })).toEqual({});
  });

  it('names each missing capability once, and at most five actions then "and N more"', () => {
    const actions = Array.from({ length: 7 }, (_, i) => `a${i}.x`);
    const index = indexSnapshot({ fetched_at: new Date().toISOString(), audience: 'tenant', total_actions: 7, actions: actions.map((action) => ({ action, required_cap: 'c:w' })), unapproved: actions })!;
    const denied = decide(call(...actions, actions[0]!), { snapshot: { kind: 'ok', index }, claims: { caps: ['other'] } });
    expect(denied.permission).toBe('deny');
    expect(denied.user_message).toContain('lacks the capability "c:w" (');
    expect(denied.user_message).toContain('a4.x needs "c:w" and 2 more)');
    expect(denied.user_message!.match(/a0\.x/g)).toHaveLength(1);
    const asked = decide(call(...actions, actions[1]!), { snapshot: { kind: 'ok', index }, claims: { caps: ['c:w'] } });
    expect(asked.permission).toBe('ask');
    expect(asked.user_message).toContain('uses actions added');
    expect(asked.user_message).toContain('a0.x, a1.x, a2.x, a3.x, a4.x and 2 more');
    expect(asked.user_message!.match(/a1\.x/g)).toHaveLength(1);
    const one = decide(call('a0.x'), { snapshot: { kind: 'ok', index }, claims: null });
    expect(one.user_message).toContain('uses an action added');
  });

  it('the approval command names the plugin root when known', () => {
    const at = decide(call('data.write'), { snapshot: snapshot(['data.write']), pluginRoot: '/p/agentstack' });
    expect(at.user_message).toContain('node /p/agentstack/scripts/diagnose-local.mjs --approve-actions');
    // Without a root given: the copy of the plugin that runs.
    const unknown = decide(call('data.write'), { snapshot: snapshot(['data.write']) });
    expect(unknown.user_message).toContain(`${pluginCommand('scripts/diagnose-local.mjs')} --approve-actions`);
  });

  it('without a usable snapshot: neutral, with a note to the agent saying why', () => {
    expect(decide(call('x.y'), { snapshot: { kind: 'missing' } })).toEqual({ agent_message: expect.stringContaining('does not exist yet') });
    expect(decide(call('x.y'), { snapshot: null }).agent_message).toContain('does not exist yet');
    expect(decide(call('x.y'), { snapshot: { kind: 'malformed' } }).agent_message).toContain('is unreadable');
  });

  it('lists at most five unknown actions', () => {
    const answer = decide(call('u1.x', 'u2.x', 'u3.x', 'u4.x', 'u5.x', 'u6.x', 'u1.x'));
    expect(answer.user_message!.match(/"u\d\.x"/g)).toEqual(['"u1.x"', '"u2.x"', '"u3.x"', '"u4.x"', '"u5.x"']);
  });
});

describe('parsing tool_input', () => {
  it('names where a shape is wrong, and refuses deeper encodings than two', () => {
    expect(parseExecuteArgs('not json')).toEqual({ kind: 'invalid', reason: 'tool_input is not valid JSON' });
    expect(parseExecuteArgs({ steps: [{ action: 5 }] })).toEqual({ kind: 'invalid', reason: 'tool_input has an unexpected shape at steps.0.action' });
    expect(parseExecuteArgs(5)).toEqual({ kind: 'invalid', reason: 'tool_input has an unexpected shape at (root)' });
    const once = JSON.stringify({ steps: [{ action: 'a.b' }] });
    expect(parseExecuteArgs(JSON.stringify(once))).toMatchObject({ kind: 'ok' });
    expect(parseExecuteArgs(JSON.stringify(JSON.stringify(once))).kind).toBe('invalid');
  });
});

describe('closest action names', () => {
  it('bounded edit distance: exact, cut off past the bound, and by length alone', () => {
    expect(boundedEditDistance('abc', 'abc', 2)).toBe(0);
    expect(boundedEditDistance('abc', 'abd', 2)).toBe(1);
    expect(boundedEditDistance('abc', 'ba', 3)).toBe(2);
    expect(boundedEditDistance('a', 'abcd', 2)).toBe(3);
    expect(boundedEditDistance('kitten', 'sitting', 3)).toBe(3);
    expect(boundedEditDistance('kitten', 'sitting', 2)).toBe(3);
  });

  it('suggests the nearest names first, then same-prefix and same-domain ones, up to the limit; nothing unrelated', () => {
    const names = ['projects.create', 'projects.lost', 'data.read', 'projects.list', 'data.write'];
    expect(closestActions('projects.lst', names)).toEqual(['projects.lost', 'projects.list', 'projects.create']);
    expect(closestActions('PROJECTS.LIST', names)).toEqual(['projects.list', 'projects.lost', 'projects.create']);
    expect(closestActions('data', ['x.y', 'data.read', 'database.dump'])).toEqual(['data.read', 'database.dump']);
    expect(closestActions('projects.lst', names, 1)).toEqual(['projects.lost']);
    expect(closestActions('zzzzzzzz', names)).toEqual([]);
  });
});

describe('messages, exactly', () => {
  it('names up to five without "and N more"; names a duplicate unknown action once', () => {
    const five = ['u1.x', 'u2.x', 'u3.x', 'u4.x', 'u5.x'];
    const index = indexSnapshot({ fetched_at: new Date().toISOString(), audience: 'tenant', total_actions: 5, actions: five.map((action) => ({ action, required_cap: 'c:w' })) })!;
    const denied = decide(call(...five), { snapshot: { kind: 'ok', index }, claims: { caps: [] } });
    expect(denied.agent_message).toBe('AgentStack call blocked: missing capability u1.x needs "c:w", u2.x needs "c:w", u3.x needs "c:w", u4.x needs "c:w", u5.x needs "c:w". Do not retry; the person can re-login with a scope preset that grants it (/agentstack-login).');
    const twice = decide(call('nope.x', 'nope.x', 'other.y'));
    expect(twice.user_message).toBe('AgentStack blocked this call: unknown action "nope.x" (no similar action); "other.y" (no similar action).');
    expect(twice.agent_message).toBe('AgentStack has no action "nope.x" (no similar action); "other.y" (no similar action). Use an existing action name (the action "actions.list" lists them) and call again.');
  });

  it('lists every near name and every missing capability, comma-separated', () => {
    expect(decide(call('projects.lst')).user_message).toBe('AgentStack blocked this call: unknown action "projects.lst" (closest: projects.list, projects.create).');
    const two = decide(call('projects.create', 'data.write'), { claims: { caps: [] } });
    expect(two.user_message).toContain('lacks the capability "projects:write", "data:write" (projects.create needs "projects:write", data.write needs "data:write")');
  });

  it('the ask answers say what happened to both the person and the agent', () => {
    const unreadable = decide({ ...call(), tool_input: 'not json' });
    expect(unreadable).toEqual({
      permission: 'ask',
      user_message: "AgentStack could not read this call's arguments (tool_input is not valid JSON), so its actions were not checked. Allow only if you expect this call.",
      agent_message: 'The AgentStack pre-call check could not parse tool_input (tool_input is not valid JSON). Send {"steps": [{"id", "action", "params"}]} as the arguments.',
    });
    const asked = decide(call('data.write'), { snapshot: snapshot(['data.write']) });
    expect(asked.agent_message).toBe('The AgentStack action(s) data.write appeared since the person last approved the action list; they are asked to confirm this call.');
  });
});

describe('edit distance and suggestions, at their edges', () => {
  it('computes distances up to the bound exactly, and max + 1 beyond it', () => {
    expect(boundedEditDistance('a', 'abc', 2)).toBe(2);
    expect(boundedEditDistance('ab', '', 3)).toBe(2);
    expect(boundedEditDistance('', 'ab', 3)).toBe(2);
    expect(boundedEditDistance('abc', 'xyz', 3)).toBe(3);
    expect(boundedEditDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });

  it('allows a third of the name in edits (at least 2)', () => {
    expect(closestActions('abcdefghijkl', ['abcdefghiXYZ'])).toEqual(['abcdefghiXYZ']);
    expect(closestActions('abcdef', ['abcdxy'])).toEqual(['abcdxy']);
    expect(closestActions('abcdef', ['abcxyz'])).toEqual([]);
  });

  it('ranks by distance, then prefix matches, then same-domain names', () => {
    expect(closestActions('abcdef', ['abcdefghij', 'abcdXY'])).toEqual(['abcdXY', 'abcdefghij']);
    expect(closestActions('data.read.everything', ['data'])).toEqual(['data']);
    expect(closestActions('data.reed', ['data.zzzzzzzzzz', 'data.read'])).toEqual(['data.read', 'data.zzzzzzzzzz']);
    expect(closestActions('data.zzzzzzzz', ['dat.a', 'database.dump', 'data.read'])).toEqual(['data.read']);
    expect(closestActions('.zzzzzz', ['.abcdefgh'])).toEqual([]);
  });

  it('keeps the snapshot order among equals, however many', () => {
    const names = Array.from({ length: 120 }, (_, i) => `dom.action_number_${String(i).padStart(3, '0')}`);
    expect(closestActions('dom.zz', names, 120)).toEqual(names);
  });
});
