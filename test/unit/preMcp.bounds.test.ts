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
  afterAll(() => rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

  it('listLookup: the same answers searched or from a Set', () => {
    const list = '\nprojects.list\nsystem.ping\n';
    for (const count of [1, 1_000]) {
      const holds = listLookup(list, count);
      expect(['projects.list', 'system.ping', 'projects', '', 'a\nb'].map(holds)).toEqual([true, true, false, false, false]);
    }
  });

  it('deciding 40,000 unique unknown steps takes linear time', () => {
    const index = indexSnapshot(bigSnapshot(50))!;
    const inputOf = (count: number) => ({ ...call, tool_input: JSON.stringify({ steps: Array.from({ length: count }, (_, i) => ({ id: String(i), action: `nope.a${i}` })) }) });
    // CPU time of this process, not wall time: a machine busy with other work stretches the wall time of whichever
    // run it preempts, not the work done.
    const cpuMs = (work: () => void) => {
      const before = process.cpuUsage();
      work();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000;
    };
    const decide = (input: ReturnType<typeof inputOf>) => cpuMs(() => {
      expect(decidePreMcp({ input, snapshot: { kind: 'ok', index }, claims: null, now: Date.now(), knownBaseUrls: [] }).permission).toBe('deny');
    });
    // The baseline: work known to be linear on the same input (parse it, and put every step's id and action in a
    // Set), measured beside the decision, so what makes the larger input dearer per step on this machine (caches,
    // the collector) makes the baseline dearer alike.
    const baseline = (input: ReturnType<typeof inputOf>) => cpuMs(() => {
      const seen = new Set<string>();
      for (const step of (JSON.parse(input.tool_input) as { steps: Array<{ id: string; action: string }> }).steps) seen.add(`${step.id}\n${step.action}`);
      expect(seen.size).toBeGreaterThan(0);
    });
    const [small, large] = [inputOf(10_000), inputOf(40_000)];
    decide(inputOf(1_000)); // warm
    // Four times the steps: the decision's time grows as the baseline's (about four times) when linear, four times
    // more than the baseline's when quadratic. The least of five of each, taken in turns.
    const times = { small: [] as number[], large: [] as number[], baseSmall: [] as number[], baseLarge: [] as number[] };
    for (let i = 0; i < 5; i++) {
      times.small.push(decide(small));
      times.baseSmall.push(baseline(small));
      times.large.push(decide(large));
      times.baseLarge.push(baseline(large));
    }
    const least = (list: number[]) => Math.max(Math.min(...list), 0.001);
    const growth = least(times.large) / least(times.small);
    const baselineGrowth = least(times.baseLarge) / least(times.baseSmall);
    expect(growth, `the decision grew ${growth.toFixed(2)}x, the baseline ${baselineGrowth.toFixed(2)}x`).toBeLessThan(2 * baselineGrowth);
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
