/**
 * The Secret Service client that speaks D-Bus itself (platform/keychain/secretServiceBus.ts), against a real GNOME
 * Keyring on a private session bus (helpers/secretService.ts) and against small Unix servers of this test that
 * never answer or answer nonsense: its items are `secret-tool`'s (each reads what the other wrote), a replace keeps
 * one item, a locked collection is `locked` at once, a bus without the service is `unavailable`, silence is
 * `timeout` within the bound, and no reply, however broken, makes it throw anything but a KeychainError.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { chownSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ABSTRACT_SOCKETS, sessionBus } from '../../lib/platform/dbus/address.js';
import { decodeMessage, encodeMessage, ERROR, messageLength, METHOD_RETURN, Variant, type DBusValue } from '../../lib/platform/dbus/wire.js';
import { secretServiceBusKeychain } from '../../lib/platform/keychain/secretServiceBus.js';
import { systemKeychain } from '../../lib/platform/keychain/system.js';
import { KeychainError, type Keychain } from '../../lib/platform/keychain/types.js';
import { besideBaseline, expectWithinDeadline, timerMs } from '../helpers/deadline.js';
import { tempDir } from '../helpers/repo.js';
import { secretServiceMissing, startSecretService, type SecretServiceSession } from '../helpers/secretService.js';
import { notRunWhen } from '../helpers/notRun.js';

const missing = secretServiceMissing();
const SECRET = 'rt_Zq9-example.refresh~token_0123456789abcdef';
const KEY = { service: 'agentstack-cursor', server: 'https://agentstack.example/mcp', account: '/home/a person/.cursor' };
let session: SecretServiceSession | null = null;
let dir: ReturnType<typeof tempDir>;
const servers: Server[] = [];
const accepted: Socket[] = [];
beforeEach(() => { dir = tempDir('agentstack-dbus-'); });
afterEach(async () => {
  await session?.stop();
  session = null;
  for (const socket of accepted.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  dir.cleanup();
});

const items = (s: SecretServiceSession) => s.search({ service: KEY.service }).split('\n').filter((l) => l.startsWith('[')).length;
const keychainOn = (env: Record<string, string>, timeoutMs?: number): Keychain => {
  const chosen = systemKeychain({ env, timeoutMs })!;
  expect(chosen.unavailable()).toBeNull();
  return chosen;
};
async function problemOf(p: Promise<unknown>): Promise<KeychainError> {
  const error = await p.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(KeychainError);
  return error as KeychainError;
}


describe('against a real Secret Service (GNOME Keyring on a private bus)', notRunWhen(missing, { timeout: 60_000 }), () => {
  it('our put is what secret-tool lookup finds; secret-tool store is what our get reads; a replace keeps one item; delete removes it', async () => {
    session = await startSecretService();
    const keychain = keychainOn(session.env);
    await keychain.put(KEY, SECRET, 'AgentStack refresh token');
    expect(session.lookup(KEY)).toBe(SECRET);
    expect(session.search(KEY)).toContain('label = AgentStack refresh token');

    session.store(KEY, 'from secret-tool é');
    expect(await keychain.get(KEY)).toBe('from secret-tool é');
    expect(items(session)).toBe(1);

    await keychain.put(KEY, `${SECRET}-2`, 'AgentStack refresh token');
    await keychain.put(KEY, `${SECRET}-3`, 'AgentStack refresh token');
    expect(items(session)).toBe(1);
    expect(session.lookup(KEY)).toBe(`${SECRET}-3`);
    expect(await keychain.get({ ...KEY, account: '/elsewhere' })).toBeNull();

    expect(await keychain.delete(KEY)).toBe(true);
    expect(session.lookup(KEY)).toBeNull();
    expect(await keychain.get(KEY)).toBeNull();
    expect(await keychain.delete(KEY)).toBe(false);
  });

  it('forget removes every item of the service and account, whatever its server (one secret-tool put there too), and no other', async () => {
    session = await startSecretService();
    const keychain = keychainOn(session.env);
    await keychain.put(KEY, SECRET, 'l');
    await keychain.put({ ...KEY, server: 'https://agentstack.example' }, SECRET, 'l');
    session.store({ ...KEY, server: 'https://other.example/' }, SECRET);
    await keychain.put({ ...KEY, account: '/elsewhere' }, SECRET, 'l');
    session.store({ service: 'another-app', server: KEY.server, account: KEY.account }, SECRET);
    await keychain.forget!({ service: KEY.service, account: KEY.account, label: 'l' });
    expect(items(session)).toBe(1);
    expect(await keychain.get({ ...KEY, account: '/elsewhere' })).toBe(SECRET);
    expect(session.lookup({ service: 'another-app', server: KEY.server, account: KEY.account })).toBe(SECRET);
    await keychain.forget!({ service: KEY.service, account: KEY.account, label: 'l' });
    session.lock();
    expect(await problemOf(keychain.forget!({ service: KEY.service, account: '/elsewhere', label: 'l' }))).toMatchObject({ problem: 'locked' });
  });

  it('a locked collection is `locked` at once for put, get and delete: no prompt is asked for, none waited on', async () => {
    session = await startSecretService();
    const keychain = keychainOn(session.env);
    // What a call that finds its item costs here now: a locked answer asks for nothing more, and waits on no password.
    const unlockedStarted = performance.now();
    await keychain.put(KEY, SECRET, 'l');
    const baselineMs = performance.now() - unlockedStarted;
    session.lock();
    for (const op of [() => keychain.put(KEY, 'other', 'l'), () => keychain.get(KEY), () => keychain.delete(KEY)]) {
      const started = performance.now();
      const error = await problemOf(op());
      expect(error).toMatchObject({ problem: 'locked', message: 'the keyring is locked' });
      expectWithinDeadline(performance.now() - started, { baselineMs, what: 'a locked keyring\'s answer' });
    }
  });

  it('reaches a bus at an abstract address (Node 22 on; Node 20 through secret-tool) and at a path, and tries the addresses of a list in turn', async () => {
    session = await startSecretService({ listen: `unix:abstract=/tmp/agentstack-test-${process.pid}-${Date.now()}` });
    expect(session.env.DBUS_SESSION_BUS_ADDRESS).toMatch(/^unix:abstract=/);
    if (ABSTRACT_SOCKETS) expect(sessionBus(session.env).sockets[0]).toMatch(/^\0\/tmp\/agentstack-test-/);
    else expect(sessionBus(session.env).sockets).toEqual([]);
    await keychainOn(session.env).put(KEY, SECRET, 'l');
    expect(session.lookup(KEY)).toBe(SECRET);
    await session.stop();

    const path = join(dir.path, 'bus socket');
    session = await startSecretService({ listen: `unix:path=${path.replace(/ /g, '%20')}` });
    const env = { ...session.env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir.path, 'nothing')};tcp:host=127.0.0.1,port=9;${session.env.DBUS_SESSION_BUS_ADDRESS}` };
    expect(sessionBus(env).sockets).toEqual([join(dir.path, 'nothing'), path]);
    const keychain = keychainOn(env);
    await keychain.put(KEY, SECRET, 'l');
    expect(await keychain.get(KEY)).toBe(SECRET);
  });

  it('the real bus answers with the guid its address names; an address naming another guid is refused before any call', async () => {
    session = await startSecretService();
    const address = session.env.DBUS_SESSION_BUS_ADDRESS!;
    const guid = /guid=([0-9a-f]{32})/.exec(address)?.[1];
    expect(guid).toMatch(/^[0-9a-f]{32}$/);
    await keychainOn(session.env).put(KEY, SECRET, 'l');
    const other = address.replace(guid!, guid!.replace(/^./, (c) => (c === '0' ? '1' : '0')));
    const error = await problemOf(keychainOn({ ...session.env, DBUS_SESSION_BUS_ADDRESS: other }).get(KEY));
    expect(error).toMatchObject({ problem: 'unavailable', message: expect.stringContaining('is not the session bus its address names') });
  });

  it('a session bus without a Secret Service is `unavailable`; an address with nothing listening is no session bus', async () => {
    session = await startSecretService({ keyring: false, bare: true });
    const error = await problemOf(keychainOn(session.env).get(KEY));
    expect(error).toMatchObject({ problem: 'unavailable', message: 'no Secret Service on this session bus' });
    expect(await problemOf(keychainOn({ DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir.path, 'none')}` }).put(KEY, SECRET, 'l'))).toMatchObject({ problem: 'unavailable', message: 'no D-Bus session bus' });
  });
});

/** A Unix server at a path in the test's folder; `onConnection` plays the bus. */
async function fakeBus(onConnection: (socket: Socket) => void): Promise<Record<string, string>> {
  const path = join(dir.path, `bus-${servers.length}`);
  const server = createServer((socket) => { accepted.push(socket); socket.on('error', () => undefined); onConnection(socket); });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { DBUS_SESSION_BUS_ADDRESS: `unix:path=${path}` };
}

