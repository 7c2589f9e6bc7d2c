import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GATE_VERSION, listable, plainSteps, readGate, serializeGate, type Gate } from '../../lib/commands/preMcp/gate.js';
import { tempDir } from '../helpers/repo.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('agentstack-gatefile-'); });
afterEach(() => tmp.cleanup());

const gate: Gate = { v: GATE_VERSION, plugin: '0.5.0', env: 'AGENTSTACK_X=1', until: 123, stamps: [[1, 2, 3, 4], null], bases: ['https://a.example'], neutral: '\na.one\nb.two\n', known: '\na.one\nb.two\nc.three\n' };

describe('the gate file', () => {
  it('reads back what was written: a JSON line, then the lists as plain lines', () => {
    const path = join(tmp.path, 'gate');
    writeFileSync(path, serializeGate(gate));
    expect(readGate(path)).toEqual(gate);
  });
  it('a list with no names, a truncated file, another version, a JSON gate of before: no gate', () => {
    const path = join(tmp.path, 'gate');
    writeFileSync(path, serializeGate({ ...gate, neutral: '\n', known: '\n' }));
    expect(readGate(path)).toMatchObject({ neutral: '\n', known: '\n' });
    writeFileSync(path, serializeGate(gate).slice(0, -3));
    expect(readGate(path)).toBeNull();
    writeFileSync(path, serializeGate({ ...gate, v: 1 as never }));
    expect(readGate(path)).toBeNull();
    writeFileSync(path, `${JSON.stringify(gate)}\n`);
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
