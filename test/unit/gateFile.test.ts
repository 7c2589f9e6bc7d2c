import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GATE_VERSION, listable, plainSteps, readGate, readGateNames, serializeGate, serializeGateNames, type Gate, type GateNames } from '../../lib/commands/preMcp/gate/gate.js';
import { tempDir } from '../helpers/repo.js';
import { asksOf, serializeAsks, type RuleAsk } from '../../lib/commands/preMcp/gate/ask.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('agentstack-gatefile-'); });
afterEach(() => tmp.cleanup());

const gate: Gate = { v: GATE_VERSION, plugin: '0.5.0', env: 'AGENTSTACK_X=1', until: 123, renewAt: null, stamps: [[1, 2, 3, 4], null], bases: ['https://a.example'], denies: true, journal: true, names: 'tag1', neutral: '\na.one\nb.two\n' };
const names: GateNames = { known: '\na.one\nb.two\nc.three\n', index: 'AAAA', asks: '[["why","ask-actions","set in x"]]\nb.two\u00000\n' };

describe('the gate file', () => {
  it('reads back what was written: a JSON line, then the lists as plain lines', () => {
    const path = join(tmp.path, 'gate');
    writeFileSync(path, serializeGate(gate));
    expect(readGate(path)).toEqual(gate);
  });
  it('its names file: read back under the gate\'s tag only, whole', () => {
    const path = join(tmp.path, 'names');
    writeFileSync(path, serializeGateNames('tag1', names));
    expect(readGateNames(path, 'tag1')).toEqual(names);
    expect(readGateNames(path, 'tag2')).toBeNull(); // written with another gate
    writeFileSync(path, serializeGateNames('tag1', names).slice(0, -2));
    expect(readGateNames(path, 'tag1')).toBeNull();
    writeFileSync(path, serializeGateNames('tag1', { known: '\n', index: '', asks: '[]\n' }));
    expect(readGateNames(path, 'tag1')).toEqual({ known: '\n', index: '', asks: '[]\n' });
  });
  it('a list with no names, a truncated file, another version, a JSON gate of before: no gate', () => {
    const path = join(tmp.path, 'gate');
    writeFileSync(path, serializeGate({ ...gate, neutral: '\n' }));
    expect(readGate(path)).toMatchObject({ neutral: '\n' });
    writeFileSync(path, serializeGate(gate).slice(0, -3));
    expect(readGate(path)).toBeNull();
    writeFileSync(path, serializeGate({ ...gate, v: 1 as never }));
    expect(readGate(path)).toBeNull();
    writeFileSync(path, `${JSON.stringify(gate)}\n`);
    expect(readGate(path)).toBeNull();
    // A gate of the version before this one's fields, or with them of another type.
    const { denies: _denies, ...older } = gate;
    writeFileSync(path, serializeGate(older as Gate));
    expect(readGate(path)).toBeNull();
    writeFileSync(path, serializeGate({ ...gate, journal: 'on' as never }));
    expect(readGate(path)).toBeNull();
    const { names: _names, ...untagged } = gate;
    writeFileSync(path, serializeGate(untagged as Gate));
    expect(readGate(path)).toBeNull();
  });
  it('names that could reach across lines are never listed; only the contract\'s shape is plain', () => {
    expect(listable('a\nb')).toBe(false);
    expect(listable('a\u0000known')).toBe(false);
    expect(plainSteps('{"steps":[{"id":"1","action":"a.one","params":{}}]}')).toEqual(['a.one']);
    expect(plainSteps({ steps: [{ action: 'a.one' }], action: 'x' })).toBeNull();
    expect(plainSteps({ steps: [] })).toBeNull();
    expect(plainSteps(JSON.stringify(JSON.stringify({ steps: [{ action: 'a' }] })))).toEqual(['a']);
  });
});

