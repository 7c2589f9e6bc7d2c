/**
 * D-Bus's wire format: values marshalled by a type signature, every value aligned to its size from the message's
 * start, and messages (a 16-byte fixed header, the header fields as `a(yv)`, padding to 8, the body). Written
 * little-endian; read in either byte order, as the sender's first byte says. Reading never trusts a length: every
 * read is checked against the message's end and anything that does not fit is a WireError.
 */

export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

/** A value with its own signature (`v`). */
export class Variant {
  constructor(readonly signature: string, readonly value: DBusValue) {}
}

/**
 * A marshalled value: numbers (y b-as-boolean n q i u d h), bigint (x t), strings (s o g), a Buffer (`ay`), a
 * Variant, arrays (a struct as the array of its members, a dict entry as `[key, value]`, `a{..}` as an array of them).
 */
export type DBusValue = number | bigint | boolean | string | Buffer | Variant | DBusValue[];

export interface TypeNode {
  code: string;
  children: TypeNode[];
}

const BASIC = 'ybnqiuxtdhsog';
const ALIGN: Record<string, number> = { y: 1, b: 4, n: 2, q: 2, i: 4, u: 4, x: 8, t: 8, d: 8, h: 4, s: 4, o: 4, g: 1, v: 1, a: 4, '(': 8, '{': 8 };
const MAX_DEPTH = 32;
/** Larger than anything a Secret Service sends; bounds what a broken or hostile peer makes us buffer. */
export const MAX_MESSAGE = 8 * 1024 * 1024;

export function parseSignature(sig: string): TypeNode[] {
  let i = 0;
  const one = (depth: number, inArray: boolean): TypeNode => {
    if (depth > MAX_DEPTH) throw new WireError('signature nested too deep');
    const c = sig[i++];
    if (c === undefined) throw new WireError(`signature "${sig}" ends early`);
    if (BASIC.includes(c) || c === 'v') return { code: c, children: [] };
    if (c === 'a') return { code: 'a', children: [one(depth + 1, true)] };
    if (c === '(') {
      const children: TypeNode[] = [];
      while (sig[i] !== ')') {
        if (i >= sig.length) throw new WireError(`signature "${sig}" has an open struct`);
        children.push(one(depth + 1, false));
      }
      i++;
      if (children.length === 0) throw new WireError('empty struct in signature');
      return { code: '(', children };
    }
    if (c === '{' && inArray) {
      const key = one(depth + 1, false);
      if (!BASIC.includes(key.code)) throw new WireError('dict entry key is not a basic type');
      const value = one(depth + 1, false);
      if (sig[i++] !== '}') throw new WireError(`signature "${sig}" has a bad dict entry`);
      return { code: '{', children: [key, value] };
    }
    throw new WireError(`bad type code "${c}" in signature`);
  };
  const out: TypeNode[] = [];
  while (i < sig.length) out.push(one(0, false));
  return out;
}

const OBJECT_PATH = /^\/$|^(\/[A-Za-z0-9_]+)+$/;

class Writer {
  buf = Buffer.alloc(512);
  length = 0;
  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }
  align(n: number): void {
    const pad = (n - (this.length % n)) % n;
    this.room(pad);
    this.buf.fill(0, this.length, this.length + pad);
    this.length += pad;
  }
  u8(v: number): void { this.room(1); this.buf.writeUInt8(v, this.length); this.length += 1; }
  u32(v: number): void { this.room(4); this.buf.writeUInt32LE(v, this.length); this.length += 4; }
  bytes(b: Buffer): void { this.room(b.length); b.copy(this.buf, this.length); this.length += b.length; }
  number(code: string, v: number | bigint): void {
    const size = ALIGN[code]!;
    this.room(size);
    const at = this.length;
    if (code === 'n') this.buf.writeInt16LE(Number(v), at);
    else if (code === 'q') this.buf.writeUInt16LE(Number(v), at);
    else if (code === 'i') this.buf.writeInt32LE(Number(v), at);
    else if (code === 'u' || code === 'h') this.buf.writeUInt32LE(Number(v), at);
    else if (code === 'x') this.buf.writeBigInt64LE(BigInt(v), at);
    else if (code === 't') this.buf.writeBigUInt64LE(BigInt(v), at);
    else this.buf.writeDoubleLE(Number(v), at);
    this.length += size;
  }
}

