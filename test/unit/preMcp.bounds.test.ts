/**
 * Input that is not strict JSON, and work that must stay bounded: the pure parts of the pre-MCP hook that read a hook
 * input leniently (a BOM, trailing NULs, the top-level scan of what is not one object), look names up in lists with
 * Sets, and stop at a processing deadline.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseHookJson } from '../../lib/platform/hookIo.js';
import { createTopLevelScanner } from '../../lib/platform/text/hookInputScan.js';
import { readPreMcpInput, unreadableReason } from '../../lib/commands/preMcp/front.js';
import { listLookup } from '../../lib/commands/preMcp/gate/gate.js';
import { DeadlineExceeded, checkDeadline, deadlineTicker } from '../../lib/platform/hookIo.js';
import { decidePreMcp } from '../../lib/commands/preMcp/decide.js';
import { runPreMcp } from '../../lib/commands/preMcp/run.js';
import { indexSnapshot } from '../../lib/agentstack/snapshot/actionIndex.js';
import { writeSnapshot } from '../../lib/agentstack/snapshot/store.js';
import { bigSnapshot } from '../helpers/fixtures.js';

const call = { hook_event_name: 'beforeMCPExecution', tool_name: 'agentstack.execute', mcp_server_name: 'user-agentstack', tool_input: '{"steps":[{"id":"1","action":"projects.list"}]}' };
const text = JSON.stringify(call);
const front = (input: string) => readPreMcpInput({ read: async () => ({ text: input }) });

describe('input that is not strict JSON', () => {
  it('a leading BOM and trailing NULs or whitespace are read through', () => {
    for (const input of [`\uFEFF${text}`, `${text}\u0000`, `\uFEFF${text}\u0000\u0000\r\n`]) expect(parseHookJson(input)).toEqual(call);
    expect(parseHookJson(`${text}x`)).toBeNull();
    expect(parseHookJson('\uFEFF')).toBeNull();
  });

  it('a second object, or a call cut short: the full check (unreadable), never neutral', async () => {
    for (const input of [`${text}{"tool_name":"read_file"}`, `${text}${text}`, text.slice(0, -2), `${text},`]) {
      const seen = await front(input);
      expect(seen.kind, input).toBe('execute');
      expect(unreadableReason(seen.kind === 'execute' ? seen.raw : null)).toMatch(/not one JSON object/);
    }
  });

  it('junk naming no call, and another server\'s call followed by junk, stay neutral', async () => {
    expect((await front('hello')).kind).toBe('neutral');
    expect((await front(`${JSON.stringify({ tool_name: 'read_file', mcp_server_name: 'user-files' })}}`)).kind).toBe('neutral');
  });

  it('the scan says when a wanted key was left out', () => {
    const scanner = createTopLevelScanner();
    scanner.feed(Buffer.from('{"tool_name":"a"}{"tool_name":"b"}'));
    expect(scanner.result()).toEqual({});
    expect(scanner.unclear()).toBe(true);
    const clear = createTopLevelScanner();
    clear.feed(Buffer.from('{"x":1}'));
    expect(clear.unclear()).toBe(false);
  });
});

describe('bounded work', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'agentstack-bounds-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('listLookup: the same answers searched or from a Set', () => {
    const list = '\nprojects.list\nsystem.ping\n';
    for (const count of [1, 1_000]) {
      const holds = listLookup(list, count);
      expect(['projects.list', 'system.ping', 'projects', '', 'a\nb'].map(holds)).toEqual([true, true, false, false, false]);
    }
  });

  it('deciding 40,000 unique unknown steps takes linear time', () => {
    const index = indexSnapshot(bigSnapshot(50))!;
    const decide = (count: number) => {
      const steps = Array.from({ length: count }, (_, i) => ({ id: String(i), action: `nope.a${i}` }));
      const started = performance.now();
      const answer = decidePreMcp({ input: { ...call, tool_input: JSON.stringify({ steps }) }, snapshot: { kind: 'ok', index }, claims: null, now: Date.now(), knownBaseUrls: [] });
      expect(answer.permission).toBe('deny');
      return performance.now() - started;
    };
    decide(1_000); // warm
    // Four times the steps: four times the time when linear, sixteen when quadratic. The best of five of each, taken
    // in turns so a change in the machine's load meets both sizes alike (three of each in a row once read 8.07x on a
    // fresh-clone run whose load rose between them, where a quiet run reads about 4.5x).
    const small: number[] = [];
    const large: number[] = [];
    for (let i = 0; i < 5; i++) {
      small.push(decide(10_000));
      large.push(decide(40_000));
    }
    expect(Math.min(...large)).toBeLessThan(8 * Math.min(...small));
  });

  it('the deadline: a check that runs past it throws, and the full check answers ask', () => {
    expect(() => checkDeadline(undefined)).not.toThrow();
    expect(() => checkDeadline(0)).toThrow(DeadlineExceeded);
    const tick = deadlineTicker(0, 2);
    tick();
    expect(tick).toThrow(DeadlineExceeded);
    writeSnapshot(join(tmp, 'agentstack-capabilities.json'), bigSnapshot(10));
    writeFileSync(join(tmp, 'mcp.json'), JSON.stringify({ mcpServers: { agentstack: { url: 'https://agentstack.tech/mcp' } } }));
    const steps = Array.from({ length: 5_000 }, (_, i) => ({ id: String(i), action: `nope.a${i}` }));
    const env = { HOME: tmp, AGENTSTACK_CURSOR_DIR: tmp };
    const input = { ...call, tool_input: JSON.stringify({ steps }) };
    expect(runPreMcp(input, { env }).permission).toBe('deny');
    expect(runPreMcp(input, { env, deadline: 0 })).toMatchObject({ permission: 'ask', user_message: expect.stringContaining('in time') });
  });
});