describe('the gate and the token\'s renewal', () => {
  it('once the token falls due, a call answered from the gate starts the renewal; before, it does not', async () => {
    const { checkGate, stampSources } = await import('../../lib/commands/preMcp/gate/gate.js');
    const { cursorPaths } = await import('../../lib/agentstack/server/paths.js');
    const env = { AGENTSTACK_CURSOR_DIR: tmp.path, HOME: tmp.path };
    const paths = cursorPaths(env);
    const now = Date.now();
    const write = (renewAt: number | null) => writeFileSync(paths.gate, serializeGate({ ...gate, env: 'AGENTSTACK_CURSOR_DIR=' + tmp.path, until: now + 60_000, renewAt, stamps: stampSources(paths)!, bases: ['https://agentstack.tech'] }));
    const call = { tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify({ steps: [{ id: '1', action: 'a.one' }] }) };
    let started = 0;
    const renew = () => { started += 1; };
    write(now + 30_000);
    expect(checkGate(call, { paths, env, now, plugin: '0.5.0', renew }).kind).toBe('neutral');
    expect(started).toBe(0);
    write(now - 1);
    expect(checkGate(call, { paths, env, now, plugin: '0.5.0', renew }).kind).toBe('neutral');
    expect(started).toBe(1);
    write(null);
    checkGate(call, { paths, env, now, plugin: '0.5.0', renew });
    expect(started).toBe(1);
  });
});

describe('the gate\'s deny of unknown actions', () => {
  async function check(actions: string[], over: Partial<Gate> = {}, tag = gate.names) {
    const { checkGate, stampSources } = await import('../../lib/commands/preMcp/gate/gate.js');
    const { cursorPaths } = await import('../../lib/agentstack/server/paths.js');
    const env = { AGENTSTACK_CURSOR_DIR: tmp.path, HOME: tmp.path };
    const paths = cursorPaths(env);
    const now = Date.now();
    writeFileSync(paths.gate, serializeGate({ ...gate, env: 'AGENTSTACK_CURSOR_DIR=' + tmp.path, until: now + 60_000, stamps: stampSources(paths)!, bases: ['https://agentstack.tech'], ...over }));
    writeFileSync(paths.gateNames, serializeGateNames(tag, names));
    const call = { tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify({ steps: actions.map((action, i) => ({ id: String(i), action })) }) };
    return checkGate(call, { paths, env, now, plugin: '0.5.0' });
  }
  it('names the actions the snapshot lacks, each once, in the call\'s order, whatever the other steps', async () => {
    expect(await check(['z.nope', 'a.one', 'c.three', 'y.nope', 'z.nope'])).toEqual({ kind: 'deny', unknown: ['z.nope', 'y.nope'], known: names.known, index: names.index, journal: true });
  });
  it('known actions the hook has an opinion on, a gate that does not deny, a name that cannot be listed: the full check', async () => {
    expect(await check(['a.one', 'c.three'])).toEqual({ kind: 'call', known: names.known });
    expect(await check(['z.nope'], { denies: false })).toEqual({ kind: 'call', known: names.known });
    expect(await check(['z.nope', 'a\u0000b'])).toEqual({ kind: 'call', known: names.known });
    expect((await check(['a.one', 'b.two'])).kind).toBe('neutral');
    // A names file of another gate (a concurrent compile between the two writes): the full check, reading the snapshot.
    expect(await check(['z.nope'], {}, 'tag2')).toEqual({ kind: 'call' });
    expect((await check(['a.one', 'b.two'], {}, 'tag2')).kind).toBe('neutral');
  });
});

describe('a gate file someone else wrote, or another version wrote: never trusted', () => {
  it.each([
    ['plugin', 1], ['env', null], ['until', '9999999999999'], ['renewAt', '0'], ['stamps', {}], ['bases', 'https://a.example'], ['bases', [1]],
    ['denies', 1], ['journal', null], ['names', 7], ['v', GATE_VERSION + 1],
  ] as const)('%s of another type (%j): no gate', (field, value) => {
    const path = join(tmp.path, 'gate');
    writeFileSync(path, serializeGate({ ...gate, [field]: value } as never));
    expect(readGate(path)).toBeNull();
  });
  it('renewAt null or a time, bases a list of strings: read', () => {
    const path = join(tmp.path, 'gate');
    writeFileSync(path, serializeGate({ ...gate, renewAt: 5, bases: [] }));
    expect(readGate(path)).toMatchObject({ renewAt: 5, bases: [] });
  });
  it('a header that is not an object, or JSON that does not parse: no gate', () => {
    const path = join(tmp.path, 'gate');
    writeFileSync(path, `[1]${serializeGate(gate).slice(serializeGate(gate).indexOf('\n\u0000neutral'))}`);
    expect(readGate(path)).toBeNull();
    writeFileSync(path, `{${serializeGate(gate)}`);
    expect(readGate(path)).toBeNull();
    expect(readGate(join(tmp.path, 'none'))).toBeNull();
  });
  it('a names file missing a part: not read', () => {
    const path = join(tmp.path, 'names');
    const text = serializeGateNames('tag1', names);
    for (const mark of ['\n\u0000known\n', '\n\u0000index\n', '\n\u0000asks\n']) {
      writeFileSync(path, text.replace(mark, '\n'));
      expect(readGateNames(path, 'tag1')).toBeNull();
    }
    expect(readGateNames(join(tmp.path, 'none'), 'tag1')).toBeNull();
  });
});

