/**
 * "Did you mean": the existing action names closest to an unknown one. Bounded for 5,000 names and five unknown
 * actions in one call: the lower-cased names are made once per list, the edit distance runs only on names whose
 * length is within reach, inside a band of the matrix, on two reused rows (no allocation per name).
 */

let prevRow = new Int32Array(64);
let currRow = new Int32Array(64);

/** Levenshtein distance, giving up (returning `max + 1`) once it must exceed `max`. */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (prevRow.length <= b.length) {
    prevRow = new Int32Array(b.length * 2 + 2);
    currRow = new Int32Array(b.length * 2 + 2);
  }
  const big = max + 1;
  let prev = prevRow;
  let curr = currRow;
  for (let j = 0; j <= b.length; j++) prev[j] = j <= max ? j : big;
  for (let i = 1; i <= a.length; i++) {
    // Only cells with |i - j| <= max can stay within `max`; the rest count as beyond it.
    const from = Math.max(1, i - max);
    const to = Math.min(b.length, i + max);
    curr[0] = i <= max ? i : big;
    if (from > 1) curr[from - 1] = big;
    let rowMin = curr[0]!;
    const ca = a.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      let v = prev[j - 1]! + cost;
      const up = prev[j]! + 1;
      const left = curr[j - 1]! + 1;
      if (up < v) v = up;
      if (left < v) v = left;
      if (v > big) v = big;
      curr[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (to < b.length) curr[to + 1] = big;
    if (rowMin > max) return max + 1;
    const swap = prev;
    prev = curr;
    curr = swap;
  }
  const d = prev[b.length]!;
  return d > max ? max + 1 : d;
}

/**
 * Which characters a string holds, as two 32-bit masks: one bit per letter in the first; one per digit, `.`, `_`,
 * `-`, and 16 shared by every other character, in the second.
 */
export function charMask(text: string): [number, number] {
  let letters = 0;
  let others = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) letters |= 1 << (c - 97);
    else if (c >= 48 && c <= 57) others |= 1 << (c - 48);
    else others |= 1 << (c === 46 ? 10 : c === 95 ? 11 : c === 45 ? 12 : 16 + (c & 15));
  }
  return [letters, others];
}

function popcount(x: number): number {
  let n = x - ((x >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * A lower bound of the edit distance: each character one string has and the other lacks takes an edit (characters
 * that share a bit only make the bound smaller, never wrong), and so does each character of length between them.
 */
export function lowerBound(a: [number, number], aLength: number, b: [number, number], bLength: number): number {
  const onlyA = popcount(a[0] & ~b[0]) + popcount(a[1] & ~b[1]);
  const onlyB = popcount(b[0] & ~a[0]) + popcount(b[1] & ~a[1]);
  return Math.max(onlyA, onlyB, Math.abs(aLength - bLength));
}

/** At most this many names get the edit distance per unknown action, the likeliest (lowest bound) first. */
export const MAX_DISTANCES = 200;

interface Prepared { lower: string[]; masks: Array<[number, number]> }
const prepared = new WeakMap<readonly string[], Prepared>();

function prepare(names: readonly string[]): Prepared {
  let p = prepared.get(names);
  if (!p) {
    const lower = names.map((n) => n.toLowerCase());
    prepared.set(names, (p = { lower, masks: lower.map(charMask) }));
  }
  return p;
}

/**
 * Up to `limit` names closest to `wanted`: small edit distance first, then names sharing its domain
 * (`projects.` of `projects.lst`) or a prefix. Ties keep the snapshot's order. Names are tried in order of their
 * character-mask distance (a lower bound of the edit distance), and once `limit` names are found within the bound of those
 * left, no name left can rank before them: the answer is the same as trying every name, unless more than
 * MAX_DISTANCES names are that close (then the likeliest of them are tried).
 */
export function closestActions(wanted: string, names: readonly string[], limit = 3): string[] {
  const { lower, masks } = prepare(names);
  const target = wanted.toLowerCase();
  const targetMask = charMask(target);
  const maxDistance = Math.max(2, Math.floor(target.length / 3));
  const dot = target.indexOf('.');
  const domain = dot > 0 ? target.slice(0, dot + 1) : null;
  const byBound: number[][] = Array.from({ length: maxDistance + 1 }, () => []);
  for (let index = 0; index < lower.length; index++) {
    const name = lower[index]!;
    if (Math.abs(name.length - target.length) > maxDistance) continue;
    const bound = lowerBound(targetMask, target.length, masks[index]!, name.length);
    if (bound <= maxDistance) byBound[bound]!.push(index);
  }
  const scored: Array<{ index: number; score: number }> = [];
  const near = new Set<number>();
  let tried = 0;
  tryNames: for (let bound = 0; bound <= maxDistance; bound++) {
    for (const index of byBound[bound]!) {
      if (++tried > MAX_DISTANCES) break tryNames;
      const distance = boundedEditDistance(target, lower[index]!, maxDistance);
      if (distance <= maxDistance) {
        scored.push({ index, score: distance });
        near.add(index);
      }
    }
    // Every name left is at a distance above `bound`: `limit` names within it cannot be outranked.
    if (scored.filter((s) => s.score <= bound).length >= limit) break;
  }
  if (scored.length < limit) {
    for (let index = 0; index < lower.length; index++) {
      if (near.has(index)) continue;
      const name = lower[index]!;
      if (name.startsWith(target) || target.startsWith(name)) scored.push({ index, score: maxDistance + 1 });
      else if (domain && name.startsWith(domain)) scored.push({ index, score: maxDistance + 2 });
    }
  }
  scored.sort((x, y) => x.score - y.score || x.index - y.index);
  return scored.slice(0, limit).map((s) => names[s.index]!);
}
