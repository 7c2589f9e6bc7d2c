import { describe, expect, it } from 'vitest';
import { decidePreMcp, grantedCaps, parseExecuteArgs, undefinedKeys, type PreMcpContext } from '../../lib/commands/preMcp/decide.js';
import { classifyRawInput } from '../../lib/commands/preMcp/front.js';
import { callIdentity, isAgentStackCall, splitToolName } from '../../lib/agentstack/server/callIdentity.js';
import { indexSnapshot, scanSnapshot } from '../../lib/agentstack/snapshot/actionIndex.js';
import { closestActions } from '../../lib/commands/preMcp/suggest.js';
import { boundedEditDistance } from '../../lib/platform/text/editDistance.js';
import { knownBaseUrls } from '../../lib/commands/preMcp/run.js';
import { bigSnapshot, fourActionSnapshot } from '../helpers/fixtures.js';

const BASE = 'https://agentstack.tech';
const snapshotOf = fourActionSnapshot;
const call = (steps: unknown, extra: Record<string, unknown> = {}) => ({
  tool_name: 'agentstack.execute',
  tool_input: typeof steps === 'string' ? steps : JSON.stringify({ steps }),
  url: `${BASE}/mcp`,
  ...extra,
});
const ctx = (input: PreMcpContext['input'], more: Partial<PreMcpContext> = {}): PreMcpContext => ({
  input, snapshot: snapshotOf(), claims: null, now: Date.now(), knownBaseUrls: [BASE], ...more,
});