describe('the contract\'s shape of a call, and nothing else, is plain', () => {
  it.each([
    ['options beside the steps', { steps: [{ id: 1, action: 'a.one' }], options: { dry_run: true } }, ['a.one']],
    ['a step with params', { steps: [{ action: 'a.one', params: { x: 1 } }, { action: 'b.two' }] }, ['a.one', 'b.two']],
    ['no steps key', { options: {} }, null],
    ['steps not a list', { steps: { action: 'a.one' } }, null],
    ['a step that is not an object', { steps: ['a.one'] }, null],
    ['an action that is not a string', { steps: [{ action: 7 }] }, null],
    ['an empty action', { steps: [{ action: '' }] }, null],
    ['an action across lines', { steps: [{ action: 'a.one\nb.two' }] }, null],
    ['an id of another type', { steps: [{ id: { n: 1 }, action: 'a.one' }] }, null],
    ['a step key the contract lacks', { steps: [{ action: 'a.one', cap: 'x' }] }, null],
    ['a string that is not JSON', '{steps', null],
    ['JSON three times over', JSON.stringify(JSON.stringify(JSON.stringify({ steps: [{ action: 'a' }] }))), null],
    ['nothing', undefined, null],
  ] as const)('%s', (_what, input, actions) => {
    expect(plainSteps(input)).toEqual(actions);
  });
});

describe('when the gate answers a call itself', () => {
  async function setup(over: Partial<Gate> | ((now: number) => Partial<Gate>) = {}) {
    const { checkGate, stampSources } = await import('../../lib/commands/preMcp/gate/gate.js');
    const { cursorPaths } = await import('../../lib/agentstack/server/paths.js');
    const env = { AGENTSTACK_CURSOR_DIR: tmp.path, HOME: tmp.path };
    const paths = cursorPaths(env);
    const now = Date.now();
    writeFileSync(paths.gate, serializeGate({ ...gate, env: 'AGENTSTACK_CURSOR_DIR=' + tmp.path, until: now + 60_000, stamps: stampSources(paths)!, bases: ['https://agentstack.tech'], ...(typeof over === 'function' ? over(now) : over) }));
    writeFileSync(paths.gateNames, serializeGateNames(gate.names, names));
    const check = (raw: Record<string, unknown>, at = now, renew?: () => void) => checkGate(raw, { paths, env, now: at, plugin: '0.5.0', renew });
    return { check, paths, now };
  }
  const execute = (actions: string[], extra: Record<string, unknown> = {}) => ({ tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify({ steps: actions.map((action) => ({ action })) }), ...extra });

  it('until its last millisecond; at `until` it is stale', async () => {
    const { check, now } = await setup();
    expect(check(execute(['a.one']), now + 59_999).kind).toBe('neutral');
    expect(check(execute(['a.one']), now + 60_000).kind).toBe('stale');
  });
  it('the renewal starts from `renewAt` itself', async () => {
    const { check, now } = await setup((at) => ({ renewAt: at + 1_000 }));
    let started = 0;
    check(execute(['a.one']), now + 999, () => { started += 1; });
    expect(started).toBe(0);
    check(execute(['a.one']), now + 1_000, () => { started += 1; });
    expect(started).toBe(1);
  });
  it('another server\'s call, or another tool of ours: the full check decides', async () => {
    const { check } = await setup();
    expect(check(execute(['a.one'], { mcp_server_name: 'user-other', url: 'https://other.example/mcp' }))).toEqual({ kind: 'call' });
    expect(check({ tool_name: 'agentstack.search', mcp_server_name: 'user-agentstack', tool_input: '{}' })).toEqual({ kind: 'call' });
    expect(check(execute(['a.one'], { tool_input: '{"steps":[{"action":"a.one","x":1}]}' }))).toEqual({ kind: 'call', known: names.known });
  });
  it('its heartbeat is asked for when this run says something the last record does not, not for the same run again', async () => {
    const { recordHookRun } = await import('../../lib/agentstack/plugin/hookRuns.js');
    const { check, paths, now } = await setup();
    const raw = execute(['a.one'], { cursor_version: '1.2.3' });
    expect(check(raw)).toEqual({ kind: 'neutral', record: true });
    recordHookRun(paths.hookRuns, 'pre-mcp', { now, input: raw, pluginVersion: '0.5.0', outcome: 'neutral', unknownForm: null });
    expect(check(raw)).toEqual({ kind: 'neutral', record: false });
    expect(check({ ...raw, cursor_version: '1.2.4' })).toEqual({ kind: 'neutral', record: true });
    writeFileSync(paths.hookRuns, '{not json');
    expect(check(raw)).toEqual({ kind: 'neutral', record: true });
  });
  it('a call of an action the rules ask about, beside neutral ones: the ask, each action once', async () => {
    const { check } = await setup({ denies: false });
    expect(check(execute(['b.two', 'c.three', 'a.one', 'b.two']))).toEqual({ kind: 'call', known: names.known });
    const { check: withAsk } = await setup({ denies: false, neutral: '\na.one\n' });
    expect(withAsk(execute(['b.two', 'a.one', 'b.two']))).toEqual({ kind: 'ask', asks: [{ action: 'b.two', why: 'why', key: 'ask-actions', where: 'set in x' }], journal: true });
  });
});

