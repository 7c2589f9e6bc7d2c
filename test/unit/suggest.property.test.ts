/** The bounded suggestions give exactly the answers of trying every name with the plain edit distance. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charMask, closestActions, listIndex, lowerBound, packNameIndex, unpackNameIndex } from '../../lib/commands/preMcp/suggest.js';
import { boundedEditDistance } from '../../lib/platform/text/editDistance.js';
import { kernelFor } from '../../lib/platform/text/maskKernel.js';

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

describe('the packed index as the gate stores it (base64) and its deny reads it back', () => {
  it('reads back exactly what was packed, for any names', () => {
    fc.assert(fc.property(fc.array(fc.string({ minLength: 1, maxLength: 30 }), { maxLength: 40 }), (names) => {
      const packed = packNameIndex(names);
      expect(unpackNameIndex(Buffer.from(packed.buffer).toString('base64'))).toEqual(packed);
    }), { numRuns: 200 });
  });
  it('a length that is not whole 32-bit numbers: none (the index is computed again)', () => {
    expect([...unpackNameIndex(Buffer.from(new Int32Array([1, -2, 300_000]).buffer).toString('base64'))!]).toEqual([1, -2, 300_000]);
    expect(unpackNameIndex(Buffer.from([1, 2, 3, 4, 5]).toString('base64'))).toBeNull();
    expect(unpackNameIndex('')).toEqual(new Int32Array(0));
  });
});

describe('the index\'s numbers, exactly (a weaker bound would give the same answers, only slower: these say which bound)', () => {
  it('charMask: a bit per letter; per digit, `.`, `_`, `-`; and 16 bits shared by every other character by its low four bits', () => {
    expect(charMask('az')).toEqual([1 | (1 << 25), 0]);
    expect(charMask('09')).toEqual([0, 1 | (1 << 9)]);
    expect(charMask('._-')).toEqual([0, (1 << 10) | (1 << 11) | (1 << 12)]);
    // Just outside each range: ` (96), { (123), / (47), : (58); and é (233).
    expect(charMask('`')).toEqual([0, 1 << 16]);
    expect(charMask('{')).toEqual([0, 1 << (16 + 11)]);
    expect(charMask('/')).toEqual([0, 1 << (16 + 15)]);
    expect(charMask(':')).toEqual([0, 1 << (16 + 10)]);
    expect(charMask('é')).toEqual([0, 1 << (16 + 9)]);
  });

  it('lowerBound: the largest of the characters only one side has (letters and others counted together) and the length apart', () => {
    const lb = (a: string, b: string) => lowerBound(charMask(a), a.length, charMask(b), b.length);
    expect(lb('abc1', 'xa')).toBe(3); // b, c and 1 only in the first
    expect(lb('xa', 'abc1')).toBe(3); // the same from the other side
    expect(lb('abc', 'xyza')).toBe(3); // x, y, z only in the second, over 2 only in the first
    expect(lb('aaaaaa', 'a')).toBe(5); // the length apart, longer first
    expect(lb('a', 'aaaaaa')).toBe(5); // and second
    expect(lb('ab', 'aaaaab')).toBe(4);
    expect(lb('abcd', 'ab')).toBe(2); // only-first equals the length apart
    expect(lb('aaaaaaab', 'a')).toBe(7); // more only in the first than in the second, and the length apart more still
    expect(lb('abcdefghijklmnopqrstuvwxyz', '0123456789._-')).toBe(26);
    expect(lb('same.name', 'same.name')).toBe(0);
  });

  it('packNameIndex: per name its masks, its length and where it starts in the list (after the newline before it)', () => {
    const [ab] = charMask('ab');
    const [c] = charMask('c');
    expect([...packNameIndex(['AB', 'c', 'd.e'])]).toEqual([ab, 0, 2, 1, c, 0, 1, 4, charMask('d.e')[0], charMask('d.e')[1], 3, 6]);
  });

  it('listIndex uses the gate\'s index when it fits the list, and makes its own when it does not', () => {
    const names = ['projects.list', 'data.read'];
    const list = `\n${names.join('\n')}\n`;
    const packed = packNameIndex(names);
    const used = listIndex(list, packed);
    expect(used.packed).toBe(packed);
    expect(used.count).toBe(2);
    expect([0, 1].map((i) => used.nameAt(i))).toEqual(names);
    for (const other of [packNameIndex(['projects.lst', 'data.read']), packNameIndex(['x.list', 'data.read']), packNameIndex([...names, 'x']), packed.slice(0, -1)]) {
      const made = listIndex(list, other);
      expect(made.packed).not.toBe(other);
      expect([...made.packed]).toEqual([...packed]);
    }
    const firstMoved = packed.slice();
    firstMoved[3] = 2; // damage: the first name's start (always 1) moved
    expect(listIndex(list, firstMoved).packed).not.toBe(firstMoved);
    expect(listIndex('\n', new Int32Array(0))).toMatchObject({ count: 0 });
    expect(listIndex('\n', null).count).toBe(0);
  });
});

describe('which names get the edit distance: at most MAX_DISTANCES, the lowest bounds first', () => {
  it('names the bound rules out are never tried, however many come before the answer', () => {
    // 'aaaaaa' lacks five of the target's letters; 'abcdef' has five the target lacks: both bound 5, over the 2 allowed.
    expect(closestActions('abcdef', [...Array<string>(250).fill('aaaaaa'), 'abcdeg'])).toEqual(['abcdeg']);
    expect(closestActions('aaaaaa', [...Array<string>(250).fill('abcdef'), 'aaaaab'])).toEqual(['aaaaab']);
  });
  it('more than MAX_DISTANCES names that close: the likeliest are tried, and a closer name past them is not found', () => {
    // 'abcdfe' has the target's letters (bound 0, distance 2); 'abcdeg' lacks its f (bound 1, distance 1).
    expect(closestActions('abcdef', [...Array<string>(250).fill('abcdfe'), 'abcdeg'])).toEqual(['abcdfe', 'abcdfe', 'abcdfe']);
    expect(closestActions('abcdef', [...Array<string>(150).fill('abcdfe'), 'abcdeg'])).toEqual(['abcdeg', 'abcdfe', 'abcdfe']);
    // MAX_DISTANCES names get the distance: 199 close ones and the closer one after them, but not 200 and it.
    expect(closestActions('abcdef', [...Array<string>(199).fill('abcdfe'), 'abcdeg'])).toEqual(['abcdeg', 'abcdfe', 'abcdfe']);
    expect(closestActions('abcdef', [...Array<string>(200).fill('abcdfe'), 'abcdeg'])).toEqual(['abcdfe', 'abcdfe', 'abcdfe']);
  });
});


describe('the loops over every name as WebAssembly (platform/text/maskKernel.ts) and as JavaScript: the same answers', () => {
  it('runs here (so the answers above are the kernel\'s), and measures an ASCII pattern against ASCII names', () => {
    const kernel = kernelFor(packNameIndex(['a.b', 'ab']), 2, () => '\na.b\nab\n')!;
    expect(kernel).not.toBeNull();
    expect(kernel.setPattern('a.c')).toBe(true);
    expect([kernel.distance(0, 2), kernel.distance(1, 2)]).toEqual([1, 2]);
    expect(kernel.setPattern('é')).toBe(false);
    expect(kernel.setPattern('x'.repeat(33))).toBe(false);
    expect(kernelFor(packNameIndex(['é']), 1, () => '\né\n')!.setPattern('a')).toBe(false);
  });

  it('the edit distance as WebAssembly, on ASCII names: the same answers as trying every name', () => {
    const ascii = fc.stringMatching(/^[a-dA-D._0-9~-]{0,12}$/);
    fc.assert(fc.property(ascii, fc.array(ascii, { maxLength: 60 }), fc.integer({ min: 1, max: 4 }), (wanted, names, limit) => {
      expect(closestActions(wanted, [...names], limit)).toEqual(reference(wanted, names, limit));
    }), { numRuns: 2000 });
  });

  it('closestActions with the kernel and without it, on any names', () => {
    fc.assert(fc.property(word, fc.array(word, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), (wanted, names, limit) => {
      expect(closestActions(wanted, [...names], limit, false)).toEqual(reference(wanted, names, limit));
      expect(closestActions(wanted, [...names], limit, true)).toEqual(closestActions(wanted, [...names], limit, false));
    }), { numRuns: 1000 });
  });

  it('long targets (a bound of 30) and lists past the kernel\'s first memory page, in turns', () => {
    const names = Array.from({ length: 6_000 }, (_, i) => `${['data', 'projects', 'admin'][i % 3]}.op_${(i * 7919) % 100_000}`);
    const small = ['projects.list', 'projects.get', 'data.read'];
    for (const wanted of ['projects.lstx', 'data.op_40019', 'zzzzz.yyyy', `admin.${'x'.repeat(84)}`, 'p', '']) {
      for (const list of [names, small, names]) {
        expect(closestActions(wanted, list, 3, true)).toEqual(closestActions(wanted, list, 3, false));
      }
    }
  });
});
