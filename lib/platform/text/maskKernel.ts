/**
 * The two loops of "did you mean" (commands/preMcp/suggest.ts) that visit every name, run as WebAssembly
 * (maskKernel.wat): in a process that runs them once, JavaScript stays in V8's interpreter, where 5,000 names cost
 * about half a millisecond a pass; WebAssembly is compiled to machine code before its first call. Each name is four
 * i32 (its two character masks, its length, one field these loops do not read), as suggest.ts packs them.
 *
 * `kernelFor` answers null where WebAssembly cannot run (`--jitless`, a runtime without it): the callers then run
 * the same loops in JavaScript, with the same results (tested).
 */
import { BYTES_BASE64 } from './maskKernelBytes.js';

/** What this module uses of the WebAssembly API (the type definitions here describe Node's globals without it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  orderByBound(packed: number, count: number, bound: number, ends: number, next: number, order: number, tl: number, to: number, tlen: number, max: number): void;
  prefixCandidates(packed: number, count: number, near: number, out: number, tl: number, to: number, dl: number, dox: number, domain: number): number;
  distance(peq: number, plen: number, b: number, blen: number, max: number): number;
}

/** The names' masks in the kernel's memory, and the two loops over them. */
export interface MaskKernel {
  /**
   * The indexes of the names whose bound is at most `max`, ordered by bound, then index, and where each bound's run
   * ends in that order (views of the kernel's memory, good until the next call).
   */
  orderByBound(targetLetters: number, targetOthers: number, targetLength: number, max: number): { order: Int32Array; ends: Int32Array };
  /** One flag per name, all clear (a view of the kernel's memory, good until the next orderByBound). */
  nearFlags(): Uint8Array;
  /**
   * The names not flagged near that hold every character of the target, or only characters of it, or every
   * character of its domain (when given), in order.
   */
  prefixCandidates(targetLetters: number, targetOthers: number, domain: [number, number] | null): Int32Array;
  /**
   * Makes `pattern` the one `distance` measures from; false when it cannot (it is empty, longer than 32 characters or
   * not ASCII, or the names' text was not given or is not ASCII): the caller then measures in JavaScript.
   */
  setPattern(pattern: string): boolean;
  /** The edit distance from the pattern to name `i` (lower-cased), or max + 1 past `max`. */
  distance(i: number, max: number): number;
}

const PAGE = 65_536;
let instance: Exports | null | undefined;

function load(): Exports | null {
  if (instance !== undefined) return instance;
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  try {
    if (!api) throw new Error('no WebAssembly');
    instance = new api.Instance(new api.Module(Buffer.from(BYTES_BASE64, 'base64')), {}).exports as Exports;
  } catch {
    instance = null;
  }
  return instance;
}

/** The kernel's memory holds one list of names at a time: the last one loaded, and its text's length once loaded (null: none, or not ASCII). */
let loaded: Int32Array | null = null;
let loadedText: number | null | undefined;

/** The longest pattern `distance` takes: one bit per character in a 32-bit word. */
const PATTERN_MAX = 32;

/**
 * A kernel over `packed` (`count` names), or null where WebAssembly cannot run. `text`: the names as the index places
 * them (each at its start, the fourth field), for `distance`; it measures only when the text is ASCII (lower-casing
 * it whole then gives each name's lower case at the same place).
 */
export function kernelFor(packed: Int32Array, count: number, text?: () => string): MaskKernel | null {
  const wasm = load();
  if (!wasm) return null;
  // Layout: the packed names, then per name a bound, a place in the order, a near flag and a candidate; the pattern's
  // table (128 words); the names' text; then the bounds' run ends (two arrays of max + 1), sized at each call.
  const bound = count * 16;
  const order = bound + count * 4;
  const near = order + count * 4;
  const out = near + ((count + 3) & ~3);
  const peq = out + count * 4;
  const names = peq + 128 * 4;
  const fit = (bytes: number) => {
    const pages = Math.ceil(bytes / PAGE) - wasm.memory.buffer.byteLength / PAGE;
    if (pages > 0) wasm.memory.grow(pages);
  };
  if (loaded !== packed) {
    fit(names);
    new Int32Array(wasm.memory.buffer, 0, count * 4).set(packed.subarray(0, count * 4));
    loaded = packed;
    loadedText = undefined;
  }
  if (loadedText === undefined) {
    const lower = text?.().toLowerCase();
    loadedText = lower !== undefined && Buffer.byteLength(lower, 'utf8') === lower.length ? lower.length : null;
    if (loadedText !== null) {
      fit(names + loadedText);
      Buffer.from(wasm.memory.buffer, names, loadedText).write(lower!, 'latin1');
    }
  }
  const ends = (names + (loadedText ?? 0) + 3) & ~3;
  let patternLength = 0;
  return {
    orderByBound(targetLetters, targetOthers, targetLength, max) {
      fit(ends + (max + 1) * 8);
      const endsView = new Int32Array(wasm.memory.buffer, ends, max + 1);
      endsView.fill(0);
      wasm.orderByBound(0, count, bound, ends, ends + (max + 1) * 4, order, targetLetters, targetOthers, targetLength, max);
      return { order: new Int32Array(wasm.memory.buffer, order, count), ends: endsView };
    },
    nearFlags() {
      const flags = new Uint8Array(wasm.memory.buffer, near, count);
      flags.fill(0);
      return flags;
    },
    prefixCandidates(targetLetters, targetOthers, domain) {
      const n = wasm.prefixCandidates(0, count, near, out, targetLetters, targetOthers, domain?.[0] ?? 0, domain?.[1] ?? 0, domain ? 1 : 0);
      return new Int32Array(wasm.memory.buffer, out, n);
    },
    setPattern(pattern) {
      patternLength = 0;
      if (loadedText === null || pattern.length === 0 || pattern.length > PATTERN_MAX) return false;
      const table = new Int32Array(wasm.memory.buffer, peq, 128);
      table.fill(0);
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern.charCodeAt(i);
        if (c >= 128) return false;
        table[c]! |= 1 << i;
      }
      patternLength = pattern.length;
      return true;
    },
    distance(i, max) {
      const length = packed[i * 4 + 2]!;
      if (length - patternLength > max || patternLength - length > max) return max + 1;
      return wasm.distance(peq, patternLength, names + packed[i * 4 + 3]!, length, max);
    },
  };
}
