/**
 * D-Bus's wire format (platform/dbus/wire.ts) against byte vectors worked out by hand from the specification, both
 * byte orders read, and arbitrary or damaged input never failing with anything but a WireError; the session bus's
 * address (platform/dbus/address.ts) and which Linux backend an address gets.
 */
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAddresses, sessionBus, socketPathOf } from '../../lib/platform/dbus/address.js';
import { decodeMessage, encodeMessage, ERROR, marshal, messageLength, METHOD_CALL, METHOD_RETURN, parseSignature, Variant, WireError } from '../../lib/platform/dbus/wire.js';
import { tempDir } from '../helpers/repo.js';

const hex = (b: Buffer) => b.toString('hex');
const bytes = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('marshalling (little-endian)', () => {
  it('basic types: strings with their length and NUL, booleans as 4 bytes, each value aligned to its size', () => {
    expect(hex(marshal('s', ['hi']))).toBe('02000000' + '686900');
    expect(hex(marshal('ys', [1, 'a']))).toBe('01' + '000000' + '01000000' + '6100');
    expect(hex(marshal('b', [true]))).toBe('01000000');
    expect(hex(marshal('yu', [7, 0x01020304]))).toBe('07000000' + '04030201');
    expect(hex(marshal('o', ['/a/b']))).toBe('04000000' + '2f612f6200');
    expect(hex(marshal('g', ['a{ss}']))).toBe('05' + '617b73737d00');
  });

  it('arrays: the length counts the elements only, after the padding to the first element; ay is raw bytes', () => {
    expect(hex(marshal('ay', [Buffer.from([1, 2, 3])]))).toBe('03000000' + '010203');
    expect(hex(marshal('ay', [Buffer.alloc(0)]))).toBe('00000000');
    // a{ss}: length, pad to 8, then each entry (8-aligned) of two strings.
    expect(hex(marshal('a{ss}', [[['k', 'v']]]))).toBe('0e000000' + '00000000' + '01000000' + '6b00' + '0000' + '01000000' + '7600');
    // An empty array of 8-aligned elements still pads to 8, and the length is 0.
    expect(hex(marshal('ya{ss}', [9, []]))).toBe('09000000' + '00000000');
    expect(hex(marshal('ao', [['/', '/x']]))).toBe('0f000000' + '01000000' + '2f00' + '0000' + '02000000' + '2f7800');
  });

  it('variants carry their signature; structs align to 8', () => {
    expect(hex(marshal('v', [new Variant('s', 'x')]))).toBe('01' + '7300' + '00' + '01000000' + '7800');
    expect(hex(marshal('y(oayays)', [5, ['/', Buffer.from('p'), Buffer.from('sec'), 't']]))).toBe(
      '05' + '00000000000000' + '01000000' + '2f00' + '0000' + '01000000' + '70' + '000000' + '03000000' + '736563' + '00' + '01000000' + '7400');
    expect(hex(marshal('a{sv}', [[['L', new Variant('s', 'x')]]]))).toBe('12000000' + '00000000' + '01000000' + '4c00' + '01' + '7300' + '000000' + '01000000' + '7800');
  });

  it('refuses what cannot be sent: a NUL in a string, a bad object path, the wrong number of values, a bad signature', () => {
    expect(() => marshal('s', ['a\0b'])).toThrow(WireError);
    expect(() => marshal('o', ['not/a/path'])).toThrow(WireError);
    expect(() => marshal('o', ['/trailing/'])).toThrow(WireError);
    expect(() => marshal('ss', ['one'])).toThrow(WireError);
    for (const bad of ['a', '(', '()', '{ss}', 'a{vs}', 'a{sss}', 'z']) expect(() => parseSignature(bad), bad).toThrow(WireError);
  });
});