describe('pre-MCP decision', () => {
  it('answers other servers and other tools neutrally ({}; never "allow")', () => {
    expect(decidePreMcp(ctx({ tool_name: 'search', url: 'https://x.example/mcp' }))).toEqual({});
    expect(decidePreMcp(ctx(call([{ action: 'nope' }], { url: 'https://other.example/mcp' })))).toEqual({});
    expect(decidePreMcp(ctx(call([{ action: 'nope' }], { url: undefined, command: 'npx srv', mcp_server_name: 'user-other' })))).toEqual({});
    expect(decidePreMcp(ctx(null))).toEqual({});
    expect(classifyRawInput({ tool_name: 'read_file' })).toEqual({ kind: 'neutral' });
  });

  it('passes a known, granted, approved call without widening it', () => {
    expect(decidePreMcp(ctx(call([{ id: 1, action: 'projects.list' }]), { claims: { caps: ['projects:read'] } }))).toEqual({});
  });

  it('denies an unknown action and names the closest existing ones', () => {
    const answer = decidePreMcp(ctx(call([{ id: '1', action: 'projects.lst' }])));
    expect(answer.permission).toBe('deny');
    expect(answer.agent_message).toContain('projects.list');
    expect(answer.user_message).toContain('projects.lst');
  });

  it('asks instead of denying an unknown action when the server\'s list had entries the plugin could not read', () => {
    const answer = decidePreMcp(ctx(call([{ action: 'projects.lst' }, { action: 'projects.list' }]), { snapshot: snapshotOf({ skipped_entries: 2 }) }));
    expect(answer.permission).toBe('ask');
    expect(answer.user_message).toContain('"projects.lst"');
    expect(answer.user_message).toContain('2 entries the plugin could not read');
    expect(answer.agent_message).toContain('projects.list');
    expect(decidePreMcp(ctx(call([{ action: 'projects.lst' }]), { snapshot: snapshotOf({ skipped_entries: 1 }) })).user_message).toContain('had 1 entry the plugin could not read');
    const two = decidePreMcp(ctx(call([{ action: 'projects.lst' }, { action: 'data.wrte' }]), { snapshot: snapshotOf({ skipped_entries: 2 }) }));
    expect(two.user_message).toMatch(/"projects\.lst" \(closest: [^)]*\); "data\.wrte"/);
    expect(two.agent_message).toMatch(/"projects\.lst" \(closest: [^)]*\); "data\.wrte"/);
    // nothing skipped (0 or absent): the unknown action is denied as before
    expect(decidePreMcp(ctx(call([{ action: 'projects.lst' }]), { snapshot: snapshotOf({ skipped_entries: 0 }) })).permission).toBe('deny');
    expect(decidePreMcp(ctx(call([{ action: 'projects.lst' }]), { snapshot: snapshotOf({ skipped_entries: null }) })).permission).toBe('deny');
    // a known action is judged as always, skipped entries or not
    expect(decidePreMcp(ctx(call([{ action: 'data.write' }]), { snapshot: snapshotOf({ skipped_entries: 2 }), claims: { caps: ['projects:read'] } })).permission).toBe('deny');
  });

  it('denies a step whose required capability the token lacks, naming it', () => {
    const answer = decidePreMcp(ctx(call([{ action: 'projects.list' }, { action: 'data.write' }]), { claims: { caps: ['projects:read'] } }));
    expect(answer.permission).toBe('deny');
    expect(answer.user_message).toContain('"data:write"');
    expect(answer.agent_message).toContain('data.write');
    // no caps claim: nothing to check against
    expect(decidePreMcp(ctx(call([{ action: 'data.write' }]), { claims: { sub: 'u' } }))).toEqual({});
  });

  it('asks before an action added since the last approval, naming it', () => {
    const answer = decidePreMcp(ctx(call([{ action: 'projects.create' }]), { snapshot: snapshotOf({ unapproved: ['projects.create'] }), pluginRoot: '/p' }));
    expect(answer.permission).toBe('ask');
    expect(answer.user_message).toContain('projects.create');
    expect(answer.user_message).toContain('--approve-actions');
  });

  it('is neutral with a sign-in hint when there is no usable snapshot', () => {
    for (const snapshot of [null, { kind: 'missing' } as const, { kind: 'malformed' } as const]) {
      const answer = decidePreMcp(ctx(call([{ action: 'x.y' }]), { snapshot }));
      expect(answer.permission).toBeUndefined();
      expect(answer.agent_message).toMatch(/agentstack-authorize/);
    }
  });

  it('asks (never crashes) when tool_input cannot be read, and accepts an object or a double-encoded string', () => {
    for (const bad of ['{not json', JSON.stringify({ steps: 'x' }), JSON.stringify([1])]) {
      expect(decidePreMcp(ctx(call(bad))).permission).toBe('ask');
    }
    expect(decidePreMcp(ctx({ ...call([]), tool_input: { steps: [{ action: 'nope.x' }] } })).permission).toBe('deny');
    expect(parseExecuteArgs(JSON.stringify(JSON.stringify({ steps: [{ action: 'a' }] }))).kind).toBe('ok');
  });

  it('identifies AgentStack by Cursor server name or by url base', () => {
    const isAgentStackServer = (raw: Record<string, unknown>, bases: string[]) => isAgentStackCall(callIdentity(raw), bases);
    expect(isAgentStackServer({ tool_name: 'agentstack_execute', mcp_server_name: 'plugin-agentstack-agentstack' }, [])).toBe(true);
    expect(isAgentStackServer({ tool_name: 'MCP:user-agentstack:agentstack.execute' }, [])).toBe(true);
    expect(isAgentStackServer({ tool_name: 'agentstack.execute', url: 'http://127.0.0.1:9/mcp' }, ['http://127.0.0.1:9'])).toBe(true);
    expect(isAgentStackServer({ tool_name: 'agentstack.execute', url: 'https://evil.example/mcp' }, [BASE])).toBe(false);
    expect(splitToolName('MCP:a:b.c')).toEqual({ server: 'a', tool: 'b.c', form: 'mcp-server-prefix' });
    const config = { mcpServers: { agentstack: { url: 'https://staging.agentstack.tech/mcp' } } };
    expect(knownBaseUrls(config, { AGENTSTACK_BASE_URL: 'http://127.0.0.1:5' })).toEqual([BASE, 'https://staging.agentstack.tech', 'http://127.0.0.1:5']);
    expect(knownBaseUrls({}, { AGENTSTACK_BASE_URL: 'ftp://x' })).toEqual([BASE]);
  });

  it('reads caps as an array or a space-separated string', () => {
    expect([...grantedCaps({ caps: ['a', 1, 'b'] })!]).toEqual(['a', 'b']);
    expect([...grantedCaps({ caps: 'a b' })!]).toEqual(['a', 'b']);
    expect(grantedCaps({})).toBeNull();
    // whichever claim the server uses for granted scopes: caps, then scp, then scope
    expect([...grantedCaps({ scp: ['data:read', 'x'] })!]).toEqual(['data:read', 'x']);
    expect([...grantedCaps({ scope: 'openid data:read' })!]).toEqual(['openid', 'data:read']);
    expect([...grantedCaps({ caps: ['a'], scope: 'b' })!]).toEqual(['a']);
    expect(grantedCaps({ caps: 42, sub: 'x' })).toBeNull();
  });

  it('rejects snapshot files of the wrong shape', () => {
    expect(indexSnapshot({ audience: 'tenant', actions: [] })).toBeNull();
    expect(indexSnapshot({ fetched_at: 'x', audience: 'tenant', actions: [{ action: 1 }] })).toBeNull();
    expect(indexSnapshot({ fetched_at: 'x', audience: 'tenant', actions: 'no' })).toBeNull();
  });
});

