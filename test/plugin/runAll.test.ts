/**
 * npm test (test/run-all.mjs): a part that fails does not stop the ones after it, each says how it ended, and the
 * command fails when any part failed or the machine's managed folders changed during the run.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module: the runner itself
import { runParts, summary } from '../run-all.mjs';

type Result = { name: string; state: 'passed' | 'failed' | 'skipped'; why?: string };
const run = runParts as (parts: Array<[string, () => Omit<Result, 'name'>]>, fingerprint?: () => string) => Result[];
const close = summary as (results: Result[]) => { text: string; failed: boolean };

describe('every part runs and reports', () => {
  it('a failed first part, a throwing one and a skipped one: the rest still run, and the command fails', () => {
    const ran: string[] = [];
    const results = run([
      ['typecheck', () => { ran.push('typecheck'); return { state: 'failed', why: 'exit 2' }; }],
      ['vitest', () => { ran.push('vitest'); throw new Error('could not start'); }],
      ['nobody', () => { ran.push('nobody'); return { state: 'skipped', why: 'not root' }; }],
      ['managed', () => { ran.push('managed'); return { state: 'passed' }; }],
    ], () => 'same');
    expect(ran).toEqual(['typecheck', 'vitest', 'nobody', 'managed']);
    expect(results.map((r) => [r.name, r.state])).toEqual([['typecheck', 'failed'], ['vitest', 'failed'], ['nobody', 'skipped'], ['managed', 'passed']]);
    const { text, failed } = close(results);
    expect(failed).toBe(true);
    expect(text).toContain('2 of 4 parts FAILED');
    expect(text).toMatch(/typecheck: FAILED \(exit 2\)/);
    expect(text).toMatch(/vitest: FAILED \(could not start\)/);
    expect(text).toMatch(/nobody: skipped \(not root\)/);
    expect(text).toMatch(/managed: passed/);
  });

  it('every part passed: the command passes; a skipped part does not fail it', () => {
    const { text, failed } = close(run([['a', () => ({ state: 'passed' })], ['b', () => ({ state: 'skipped', why: 'x' })]], () => 'same'));
    expect(failed).toBe(false);
    expect(text).toContain('all 2 parts passed');
  });

  it('the machine\'s /etc/agentstack or /etc/cursor changed during the run: a failure of its own', () => {
    const prints = ['/etc/agentstack absent', '/etc/agentstack 40755 0:0'];
    const results = run([['a', () => ({ state: 'passed' })]], () => prints.shift()!);
    expect(results.at(-1)).toMatchObject({ name: 'machine /etc', state: 'failed' });
    expect(close(results).failed).toBe(true);
  });
});