describe('messages', () => {
  it('a method call: the fixed header, the fields as a(yv) padded to 8, then the body', () => {
    const m = encodeMessage({ type: METHOD_CALL, serial: 1, path: '/a', member: 'M', signature: 's', body: ['x'] });
    expect(hex(m)).toBe(
      '6c' + '01' + '00' + '01' + '06000000' + '01000000' + '27000000'
      + '01' + '01' + '6f00' + '02000000' + '2f6100' + '0000000000' // PATH /a, padded to 8
      + '03' + '01' + '7300' + '01000000' + '4d00' + '000000000000' // MEMBER M, padded to 8
      + '08' + '01' + '6700' + '01' + '7300' // SIGNATURE s
      + '00' // header padded to 8
      + '01000000' + '7800'); // body
    expect(messageLength(m)).toBe(m.length);
    expect(decodeMessage(m)).toMatchObject({ type: METHOD_CALL, serial: 1, path: '/a', member: 'M', signature: 's', body: ['x'] });
  });

  it('reads a big-endian reply and an error with its name and text', () => {
    const be = bytes(`42 02 01 01 00000006 00000007 0000000f
      05 01 7500 00000003  08 01 6700 01 7300 00  00000001 6f00  ffff`);
    expect(messageLength(be)).toBe(be.length - 2);
    expect(decodeMessage(be.subarray(0, be.length - 2), true)).toMatchObject({ type: METHOD_RETURN, flags: 1, serial: 7, replySerial: 3, signature: 's' });
    const error = decodeMessage(encodeMessage({ type: ERROR, serial: 9, replySerial: 2, errorName: 'org.freedesktop.Secret.Error.IsLocked', signature: 's', body: ['locked'] }));
    expect(error).toMatchObject({ type: ERROR, replySerial: 2, errorName: 'org.freedesktop.Secret.Error.IsLocked', body: ['locked'] });
  });

  it('round-trips the Secret Service\'s types', () => {
    const body = [[['org.freedesktop.Secret.Item.Label', new Variant('s', 'L')], ['org.freedesktop.Secret.Item.Attributes', new Variant('a{ss}', [['service', 's'], ['account', '/h é']])]], ['/s', Buffer.alloc(0), Buffer.from('secret'), 'text/plain'], true];
    const back = decodeMessage(encodeMessage({ type: METHOD_CALL, serial: 4, path: '/c', member: 'CreateItem', signature: 'a{sv}(oayays)b', body }));
    expect(back.body).toEqual(body);
  });

  it('a message whose length, version or byte order is wrong is a WireError; a fixed header not all here is "not yet"', () => {
    const m = encodeMessage({ type: METHOD_RETURN, serial: 2, replySerial: 1, signature: 'ao', body: [['/a']] });
    expect(messageLength(m.subarray(0, 15))).toBeNull();
    expect(() => messageLength(Buffer.concat([Buffer.from('x'), m.subarray(1)]))).toThrow(WireError);
    const v2 = Buffer.from(m); v2[3] = 2;
    expect(() => messageLength(v2)).toThrow(WireError);
    const huge = Buffer.from(m); huge.writeUInt32LE(0x7fffffff, 4);
    expect(() => messageLength(huge)).toThrow(WireError);
    const short = Buffer.from(m); short.writeUInt32LE(2, 4); // the body says 2 bytes: the array runs past it
    expect(() => decodeMessage(short.subarray(0, messageLength(short)!))).toThrow(WireError);
  });

  it('arbitrary bytes, and every single-byte change to a real reply, fail only with a WireError', () => {
    const onlyWireErrors = (buf: Buffer) => {
      try {
        const length = messageLength(buf);
        if (length !== null && length <= buf.length) decodeMessage(buf.subarray(0, length));
      } catch (error) {
        if (!(error instanceof WireError)) throw error;
      }
    };
    fc.assert(fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), (a) => onlyWireErrors(Buffer.from(a))), { numRuns: 2_000 });
    const real = encodeMessage({ type: METHOD_RETURN, serial: 5, replySerial: 4, signature: '(oayays)a{sv}', body: [['/s', Buffer.from('p'), Buffer.from('v'), 't'], [['k', new Variant('av', [new Variant('u', 1)])]]] });
    fc.assert(fc.property(fc.nat(real.length - 1), fc.integer({ min: 0, max: 255 }), (at, value) => {
      const damaged = Buffer.from(real); damaged[at] = value;
      onlyWireErrors(damaged);
    }), { numRuns: 3_000 });
  });
});

describe('the session bus address', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => { dir = tempDir('agentstack-bus-'); });
  afterEach(() => dir.cleanup());

  it('parses addresses separated by ";", keys separated by ",", with %XX escapes; skips what is not an address', () => {
    expect(parseAddresses('unix:path=/run/user/1000/bus')).toEqual([{ transport: 'unix', params: { path: '/run/user/1000/bus' } }]);
    expect(parseAddresses('unix:path=/tmp/a%20b%3bc,guid=00ff;tcp:host=localhost,port=4;junk;unix:abstract=/tmp/dbus-x')).toEqual([
      { transport: 'unix', params: { path: '/tmp/a b;c', guid: '00ff' } },
      { transport: 'tcp', params: { host: 'localhost', port: '4' } },
      { transport: 'unix', params: { abstract: '/tmp/dbus-x' } },
    ]);
    expect(parseAddresses('unix:path=%zz')).toEqual([]);
  });

  it('speaks unix:path everywhere and unix:abstract on Linux where Node can reach it; tcp, launchd and listen-only addresses are not spoken', () => {
    const [abstract] = parseAddresses('unix:abstract=/tmp/dbus-x,guid=1');
    expect(socketPathOf(abstract!, 'linux', true)).toBe('\0/tmp/dbus-x');
    expect(socketPathOf(abstract!, 'linux', false)).toBeNull();
    expect(socketPathOf(abstract!, 'freebsd', true)).toBeNull();
    for (const other of ['tcp:host=127.0.0.1,port=9', 'launchd:env=DBUS_LAUNCHD_SESSION_BUS_SOCKET', 'unix:tmpdir=/tmp', 'nonce-tcp:host=h,port=1']) {
      expect(socketPathOf(parseAddresses(other)[0]!, 'linux', true), other).toBeNull();
    }
    expect(sessionBus({ DBUS_SESSION_BUS_ADDRESS: 'tcp:host=h,port=1' }, 'linux')).toEqual({ address: 'tcp:host=h,port=1', sockets: [], guids: [] });
    expect(sessionBus({ DBUS_SESSION_BUS_ADDRESS: 'unix:abstract=/a;unix:path=/b' }, 'linux', false)).toEqual({ address: 'unix:abstract=/a;unix:path=/b', sockets: ['/b'], guids: [null] });
  });

  it('unset: $XDG_RUNTIME_DIR/bus where it exists (as GLib does), else no bus', () => {
    const runtime = join(dir.path, 'run');
    mkdirSync(runtime);
    expect(sessionBus({ XDG_RUNTIME_DIR: runtime }, 'linux')).toEqual({ address: null, sockets: [], guids: [] });
    writeFileSync(join(runtime, 'bus'), '');
    expect(sessionBus({ XDG_RUNTIME_DIR: runtime }, 'linux')).toEqual({ address: `unix:path=${runtime}/bus`, sockets: [`${runtime}/bus`], guids: [null] });
    expect(sessionBus({}, 'linux')).toEqual({ address: null, sockets: [], guids: [] });
  });
});
