/** The bounded suggestions give exactly the answers of trying every name with the plain edit distance. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedEditDistance, charMask, closestActions, lowerBound } from '../../lib/commands/preMcp/suggest.js';

function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length]![b.length]!;
}

/** Every name tried, as the suggestions were before they were bounded. */
function reference(wanted: string, names: readonly string[], limit = 3): string[] {
  const target = wanted.toLowerCase();
  const max = Math.max(2, Math.floor(target.length / 3));
  const dot = target.indexOf('.');
  const domain = dot > 0 ? target.slice(0, dot + 1) : null;
  const scored: Array<{ name: string; score: number; index: number }> = [];
  names.forEach((name, index) => {
    const lower = name.toLowerCase();
    const distance = levenshtein(target, lower);
    if (distance <= max) scored.push({ name, score: distance, index });
    else if (lower.startsWith(target) || target.startsWith(lower)) scored.push({ name, score: max + 1, index });
    else if (domain && lower.startsWith(domain)) scored.push({ name, score: max + 2, index });
  });
  scored.sort((x, y) => x.score - y.score || x.index - y.index);
  return scored.slice(0, limit).map((s) => s.name);
}

const word = fc.stringMatching(/^[a-cA-C._0-9\-~é]{0,9}$/);

describe('suggestions, bounded', () => {
  it('boundedEditDistance is the edit distance, or max + 1 past max; the mask distance never exceeds it', () => {
    fc.assert(fc.property(word, word, fc.integer({ min: 0, max: 6 }), (a, b, max) => {
      const d = levenshtein(a, b);
      expect(boundedEditDistance(a, b, max)).toBe(d <= max ? d : max + 1);
      expect(lowerBound(charMask(a), a.length, charMask(b), b.length)).toBeLessThanOrEqual(d);
    }), { numRuns: 2000 });
  });

  it('closestActions answers as trying every name does', () => {
    fc.assert(fc.property(word, fc.array(word, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), (wanted, names, limit) => {
      expect(closestActions(wanted, [...names], limit)).toEqual(reference(wanted, names, limit));
    }), { numRuns: 1000 });
  });
});
