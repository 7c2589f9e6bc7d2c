/**
 * "Did you mean": the existing action names closest to an unknown one. Bounded for 5,000 names and five unknown
 * actions in one call: each name's character masks and length (a lower bound of the edit distance, `lowerBound`) are
 * made once per list, or read from the compiled gate, which packs them with the list (`packNameIndex`) so a hook run
 * neither computes them nor splits the list into 5,000 strings; names are ordered by that bound with no allocation
 * per name, and at most MAX_DISTANCES of them get the edit distance. A hook runs this code once, mostly before V8
 * optimizes it, so what counts is how many operations and allocations it makes.
 */
import { boundedEditDistance } from '../../platform/text/editDistance.js';
import { kernelFor } from '../../platform/text/maskKernel.js';

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

/** Per name, four numbers: its lower-cased form's two character masks and length, and where it starts in its list. */
const FIELDS = 4;

/** The names, and what `closestActions` needs of each (made by `nameIndex` or `listIndex`). */
export interface NameIndex {
  count: number;
  nameAt: (i: number) => string;
  /** FIELDS numbers per name, in the names' order. */
  packed: Int32Array;
  /** The lower-cased names, each made when first needed. */
  lower: Array<string | undefined>;
  /** The names as the index places them: `\n` before, between and after them. */
  text: () => string;
}

/**
 * What the index holds of `names`, with each name's start in their list (`\n` before, between and after the names:
 * the gate's form). Pure; the gate stores it as base64 of these bytes.
 */
export function packNameIndex(names: readonly string[]): Int32Array {
  const packed = new Int32Array(names.length * FIELDS);
  let start = 1;
  for (let i = 0; i < names.length; i++) {
    const lower = names[i]!.toLowerCase();
    const [letters, others] = charMask(lower);
    packed[i * FIELDS] = letters;
    packed[i * FIELDS + 1] = others;
    packed[i * FIELDS + 2] = lower.length;
    packed[i * FIELDS + 3] = start;
    start += names[i]!.length + 1;
  }
  return packed;
}

/**
 * The packed index back from the gate's base64 text, or null when its length is not whole numbers (a damaged index
 * only costs computing it again).
 */
export function unpackNameIndex(base64: string): Int32Array | null {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length % 4 !== 0) return null;
  // An Int32Array must start on a multiple of 4; Node's shared buffer pool hands out slices at multiples of 8, but a
  // copy costs little where that ever differs.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
  return new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
}

/** An index of `names`. */
export function nameIndex(names: readonly string[]): NameIndex {
  return { count: names.length, nameAt: (i) => names[i]!, packed: packNameIndex(names), lower: new Array<string | undefined>(names.length), text: () => `\n${names.join('\n')}\n` };
}

/**
 * An index of the names in `list` (`\n` before, between and after them) from `packed` (packNameIndex of the same
 * names); when `packed` does not fit the list, it is computed from the list's names. Fitting is told by shape (how
 * many names, where the first and the last start): the gate's names file holds the list and its index, written whole
 * under its gate's tag, so an index of another list can only come from damage, and would only change suggestions.
 */
export function listIndex(list: string, packed: Int32Array | null): NameIndex {
  const count = packed && packed.length % FIELDS === 0 ? packed.length / FIELDS : -1;
  const lastStart = list.lastIndexOf('\n', list.length - 2) + 1;
  const fits = count === 0 ? list.length <= 2 : count > 0 && packed![3] === 1 && packed![(count - 1) * FIELDS + 3] === lastStart;
  if (!fits) return nameIndex(list.length > 2 ? list.slice(1, -1).split('\n') : []);
  const startOf = (i: number) => (i < count ? packed![i * FIELDS + 3]! : list.length);
  return { count, nameAt: (i) => list.slice(startOf(i), startOf(i + 1) - 1), packed: packed!, lower: new Array<string | undefined>(count), text: () => list };
}

