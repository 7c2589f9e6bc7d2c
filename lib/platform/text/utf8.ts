/**
 * Bytes to text, for the hooks' first stage. `Buffer.concat(chunks).toString('utf8')` costs about 0.2 ms the first
 * time in a fresh process (Buffer's JavaScript is compiled on first use); the decoder under it, `utf8Slice`, takes a
 * plain Uint8Array and costs 0.01 ms. It is not documented, so where a runtime lacks it, the standard TextDecoder
 * decodes (keeping a leading byte-order mark, as Buffer does). All replace invalid sequences with U+FFFD alike.
 */
type Utf8Slice = (this: Uint8Array, start: number, end: number) => string;

const utf8Slice = (Buffer.prototype as unknown as { utf8Slice?: Utf8Slice }).utf8Slice;

/** The chunks, in order, decoded as UTF-8 (a sequence split across two chunks decodes whole). */
export function utf8Text(chunks: readonly Uint8Array[]): string {
  const whole = chunks.length === 1 ? chunks[0]! : joinBytes(chunks);
  return typeof utf8Slice === 'function' ? utf8Slice.call(whole, 0, whole.length) : new TextDecoder('utf-8', { ignoreBOM: true }).decode(whole);
}

function joinBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let total = 0;
  for (const chunk of chunks) total += chunk.length;
  const whole = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return whole;
}