/** A bus that authenticates and then answers each call with `answer` (the Hello too, unless `helloOk`). */
function answering(answer: (call: ReturnType<typeof decodeMessage>, socket: Socket) => void, helloOk = true) {
  return (socket: Socket) => {
    let authed = false;
    let inbox = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      inbox = Buffer.concat([inbox, chunk]);
      if (!authed) {
        const text = inbox.toString('latin1');
        const end = text.indexOf('BEGIN\r\n');
        if (end < 0) return;
        authed = true;
        socket.write('OK 0123456789abcdef0123456789abcdef\r\n');
        inbox = inbox.subarray(end + 7);
      }
      for (;;) {
        const length = messageLength(inbox);
        if (length === null || inbox.length < length) return;
        const call = decodeMessage(inbox.subarray(0, length));
        inbox = inbox.subarray(length);
        if (helloOk && call.member === 'Hello') socket.write(encodeMessage({ type: METHOD_RETURN, serial: 1000 + call.serial, replySerial: call.serial, signature: 's', body: [':1.7'] }));
        else answer(call, socket);
      }
    });
  };
}

const reply = (serial: number, signature: string, body: DBusValue[], type = METHOD_RETURN, errorName?: string) =>
  encodeMessage({ type, serial: 5000 + serial, replySerial: serial, signature, body, errorName });