describe('snapshot fast scan', () => {
  const big = { ...bigSnapshot(5000), unapproved: ['data.op_11'] };
  big.actions[7] = { ...big.actions[7]!, summary: 'has } and { and "action": "fake.one" inside' };
  const pretty = `${JSON.stringify(big, null, 2)}\n`;

  it('agrees with the full parse for the actions of a call, and proves nothing it cannot find', () => {
    const wanted = new Set(['system.ping', 'projects.list', 'data.op_11', big.actions[8]!.action]);
    const fast = scanSnapshot(pretty, wanted)!;
    const full = indexSnapshot(big)!;
    for (const name of wanted) expect([fast.has(name), fast.capOf(name)]).toEqual([full.has(name), full.capOf(name)]);
    expect([...fast.unapproved]).toEqual(['data.op_11']);
    expect(fast.names()).toEqual(full.names());
    expect([fast.skipped, full.skipped]).toEqual([0, 0]);
    const skipped = { ...big, skipped_entries: 3 };
    const skippedText = `${JSON.stringify(skipped, null, 2)}\n`;
    expect([scanSnapshot(skippedText, wanted)!.skipped, indexSnapshot(skipped)!.skipped]).toEqual([3, 3]);
    expect(scanSnapshot(pretty, new Set(['fake.one']))).toBeNull();
    expect(scanSnapshot(pretty, new Set([big.actions[7]!.action]))).toBeNull(); // braces in its summary: full parse
    expect(scanSnapshot(pretty, new Set(['nope.none']))).toBeNull();
    expect(scanSnapshot(JSON.stringify(big), new Set(['system.ping']))).toBeNull();
    expect(scanSnapshot(pretty.replace('"audience": "tenant"', '"audience": "operator"'), new Set(['system.ping']))).toBeNull();
  });
});

describe('suggestions', () => {
  it('bounded edit distance', () => {
    expect(boundedEditDistance('kitten', 'sitting', 5)).toBe(3);
    expect(boundedEditDistance('a', 'abcdef', 2)).toBe(3);
  });

  // How fast is the bench's business (npm run bench, pre-MCP against 5,000 actions), not a timed unit test's.
  it('finds near names among 5,000 actions', () => {
    const names = bigSnapshot(5000).actions.map((a) => a.action);
    const near = closestActions('projects.op_4990x', names);
    expect(near[0]).toBe('projects.op_4990');
    expect(closestActions('projects', names).every((n) => n.startsWith('projects'))).toBe(true);
    expect(closestActions('zzzzzzzzzzzz', names)).toEqual([]);
  });
});

describe('the keys of an execute call the contract does not define', () => {
  it('named at the top and in each step, at most three; steps, options, id, action and params are the contract\'s', () => {
    const args = (value: unknown) => { const p = parseExecuteArgs(value); if (p.kind !== 'ok') throw new Error(p.reason); return p.args; };
    expect(undefinedKeys(args({ steps: [{ id: '1', action: 'a.b', params: {} }], options: {} }))).toEqual([]);
    expect(undefinedKeys(args({ steps: [{ id: '1', action: 'a.b' }, { action: 'c.d', steps: [] }] }))).toEqual(['steps[1].steps']);
    expect(undefinedKeys(args({ steps: [{ action: 'a.b', x: 1 }], action: 'p.q' }))).toEqual(['action', 'steps[0].x']);
    expect(undefinedKeys(args({ steps: [{ action: 'a.b', w: 1, x: 2 }], one: 1, two: 2 }))).toEqual(['one', 'two', 'steps[0].w']);
  });
});