function writeValue(w: Writer, t: TypeNode, v: DBusValue): void {
  w.align(ALIGN[t.code]!);
  switch (t.code) {
    case 'y': w.u8(v as number); return;
    case 'b': w.u32(v ? 1 : 0); return;
    case 's': case 'o': case 'g': {
      const text = String(v);
      if (text.includes('\0')) throw new WireError('a string holds NUL');
      if (t.code === 'o' && !OBJECT_PATH.test(text)) throw new WireError(`not an object path: ${text}`);
      const bytes = Buffer.from(text, 'utf8');
      if (t.code === 'g') { if (bytes.length > 255) throw new WireError('signature too long'); w.u8(bytes.length); } else w.u32(bytes.length);
      w.bytes(bytes);
      w.u8(0);
      return;
    }
    case 'v': {
      if (!(v instanceof Variant)) throw new WireError('a variant needs a Variant');
      const inner = parseSignature(v.signature);
      if (inner.length !== 1) throw new WireError('a variant holds one complete type');
      writeValue(w, { code: 'g', children: [] }, v.signature);
      writeValue(w, inner[0]!, v.value);
      return;
    }
    case 'a': {
      const child = t.children[0]!;
      const at = w.length;
      w.u32(0);
      w.align(ALIGN[child.code]!);
      const start = w.length;
      if (child.code === 'y' && Buffer.isBuffer(v)) w.bytes(v);
      else if (Array.isArray(v)) for (const item of v) writeValue(w, child, item);
      else throw new WireError('an array needs an array');
      w.buf.writeUInt32LE(w.length - start, at);
      return;
    }
    case '(': case '{': {
      if (!Array.isArray(v) || v.length !== t.children.length) throw new WireError(`a ${t.code === '(' ? 'struct' : 'dict entry'} needs ${t.children.length} members`);
      t.children.forEach((child, i) => writeValue(w, child, v[i]!));
      return;
    }
    default: w.number(t.code, v as number | bigint);
  }
}

/** The values marshalled by `signature`, from an 8-aligned start (a body's alignment is its message's). */
export function marshal(signature: string, values: readonly DBusValue[]): Buffer {
  const w = new Writer();
  writeBody(w, signature, values);
  return w.buf.subarray(0, w.length);
}

function writeBody(w: Writer, signature: string, values: readonly DBusValue[]): void {
  const types = parseSignature(signature);
  if (types.length !== values.length) throw new WireError(`signature "${signature}" has ${types.length} values, given ${values.length}`);
  types.forEach((t, i) => writeValue(w, t, values[i]!));
}

class Reader {
  constructor(private readonly buf: Buffer, public pos: number, private readonly end: number, private readonly little: boolean) {}
  private need(n: number): void {
    if (this.pos + n > this.end) throw new WireError('the message ends early');
  }
  align(n: number): void {
    const pad = (n - (this.pos % n)) % n;
    this.need(pad);
    this.pos += pad;
  }
  u8(): number { this.need(1); return this.buf[this.pos++]!; }
  u32(): number { this.need(4); const v = this.little ? this.buf.readUInt32LE(this.pos) : this.buf.readUInt32BE(this.pos); this.pos += 4; return v; }
  number(code: string): number | bigint {
    const size = ALIGN[code]!;
    this.need(size);
    const b = this.buf; const at = this.pos; const le = this.little;
    this.pos += size;
    switch (code) {
      case 'n': return le ? b.readInt16LE(at) : b.readInt16BE(at);
      case 'q': return le ? b.readUInt16LE(at) : b.readUInt16BE(at);
      case 'i': return le ? b.readInt32LE(at) : b.readInt32BE(at);
      case 'u': case 'h': return le ? b.readUInt32LE(at) : b.readUInt32BE(at);
      case 'x': return le ? b.readBigInt64LE(at) : b.readBigInt64BE(at);
      case 't': return le ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at);
      default: return le ? b.readDoubleLE(at) : b.readDoubleBE(at);
    }
  }
  text(length: number): string {
    this.need(length + 1);
    const s = this.buf.toString('utf8', this.pos, this.pos + length);
    if (this.buf[this.pos + length] !== 0) throw new WireError('a string is not NUL-terminated');
    this.pos += length + 1;
    return s;
  }
  value(t: TypeNode, depth: number): DBusValue {
    if (depth > MAX_DEPTH) throw new WireError('value nested too deep');
    this.align(ALIGN[t.code]!);
    switch (t.code) {
      case 'y': return this.u8();
      case 'b': { const v = this.u32(); if (v > 1) throw new WireError('a boolean is neither 0 nor 1'); return v === 1; }
      case 's': case 'o': { const s = this.text(this.u32()); if (t.code === 'o' && !OBJECT_PATH.test(s)) throw new WireError('a bad object path'); return s; }
      case 'g': return this.text(this.u8());
      case 'v': {
        const sig = this.text(this.u8());
        const inner = parseSignature(sig);
        if (inner.length !== 1) throw new WireError('a variant holds one complete type');
        return new Variant(sig, this.value(inner[0]!, depth + 1));
      }
      case 'a': {
        const length = this.u32();
        if (length > 64 * 1024 * 1024) throw new WireError('an array is too long');
        const child = t.children[0]!;
        this.align(ALIGN[child.code]!);
        this.need(length);
        const stop = this.pos + length;
        if (child.code === 'y') { const bytes = Buffer.from(this.buf.subarray(this.pos, stop)); this.pos = stop; return bytes; }
        const items: DBusValue[] = [];
        while (this.pos < stop) items.push(this.value(child, depth + 1));
        if (this.pos !== stop) throw new WireError('an array element runs past its array');
        return items;
      }
      case '(': case '{': return t.children.map((child) => this.value(child, depth + 1));
      default: return this.number(t.code);
    }
  }
}

