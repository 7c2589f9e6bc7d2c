/** The bounded suggestions give exactly the answers of trying every name with the plain edit distance. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charMask, closestActions, listIndex, lowerBound, packNameIndex } from '../../lib/commands/preMcp/suggest.js';
import { boundedEditDistance } from '../../lib/platform/text/editDistance.js';

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

  it('long names too: bit-parallel up to 32 characters (32 itself, its sign bit), the band past them', () => {
    const long = fc.stringMatching(/^[abAB._é]{25,40}$/);
    fc.assert(fc.property(long, long, fc.integer({ min: 0, max: 14 }), (a, b, max) => {
      const d = levenshtein(a, b);
      expect(boundedEditDistance(a, b, max)).toBe(d <= max ? d : max + 1);
    }), { numRuns: 1000 });
    const a32 = 'ab'.repeat(16);
    expect(boundedEditDistance(a32, `${a32.slice(0, 31)}x`, 3)).toBe(1);
    expect(boundedEditDistance(a32, a32.slice(1), 3)).toBe(1);
    expect(boundedEditDistance(a32, 'ba'.repeat(16), 3)).toBe(2);
  });

  it('closestActions answers as trying every name does', () => {
    fc.assert(fc.property(word, fc.array(word, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), (wanted, names, limit) => {
      expect(closestActions(wanted, [...names], limit)).toEqual(reference(wanted, names, limit));
    }), { numRuns: 1000 });
  });

  it('from the gate\'s list and packed index, the same answers; an index that does not fit the list is made again', () => {
    const listed = fc.array(word.filter((w) => w !== ''), { maxLength: 40 });
    fc.assert(fc.property(word, listed, fc.integer({ min: 1, max: 4 }), (wanted, names, limit) => {
      const list = `\n${names.join('\n')}\n`;
      expect(closestActions(wanted, listIndex(list, packNameIndex(names)), limit)).toEqual(reference(wanted, names, limit));
      // A truncated index, or none.
      expect(closestActions(wanted, listIndex(list, packNameIndex(names).slice(0, -1)), limit)).toEqual(reference(wanted, names, limit));
      expect(closestActions(wanted, listIndex(list, null), limit)).toEqual(reference(wanted, names, limit));
    }), { numRuns: 1000 });
    // An index of a list of another shape (more names, or names of other lengths).
    const names = ['projects.list', 'projects.get', 'data.read'];
    const list = `\n${names.join('\n')}\n`;
    for (const other of [[...names, 'x.y'], ['projects.lst', 'projects.get', 'data.read'], ['x'], []]) {
      expect(closestActions('projects.lsit', listIndex(list, packNameIndex(other)))).toEqual(reference('projects.lsit', names));
    }
  });
});
