/** The bench's paired ratio: a round the machine ran slow slows the command and its baseline alike, and cancels out. */
import { describe, expect, it } from 'vitest';
import { median, pairedRatio } from '../../bench/harness.js';

/** mulberry32: the same numbers at every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('pairedRatio', () => {
  it('is the median of the rounds\' own ratios', () => {
    expect(pairedRatio([11, 22, 30], [10, 20, 30])).toBeCloseTo(1.1);
    expect(pairedRatio([10, 10, 10, 10], [10, 10, 5, 5])).toBe(1.5);
  });

  it('lands nearer the true ratio than a ratio of medians when slow stretches hit whole rounds', () => {
    // 41 rounds of a command 5% over its baseline; a fifth of the rounds run 10-50% slow for every command in them,
    // and each run has its own +-6% on top.
    const random = seeded(7);
    let pairedError = 0;
    let mediansError = 0;
    for (let trial = 0; trial < 300; trial++) {
      const baseline: number[] = [];
      const command: number[] = [];
      for (let round = 0; round < 41; round++) {
        const slow = random() < 0.2 ? 1.1 + 0.4 * random() : 1;
        baseline.push(25 * slow * (0.94 + 0.12 * random()));
        command.push(25 * 1.05 * slow * (0.94 + 0.12 * random()));
      }
      pairedError += Math.abs(pairedRatio(command, baseline) - 1.05);
      mediansError += Math.abs(median(command) / median(baseline) - 1.05);
    }
    expect(pairedError).toBeLessThan(mediansError);
  });
});