export const METHOD_CALL = 1;
export const METHOD_RETURN = 2;
export const ERROR = 3;
export const SIGNAL = 4;
/** The flag that says no reply is wanted. */
export const NO_REPLY_EXPECTED = 1;

export interface MessageFields {
  path?: string;
  interface?: string;
  member?: string;
  errorName?: string;
  replySerial?: number;
  destination?: string;
  sender?: string;
}

export interface Message extends MessageFields {
  type: number;
  flags: number;
  serial: number;
  signature: string;
  body: DBusValue[];
}

const FIELDS: Array<[keyof MessageFields, number, string]> = [
  ['path', 1, 'o'], ['interface', 2, 's'], ['member', 3, 's'], ['errorName', 4, 's'], ['replySerial', 5, 'u'], ['destination', 6, 's'], ['sender', 7, 's'],
];

/** A whole message, little-endian. */
export function encodeMessage(m: MessageFields & { type: number; serial: number; flags?: number; signature?: string; body?: readonly DBusValue[] }): Buffer {
  const signature = m.signature ?? '';
  const fields: DBusValue[] = [];
  for (const [name, code, sig] of FIELDS) if (m[name] !== undefined) fields.push([code, new Variant(sig, m[name]!)]);
  if (signature) fields.push([8, new Variant('g', signature)]);
  const w = new Writer();
  w.u8(0x6c); w.u8(m.type); w.u8(m.flags ?? 0); w.u8(1);
  w.u32(0); w.u32(m.serial);
  writeValue(w, parseSignature('a(yv)')[0]!, fields);
  w.align(8);
  const bodyStart = w.length;
  writeBody(w, signature, m.body ?? []);
  w.buf.writeUInt32LE(w.length - bodyStart, 4);
  return Buffer.from(w.buf.subarray(0, w.length));
}

/** The length of the message at the start of `buf`, or null when its fixed header has not all arrived. */
export function messageLength(buf: Buffer): number | null {
  if (buf.length < 16) return null;
  const little = buf[0] === 0x6c;
  if (!little && buf[0] !== 0x42) throw new WireError('not a D-Bus message (bad byte order mark)');
  if (buf[3] !== 1) throw new WireError(`unknown D-Bus protocol version ${buf[3]}`);
  const body = little ? buf.readUInt32LE(4) : buf.readUInt32BE(4);
  const fields = little ? buf.readUInt32LE(12) : buf.readUInt32BE(12);
  const header = 16 + fields + ((8 - (fields % 8)) % 8);
  if (header + body > MAX_MESSAGE) throw new WireError('a message longer than this client accepts');
  return header + body;
}

/** One whole message (exactly `messageLength` bytes). The body is read only when `withBody`. */
export function decodeMessage(buf: Buffer, withBody = true): Message {
  const length = messageLength(buf);
  if (length === null || length !== buf.length) throw new WireError('not one whole message');
  const little = buf[0] === 0x6c;
  const r = new Reader(buf, 12, buf.length, little);
  const m: Message = { type: buf[1]!, flags: buf[2]!, serial: little ? buf.readUInt32LE(8) : buf.readUInt32BE(8), signature: '', body: [] };
  const fields = r.value(parseSignature('a(yv)')[0]!, 0) as Array<[number, Variant]>;
  for (const [code, variant] of fields) {
    if (code === 8 && variant.signature === 'g') m.signature = variant.value as string;
    const known = FIELDS.find(([, c]) => c === code);
    if (known && variant.signature === known[2]) (m as unknown as Record<string, unknown>)[known[0]] = variant.value;
  }
  r.align(8);
  if (m.serial === 0) throw new WireError('a message with serial 0');
  if (withBody && m.signature) {
    m.body = parseSignature(m.signature).map((t) => r.value(t, 0));
    if (r.pos !== buf.length) throw new WireError('the body is longer than its signature');
  }
  return m;
}