describe('against buses that never answer or answer nonsense', { timeout: 60_000 }, () => {
  const ops = (k: Keychain) => [() => k.get(KEY), () => k.put(KEY, SECRET, 'l'), () => k.delete(KEY)];

  it('a socket that accepts and never answers, and a bus that authenticates and then says nothing: `timeout` within the bound', async () => {
    const answeringEnv = await fakeBus(answering((c, s) => s.write(reply(c.serial, 's', ['nobody'], ERROR, 'org.freedesktop.DBus.Error.ServiceUnknown'))));
    for (const env of [await fakeBus(() => undefined), await fakeBus(answering(() => undefined, false)), await fakeBus(answering(() => undefined))]) {
      for (const op of ops(keychainOn(env, 400))) {
        // Beside it, a plain 400 ms timer (the deadline as this loaded process fires it) and a bus that answers.
        const [{ value: error, ms, baselineMs }, deadlineMs] = await Promise.all([
          besideBaseline(() => problemOf(op()), () => problemOf(keychainOn(answeringEnv).get(KEY))),
          timerMs(400),
        ]);
        expect(error).toMatchObject({ problem: 'timeout', message: 'the Secret Service did not answer within 0.4 s (a locked keyring waiting for its password?)' });
        expect(ms).toBeGreaterThanOrEqual(350);
        expectWithinDeadline(ms, { deadlineMs, nominalMs: 400, baselineMs, what: 'a silent bus' });
      }
    }
  });

  it('the default bound is the keychain\'s 2 s', async () => {
    const started = Date.now();
    expect(await problemOf(keychainOn(await fakeBus(() => undefined)).get(KEY))).toMatchObject({ problem: 'timeout', message: expect.stringContaining('within 2 s') });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
  });

  it('broken answers are a KeychainError, never another throw, never the secret in the message', async () => {
    const broken: Array<(call: ReturnType<typeof decodeMessage>, socket: Socket) => void> = [
      (_c, s) => s.write('garbage, not a D-Bus message at all.........'),
      (c, s) => s.write(reply(c.serial, 's', ['wrong signature'])),
      (c, s) => s.write(reply(c.serial, '', [])),
      (c, s) => { const m = reply(c.serial, 'ao', [['/a']]); m.writeUInt32LE(100 * 1024 * 1024, 4); s.write(m); },
      (c, s) => { const m = reply(c.serial, 'ao', [['/a', '/b']]); s.write(m.subarray(0, m.length - 3)); s.end(); },
      (c, s) => { const m = reply(c.serial, 'aoao', [['/a'], []]); m[m.length - 20] = 0xff; s.write(m); },
      (c, s) => s.write(reply(c.serial, 's', ['went wrong'], ERROR, 'org.example.Weird')),
      (c, s) => s.write(reply(c.serial, '', [], ERROR, 'org.freedesktop.DBus.Error.ServiceUnknown')),
      (c, s) => s.write(reply(c.serial, 'o', ['/a/prompt'])),
      (_c, s) => s.destroy(),
    ];
    for (const answer of broken) {
      const env = await fakeBus(answering(answer));
      for (const op of ops(keychainOn(env, 1_000))) {
        const error = await problemOf(op());
        expect(['failed', 'unavailable', 'locked', 'timeout']).toContain(error.problem);
        expect(error.message).not.toContain(SECRET);
      }
    }
    const refused = await fakeBus((s) => s.once('data', () => s.write('REJECTED EXTERNAL\r\n')));
    expect(await problemOf(keychainOn(refused).get(KEY))).toMatchObject({ problem: 'unavailable', message: 'no usable D-Bus session bus: the session bus did not accept this user (REJECTED EXTERNAL)' });
    const noService = await fakeBus(answering((c, s) => s.write(reply(c.serial, 's', ['nobody'], ERROR, 'org.freedesktop.DBus.Error.ServiceUnknown'))));
    expect(await problemOf(keychainOn(noService).put(KEY, SECRET, 'l'))).toMatchObject({ problem: 'unavailable', message: 'no Secret Service on this session bus' });
  });

  it('a service that answers with a prompt to show, lists the item as locked, or has no default collection is `locked`: the prompt is never shown', async () => {
    const calls: string[] = [];
    const env = await fakeBus(answering((c, s) => {
      calls.push(c.member!);
      if (c.member === 'OpenSession') s.write(reply(c.serial, 'vo', [new Variant('s', ''), '/org/freedesktop/secrets/session/s1']));
      else if (c.member === 'SearchItems') s.write(reply(c.serial, 'aoao', [['/org/freedesktop/secrets/collection/login/1'], []]));
      else s.write(reply(c.serial, c.member === 'CreateItem' ? 'oo' : 'o', c.member === 'CreateItem' ? ['/', '/org/freedesktop/secrets/prompt/p1'] : ['/org/freedesktop/secrets/prompt/p2']));
    }));
    const k = keychainOn(env);
    expect(await problemOf(k.put(KEY, SECRET, 'l'))).toMatchObject({ problem: 'locked', message: 'the keyring is locked' });
    expect(await problemOf(k.delete(KEY))).toMatchObject({ problem: 'locked' });
    const lockedOnly = await fakeBus(answering((c, s) => {
      if (c.member === 'OpenSession') s.write(reply(c.serial, 'vo', [new Variant('s', ''), '/org/freedesktop/secrets/session/s1']));
      else s.write(reply(c.serial, 'aoao', [[], ['/org/freedesktop/secrets/collection/login/1']]));
    }));
    expect(await problemOf(keychainOn(lockedOnly).get(KEY))).toMatchObject({ problem: 'locked' });
    const noCollection = await fakeBus(answering((c, s) => {
      if (c.member === 'OpenSession') s.write(reply(c.serial, 'vo', [new Variant('s', ''), '/org/freedesktop/secrets/session/s1']));
      else s.write(reply(c.serial, 's', [`Object does not exist at path “${c.path}”`], ERROR, 'org.freedesktop.DBus.Error.UnknownMethod'));
    }));
    expect(await problemOf(keychainOn(noCollection).put(KEY, SECRET, 'l'))).toMatchObject({ problem: 'locked', message: 'the keyring has no usable collection (org.freedesktop.DBus.Error.UnknownMethod: Object does not exist at path “/org/freedesktop/secrets/aliases/default”)' });
    expect(calls).not.toContain('Prompt');
    expect(calls).not.toContain('Unlock');
  });

  it('a bus that answers OK with another guid than its address names is refused; the named guid (any case) is accepted', async () => {
    const calls: string[] = [];
    const env = await fakeBus(answering((c, s) => { calls.push(c.member!); s.write(reply(c.serial, 's', ['nobody'], ERROR, 'org.freedesktop.DBus.Error.ServiceUnknown')); }));
    const wrong = { DBUS_SESSION_BUS_ADDRESS: `${env.DBUS_SESSION_BUS_ADDRESS},guid=ffffffffffffffffffffffffffffffff` };
    expect(await problemOf(keychainOn(wrong).put(KEY, SECRET, 'l'))).toMatchObject({ problem: 'unavailable', message: 'no usable D-Bus session bus: the bus at this address is not the session bus its address names (guid 0123456789abcdef0123456789abcdef, not ffffffffffffffffffffffffffffffff)' });
    // Nothing but the authentication reached it: the calls queued behind it were never sent.
    expect(calls).toEqual([]);
    const right = { DBUS_SESSION_BUS_ADDRESS: `${env.DBUS_SESSION_BUS_ADDRESS},guid=0123456789ABCDEF0123456789abcdef` };
    expect(await problemOf(keychainOn(right).put(KEY, SECRET, 'l'))).toMatchObject({ problem: 'unavailable', message: 'no Secret Service on this session bus' });
    expect(calls).toEqual(['OpenSession']);
  });

  it.skipIf(process.getuid?.() !== 0)('a socket at a path that belongs to another user is refused before connecting (as root: the socket is given to nobody)', async () => {
    let connected = 0;
    const env = await fakeBus(answering((c, s) => s.write(reply(c.serial, 's', ['nobody'], ERROR, 'org.freedesktop.DBus.Error.ServiceUnknown'))));
    servers.at(-1)!.on('connection', () => { connected++; });
    const path = env.DBUS_SESSION_BUS_ADDRESS!.slice('unix:path='.length);
    chownSync(path, 65534, 65534);
    expect(await problemOf(keychainOn(env).get(KEY))).toMatchObject({ problem: 'unavailable', message: `no usable D-Bus session bus: the session bus socket ${path} belongs to another user (uid 65534)` });
    expect(connected).toBe(0);
    chownSync(path, 0, 0);
    expect(await problemOf(keychainOn(env).get(KEY))).toMatchObject({ message: 'no Secret Service on this session bus' });
    expect(connected).toBe(1);
  });

  it('no session bus at all is said without connecting; the keychain with no sockets refuses every call the same way', async () => {
    const k = secretServiceBusKeychain({ env: {}, sockets: [] });
    expect(k.unavailable()).toBe('no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)');
    expect(await problemOf(k.get(KEY))).toMatchObject({ problem: 'unavailable' });
  });
});