const lowerAt = (index: NameIndex, i: number): string => (index.lower[i] ??= index.nameAt(i).toLowerCase());

function popcount(x: number): number {
  let n = x - ((x >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * A lower bound of the edit distance: each character one string has and the other lacks takes an edit (characters
 * that share a bit only make the bound smaller, never wrong), and so does each character of length between them.
 * (orderByBound computes the same, written out.)
 */
export function lowerBound(a: [number, number], aLength: number, b: [number, number], bLength: number): number {
  const onlyA = popcount(a[0] & ~b[0]) + popcount(a[1] & ~b[1]);
  const onlyB = popcount(b[0] & ~a[0]) + popcount(b[1] & ~a[1]);
  const apart = aLength > bLength ? aLength - bLength : bLength - aLength;
  return onlyA > onlyB ? (onlyA > apart ? onlyA : apart) : (onlyB > apart ? onlyB : apart);
}

/** At most this many names get the edit distance per unknown action, the likeliest (lowest bound) first. */
export const MAX_DISTANCES = 200;

const indexes = new WeakMap<readonly string[], NameIndex>();

function indexFor(list: readonly string[] | NameIndex): NameIndex {
  if (!Array.isArray(list)) return list as NameIndex;
  let index = indexes.get(list);
  if (!index) indexes.set(list, (index = nameIndex(list)));
  return index;
}

/** Scratch for ordering names by their bound, reused across calls. */
let boundOfName = new Int32Array(0);
let byBound = new Int32Array(0);

/**
 * The indexes of the names whose bound is at most `max`, ordered by bound, then index (a counting sort, with no
 * allocation per name), and where each bound's run ends in that order.
 */
function orderByBound(index: NameIndex, [targetLetters, targetOthers]: [number, number], target: string, max: number): { order: Int32Array; ends: Int32Array } {
  const { count, packed } = index;
  if (boundOfName.length < count) {
    boundOfName = new Int32Array(count);
    byBound = new Int32Array(count);
  }
  const ends = new Int32Array(max + 1);
  for (let i = 0; i < count; i++) {
    const at = i * FIELDS;
    const length = packed[at + 2]!;
    boundOfName[i] = -1;
    if (length - target.length > max || target.length - length > max) continue;
    // lowerBound written out, as two-word population counts (one sum of both words' bit counts): this loop runs cold,
    // where each call costs as much as its arithmetic. The characters of the target a name lacks rule most names out
    // before the other direction is counted.
    const letters = packed[at]!;
    const others = packed[at + 1]!;
    let x = targetLetters & ~letters;
    let y = targetOthers & ~others;
    x -= (x >>> 1) & 0x55555555;
    y -= (y >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333) + (y & 0x33333333) + ((y >>> 2) & 0x33333333);
    const onlyTarget = (((x & 0x0f0f0f0f) + ((x >>> 4) & 0x0f0f0f0f)) * 0x01010101) >>> 24;
    if (onlyTarget > max) continue;
    x = letters & ~targetLetters;
    y = others & ~targetOthers;
    x -= (x >>> 1) & 0x55555555;
    y -= (y >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333) + (y & 0x33333333) + ((y >>> 2) & 0x33333333);
    const onlyName = (((x & 0x0f0f0f0f) + ((x >>> 4) & 0x0f0f0f0f)) * 0x01010101) >>> 24;
    const apart = length > target.length ? length - target.length : target.length - length;
    const bound = onlyTarget > onlyName ? (onlyTarget > apart ? onlyTarget : apart) : (onlyName > apart ? onlyName : apart);
    if (bound > max) continue;
    boundOfName[i] = bound;
    ends[bound]! += 1;
  }
  for (let b = 1; b <= max; b++) ends[b]! += ends[b - 1]!;
  const next = ends.slice();
  for (let i = count - 1; i >= 0; i--) {
    const bound = boundOfName[i]!;
    if (bound >= 0) byBound[--next[bound]!] = i;
  }
  return { order: byBound, ends };
}

/**
 * Up to `limit` names closest to `wanted`: small edit distance first, then names sharing its domain
 * (`projects.` of `projects.lst`) or a prefix. Ties keep the snapshot's order. Names are tried in order of their
 * character-mask distance (a lower bound of the edit distance), and once `limit` names are found within the bound of those
 * left, no name left can rank before them: the answer is the same as trying every name, unless more than
 * MAX_DISTANCES names are that close (then the likeliest of them are tried).
 */
export function closestActions(wanted: string, list: readonly string[] | NameIndex, limit = 3, useKernel = true): string[] {
  const index = indexFor(list);
  const { count, packed } = index;
  const target = wanted.toLowerCase();
  const maxDistance = Math.max(2, Math.floor(target.length / 3));
  const dot = target.indexOf('.');
  const domain = dot > 0 ? target.slice(0, dot + 1) : null;
  const mask = charMask(target);
  // The loops over every name, and the edit distances of an ASCII target to ASCII names, run as WebAssembly where it
  // can run (platform/text/maskKernel.ts), else here.
  const kernel = useKernel ? kernelFor(packed, count, index.text) : null;
  const measure = kernel?.setPattern(target) ? kernel : null;
  const { order, ends } = kernel ? kernel.orderByBound(mask[0], mask[1], target.length, maxDistance) : orderByBound(index, mask, target, maxDistance);
  const scored: Array<{ index: number; score: number }> = [];
  // Flags, not a Set: the fallback below looks every name up, in a loop that runs cold.
  const near = kernel ? kernel.nearFlags() : new Uint8Array(count);
  let tried = 0;
  tryNames: for (let bound = 0, k = 0; bound <= maxDistance; bound++) {
    for (; k < ends[bound]!; k++) {
      if (++tried > MAX_DISTANCES) break tryNames;
      const i = order[k]!;
      const distance = measure ? measure.distance(i, maxDistance) : boundedEditDistance(target, lowerAt(index, i), maxDistance);
      if (distance <= maxDistance) {
        scored.push({ index: i, score: distance });
        near[i] = 1;
      }
    }
    // Every name left is at a distance above `bound`: `limit` names within it cannot be outranked.
    let within = 0;
    for (const s of scored) if (s.score <= bound) within++;
    if (within >= limit) break;
  }
  if (scored.length < limit) {
    const domainMask = domain ? charMask(domain) : null;
    const candidates = kernel ? kernel.prefixCandidates(mask[0], mask[1], domainMask) : prefixCandidates(index, near, mask, domainMask);
    for (const i of candidates) {
      const name = lowerAt(index, i);
      if (name.startsWith(target) || target.startsWith(name)) scored.push({ index: i, score: maxDistance + 1 });
      else if (domain && name.startsWith(domain)) scored.push({ index: i, score: maxDistance + 2 });
    }
  }
  scored.sort((x, y) => x.score - y.score || x.index - y.index);
  return scored.slice(0, limit).map((s) => index.nameAt(s.index));
}

/**
 * The names not flagged `near` that may start with the target or be its start, or start with its domain: only a name
 * that holds every character of the target or of its domain, or only characters of the target, can. The masks rule
 * out the rest without lower-casing them.
 */
function prefixCandidates(index: NameIndex, near: Uint8Array, [targetLetters, targetOthers]: [number, number], domainMask: [number, number] | null): number[] {
  const { count, packed } = index;
  const [domainLetters, domainOthers] = domainMask ?? [0, 0];
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    if (near[i]) continue;
    const at = i * FIELDS;
    const letters = packed[at]!;
    const others = packed[at + 1]!;
    if (!((letters & targetLetters) === targetLetters && (others & targetOthers) === targetOthers)
      && !((letters & ~targetLetters) === 0 && (others & ~targetOthers) === 0)
      && !(domainMask && (letters & domainLetters) === domainLetters && (others & domainOthers) === domainOthers)) continue;
    out.push(i);
  }
  return out;
}
