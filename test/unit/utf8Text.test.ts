/** The first stage's decoder must read exactly what Buffer reads, split however the chunks arrived. */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { utf8Text } from '../../lib/platform/text/utf8.js';

// Any bytes (invalid sequences included), cut into chunks at any points.
const chunked = fc.uint8Array({ maxLength: 300 }).chain((bytes) =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 6 }).map((cuts) => {
    const at = [0, ...cuts.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length];
    return { bytes, chunks: at.slice(1).map((end, i) => bytes.subarray(at[i], end)) };
  }));
// Text with multi-byte characters, so cuts fall inside sequences.
const textChunks = fc.string({ unit: 'grapheme', maxLength: 80 }).chain((s) => {
  const bytes = new TextEncoder().encode(s);
  return fc.integer({ min: 0, max: bytes.length }).map((cut) => ({ s, chunks: [bytes.subarray(0, cut), bytes.subarray(cut)] }));
});

describe('utf8Text', () => {
  afterEach(() => vi.resetModules());

  it('decodes as Buffer does, whatever the bytes and wherever the chunks split', () => {
    fc.assert(fc.property(chunked, ({ bytes, chunks }) => {
      expect(utf8Text(chunks)).toBe(Buffer.from(bytes).toString('utf8'));
    }), { numRuns: 500 });
    fc.assert(fc.property(textChunks, ({ s, chunks }) => { expect(utf8Text(chunks)).toBe(s); }), { numRuns: 300 });
  });

  it('reads a chunk that is a view into a larger buffer by its own bounds', () => {
    const big = new TextEncoder().encode('xx{"a":"é"}yy');
    expect(utf8Text([big.subarray(2, big.length - 2)])).toBe('{"a":"é"}');
    expect(utf8Text([])).toBe('');
  });

  it('decodes as Buffer does where the runtime has no utf8Slice (TextDecoder)', async () => {
    // Hidden only while the module loads (it looks once); Buffer itself needs it back to give the expected text.
    const proto = Buffer.prototype as unknown as { utf8Slice?: unknown };
    const saved = proto.utf8Slice;
    delete proto.utf8Slice;
    let fallback: typeof utf8Text;
    try {
      ({ utf8Text: fallback } = await import('../../lib/platform/text/utf8.js'));
    } finally {
      proto.utf8Slice = saved;
    }
    expect(fallback).not.toBe(utf8Text);
    // A leading byte-order mark is text like any other (a state file written with one is read as it is).
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]);
    expect(fallback([bom])).toBe('\ufeff{}');
    expect(utf8Text([bom])).toBe(Buffer.from(bom).toString('utf8'));
    fc.assert(fc.property(chunked, ({ bytes, chunks }) => {
      expect(fallback(chunks)).toBe(Buffer.from(bytes).toString('utf8'));
    }), { numRuns: 500 });
  });
});
