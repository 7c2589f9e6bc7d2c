/** Each `deny` and `ask` of the pre-MCP checks says the kind of its reason (for the activity journal), off the answer Cursor reads. */
import { describe, expect, it } from 'vitest';
import { NO_POLICY, type PolicyInEffect } from '../../lib/agentstack/policy/effective.js';
import { decidePreMcp, type PreMcpContext } from '../../lib/commands/preMcp/decide.js';
import { decidePolicy, strictest } from '../../lib/commands/preMcp/policy.js';
import { reasonsOf } from '../../lib/commands/preMcp/reason.js';
import { fourActionSnapshot } from '../helpers/fixtures.js';

const BASE = 'https://agentstack.tech';
const call = (steps: unknown) => ({ tool_name: 'agentstack.execute', tool_input: typeof steps === 'string' ? steps : JSON.stringify({ steps }), url: `${BASE}/mcp` });
const ctx = (input: PreMcpContext['input'], more: Partial<PreMcpContext> = {}): PreMcpContext => ({ input, snapshot: fourActionSnapshot(), claims: null, now: Date.now(), knownBaseUrls: [BASE], ...more });
const from = { origin: 'settings' as const, source: '/s.json' };
const rules = (p: Partial<typeof NO_POLICY>): PolicyInEffect => ({ kind: 'ok', policy: { ...NO_POLICY, ...p, from: { policy: from, 'ask-actions': from, 'deny-actions': from } } });

describe('the kinds of reason', () => {
  it('the capability check: unknown action, missing capability, not yet approved, unreadable arguments', () => {
    expect(reasonsOf(decidePreMcp(ctx(call([{ id: '1', action: 'projects.lsit' }]))))).toEqual(['unknown_action']);
    expect(reasonsOf(decidePreMcp(ctx(call([{ id: '1', action: 'data.write' }]), { claims: { caps: ['projects:read'] } })))).toEqual(['missing_capability']);
    expect(reasonsOf(decidePreMcp(ctx(call([{ id: '1', action: 'projects.create' }]), { snapshot: fourActionSnapshot({ unapproved: ['projects.create'] }) })))).toEqual(['unapproved_action']);
    expect(reasonsOf(decidePreMcp(ctx(call('{oops'))))).toEqual(['unreadable_arguments']);
    expect(reasonsOf(decidePreMcp(ctx(call([{ id: '1', action: 'projects.list' }]))))).toEqual([]);
  });

  it('the person\'s rules, by the key that set them; both sides of an answer that merges two', () => {
    const deny = decidePolicy(rules({ deny: ['data.*'] }), [{ action: 'data.write', known: true, cap: 'data:write' }]);
    expect(reasonsOf(deny)).toEqual(['rule:deny-actions']);
    const ask = decidePolicy(rules({ ask: ['projects.*'], preset: 'confirm-writes' }), [{ action: 'projects.list', known: true, cap: 'projects:read' }, { action: 'data.write', known: true, cap: 'data:write' }]);
    expect(reasonsOf(ask)).toEqual(['rule:ask-actions', 'rule:policy']);
    expect(reasonsOf(decidePolicy({ kind: 'unreadable', reason: 'bad glob' } as PolicyInEffect, []))).toEqual(['rules_unreadable']);
    const unapproved = decidePreMcp(ctx(call([{ id: '1', action: 'projects.create' }]), { snapshot: fourActionSnapshot({ unapproved: ['projects.create'] }) }));
    expect(reasonsOf(strictest(unapproved, ask))).toEqual(['unapproved_action', 'rule:ask-actions', 'rule:policy']);
    expect(reasonsOf(strictest(unapproved, deny))).toEqual(['rule:deny-actions']);
  });

  it('the reason is never in what Cursor reads', () => {
    const answer = decidePreMcp(ctx(call([{ id: '1', action: 'projects.lsit' }])));
    expect(Object.keys(answer).sort()).toEqual(['agent_message', 'permission', 'user_message']);
    expect(JSON.stringify(answer)).not.toContain('unknown_action');
  });
});
