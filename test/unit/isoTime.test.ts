/** isoTime must be toISOString exactly, so records written either way read the same. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../lib/platform/isoTime.js';

const MAX_TIME = 8.64e15; // the largest time a Date holds

describe('isoTime', () => {
  it('equals toISOString for any time a Date holds, fractions of a millisecond included', () => {
    fc.assert(fc.property(fc.integer({ min: -MAX_TIME, max: MAX_TIME }), (ms) => { expect(isoTime(ms)).toBe(new Date(ms).toISOString()); }), { numRuns: 3000 });
    fc.assert(fc.property(fc.double({ min: -MAX_TIME, max: MAX_TIME, noNaN: true }), (ms) => { expect(isoTime(ms)).toBe(new Date(ms).toISOString()); }), { numRuns: 3000 });
  });

  it('equals it around the edges: the epoch, leap days, century years, and the years 0000 and 9999', () => {
    const edges = [0, -1, 1, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, 1_709_164_800_000, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, Date.now()];
    for (const ms of edges) for (const d of [-DAY, 0, DAY]) expect(isoTime(ms + d)).toBe(new Date(ms + d).toISOString());
    // Every day of four centuries around now: each leap rule.
    for (let ms = Date.UTC(1900, 0, 1); ms < Date.UTC(2300, 0, 1); ms += 3 * DAY + 1_234) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('throws as toISOString does for a time that is not one', () => {
    for (const ms of [Number.NaN, Number.POSITIVE_INFINITY, MAX_TIME + 1]) expect(() => isoTime(ms)).toThrow(RangeError);
  });
});

const DAY = 86_400_000;
