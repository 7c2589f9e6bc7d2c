/** The bounded stdin collection both hook readers share (the fs.read one hands it to the stream one on EAGAIN). */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { collectStdin, readStdinBounded } from '../../lib/platform/hookIo.js';

const b = (s: string) => Buffer.from(s);

describe('collectStdin', () => {
  it('keeps chunks up to the cap and gives the text', () => {
    const input = collectStdin(6);
    expect(input.add(b('abc'))).toBe(true);
    expect(input.add(b('def'))).toBe(true);
    expect(input.result()).toEqual({ text: 'abcdef' });
    expect(input.result('timeout')).toEqual({ text: '', problem: 'timeout' });
  });

  it('past the cap: fails without spill; with spill passes every byte, in order, and keeps none', () => {
    expect(collectStdin(3).add(b('abcd'))).toBe(false);
    const seen: string[] = [];
    const input = collectStdin(4, (c) => seen.push(c.toString()));
    input.add(b('ab'));
    input.add(b('cde'));
    input.add(b('f'));
    expect(seen).toEqual(['ab', 'cde', 'f']);
    expect(input.spilling).toBe(true);
    expect(input.result()).toEqual({ text: '', problem: 'too_large' });
    expect(input.result('error')).toEqual({ text: '', problem: 'too_large' });
  });

  it('spillAll passes what was kept once, then every later chunk', () => {
    const seen: string[] = [];
    const input = collectStdin(100, (c) => seen.push(c.toString()));
    input.add(b('ab'));
    input.spillAll();
    input.spillAll();
    input.add(b('c'));
    expect(seen).toEqual(['ab', 'c']);
  });
});

describe('readStdinBounded with a collector another reader began', () => {
  it('goes on with the same input and the same cap', async () => {
    const input = collectStdin(5);
    input.add(b('ab'));
    const stream = new PassThrough();
    const reading = readStdinBounded({ stream, collector: input, timeoutMs: 2_000 });
    stream.end('cd');
    expect(await reading).toEqual({ text: 'abcd' });

    const over = collectStdin(5);
    over.add(b('abc'));
    const s2 = new PassThrough();
    const r2 = readStdinBounded({ stream: s2, collector: over, timeoutMs: 2_000 });
    s2.end('def');
    expect(await r2).toEqual({ text: '', problem: 'too_large' });
  });

  it('with spill, the earlier reader\'s bytes go first', async () => {
    const seen: string[] = [];
    const input = collectStdin(4, (c) => seen.push(c.toString()));
    input.add(b('ab'));
    const stream = new PassThrough();
    const reading = readStdinBounded({ stream, collector: input, timeoutMs: 2_000 });
    stream.write('cde');
    stream.end('f');
    expect(await reading).toEqual({ text: '', problem: 'too_large' });
    expect(seen.join('')).toBe('abcdef');
    expect(seen[0]).toBe('ab');
  });
});
