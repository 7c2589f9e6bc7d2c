import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GATE_VERSION, listable, plainSteps, readGate, readGateNames, serializeGate, serializeGateNames, type Gate, type GateNames } from '../../lib/commands/preMcp/gate/gate.js';
import { tempDir } from '../helpers/repo.js';

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
