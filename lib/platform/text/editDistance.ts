/**
 * The edit (Levenshtein) distance between two strings, bounded: the exact distance when it is at most `max`, else
 * `max + 1`, in as few operations as the bound allows. The callers run it a few hundred times in a process that
 * ends right after, mostly before V8 optimizes it, so what counts is how many operations run.
 */

/** The longest pattern the bit-parallel distance takes: one bit per character in a 32-bit word. */
const PATTERN_MAX = 32;
/** Where the current pattern holds each character: ASCII in a table, any other code unit in a map. */
const asciiPositions = new Int32Array(128);
const otherPositions = new Map<number, number>();
let pattern = '';

/**
 * The edit distance from `a` (1 to 32 characters) to `b`, or `max + 1` past `max`: Myers' bit-vector algorithm (G.
 * Myers, "A fast bit-vector algorithm for approximate string matching based on dynamic programming", J. ACM 46(3),
 * 1999), in H. Hyyrö's formulation for the distance between whole strings. Each column of the matrix is held as its
 * vertical deltas (+1 in `pv`, -1 in `mv`, one bit per row), so one character of `b` costs a dozen word operations.
 * `positions` holds `a`'s, kept while the same `a` is compared with many names.
 */
function bitParallelDistance(a: string, b: string, max: number): number {
  const table = asciiPositions;
  if (pattern !== a) {
    table.fill(0);
    otherPositions.clear();
    for (let i = 0; i < a.length; i++) {
      const c = a.charCodeAt(i);
      if (c < 128) table[c]! |= 1 << i;
      else otherPositions.set(c, (otherPositions.get(c) ?? 0) | (1 << i));
    }
    pattern = a;
  }
  const last = 1 << (a.length - 1);
  let pv = -1;
  let mv = 0;
  let distance = a.length;
  for (let j = 0; j < b.length; j++) {
    const c = b.charCodeAt(j);
    const eq = c < 128 ? table[c]! : otherPositions.get(c) ?? 0;
    const xv = eq | mv;
    const xh = (((eq & pv) + pv) ^ pv) | eq;
    let ph = mv | ~(xh | pv);
    let mh = pv & xh;
    if (ph & last) distance++;
    if (mh & last) distance--;
    // Each character left can lower the distance by one at most.
    if (distance - (b.length - j - 1) > max) return max + 1;
    ph = (ph << 1) | 1;
    mh <<= 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
  }
  return distance > max ? max + 1 : distance;
}

let prevRow = new Int32Array(64);
let currRow = new Int32Array(64);

/** Levenshtein distance, giving up (returning `max + 1`) once it must exceed `max`. */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a.length > 0 && a.length <= PATTERN_MAX) return bitParallelDistance(a, b, max);
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