describe('the gate\'s table of asks', () => {
  const asks: RuleAsk[] = [
    { action: 'projects.create', why: 'policy confirm-writes', key: 'policy', where: 'set in the settings file' },
    { action: 'data.write', why: 'listed in ask-actions', key: 'ask-actions', where: 'set by your organization' },
    { action: 'x', why: 'policy confirm-writes', key: 'policy', where: 'set in the settings file' },
  ];
  it('reads back each action\'s own rule, each once, in the order asked', () => {
    const table = serializeAsks(asks);
    expect(asksOf(table, ['data.write', 'x', 'projects.create', 'data.write'])).toEqual([asks[1], asks[2], asks[0]]);
    expect(asksOf(table, ['x'])).toEqual([asks[2]]);
    expect(asksOf(table, [])).toEqual([]);
  });
  it('holds each distinct rule once: actions under the same rule share its line (thousands of actions, a few rules)', () => {
    const table = serializeAsks(asks);
    expect(JSON.parse(table.split('\n')[0]!)).toEqual([['policy confirm-writes', 'policy', 'set in the settings file'], ['listed in ask-actions', 'ask-actions', 'set by your organization']]);
    expect(table.split('\n').slice(1)).toEqual(['projects.create\u00000', 'data.write\u00001', 'x\u00000', '']);
  });
  it('an action not in it, or a damaged table: none (the full check answers)', () => {
    const table = serializeAsks(asks);
    expect(asksOf(table, ['data.write', 'data.read'])).toBeNull();
    expect(asksOf('[["why","policy"]]\nx\u00000\n', ['x'])).toBeNull();
    expect(asksOf('[["why","policy","where"]]\nx\u00001\n', ['x'])).toBeNull();
    expect(asksOf('not json\nx\u00000\n', ['x'])).toBeNull();
  });
});

describe('a gate check with no renewal to start (a caller that gives none)', () => {
  it('a due token: answered from the gate as usual, nothing thrown', async () => {
    const { checkGate, stampSources } = await import('../../lib/commands/preMcp/gate/gate.js');
    const { cursorPaths } = await import('../../lib/agentstack/server/paths.js');
    const env = { AGENTSTACK_CURSOR_DIR: tmp.path, HOME: tmp.path };
    const paths = cursorPaths(env);
    const now = Date.now();
    writeFileSync(paths.gate, serializeGate({ ...gate, env: 'AGENTSTACK_CURSOR_DIR=' + tmp.path, until: now + 60_000, renewAt: now - 1, stamps: stampSources(paths)!, bases: ['https://agentstack.tech'] }));
    const call = { tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: JSON.stringify({ steps: [{ id: '1', action: 'a.one' }] }) };
    expect(checkGate(call, { paths, env, now, plugin: '0.5.0' }).kind).toBe('neutral');
  });
});

