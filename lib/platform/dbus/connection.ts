/**
 * A D-Bus connection over a Unix socket: SASL `EXTERNAL` (the kernel vouches for our uid; the bus is checked to be
 * ours, below: socketOwnerProblem), `Hello`, then method
 * calls matched to their replies by serial; signals and anything else unasked for are skipped. The whole
 * connection lives under one deadline: when it passes, the socket is closed and every call still waiting fails
 * with BusTimeout. A call's promise settles exactly once, and a failure is always one of the errors below (or a
 * WireError for a reply that cannot be read).
 */
import { statSync } from 'node:fs';
import type { Socket } from 'node:net';
import { builtin } from '../builtin.js';
import { decodeMessage, encodeMessage, ERROR, messageLength, METHOD_CALL, METHOD_RETURN, WireError, type DBusValue, type Message } from './wire.js';

/** An error the peer answered with: its D-Bus name (`org.freedesktop.DBus.Error.ServiceUnknown`) and its text. */
export class DBusError extends Error {
  constructor(readonly errorName: string, text: string) {
    super(text ? `${errorName}: ${text}` : errorName);
    this.name = 'DBusError';
  }
}

/** Nothing to connect to at any of the addresses (the code of the last attempt: ENOENT, ECONNREFUSED, ...). */
export class BusUnreachable extends Error {
  constructor(readonly code: string) {
    super(`no D-Bus session bus (${code})`);
    this.name = 'BusUnreachable';
  }
}

/** The bus did not accept us (authentication refused) or closed the connection. */
export class BusClosed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BusClosed';
  }
}

export class BusTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'BusTimeout';
  }
}

export interface BusCall {
  destination: string;
  path: string;
  interface: string;
  member: string;
  signature?: string;
  body?: readonly DBusValue[];
}

export interface Bus {
  /** The reply's body; rejects with DBusError for an error reply, WireError when the reply's signature is not `expect`. */
  call(call: BusCall, expect: string): Promise<DBusValue[]>;
  close(): void;
}

const MAX_AUTH_LINE = 4096;

export interface OpenOptions {
  timeoutMs: number;
  uid?: number;
  /** The `guid=` each socket's address names (same order as the sockets; null: none named). */
  guids?: ReadonlyArray<string | null>;
}

/**
 * Who the bus is, checked before anything is sent: the kernel tells Node nothing of the peer (no SO_PEERCRED), so a
 * socket at a path must belong to this user (or root), whose file another user cannot put there, and a bus whose
 * address names a `guid=` must answer `OK` with that guid (an abstract socket, open to every user, has no owner to
 * check: its guid is what binds it to the bus that was started for this session).
 */
export function socketOwnerProblem(path: string, owner: number, uid: number | undefined): string | null {
  if (uid === undefined || owner === uid || owner === 0) return null;
  return `the session bus socket ${path} belongs to another user (uid ${owner})`;
}

/**
 * Connects to the first socket that accepts and authenticates, all within `timeoutMs` (which then bounds the calls
 * too). Returned at once: calls made before the bus accepted us are sent right after `Hello`, in the same write,
 * so an operation of three calls costs two round trips rather than five. `BEGIN` follows `AUTH` without waiting
 * for its answer, as sd-bus does.
 */
export function openBus(sockets: readonly string[], options: OpenOptions): Bus {
  const net = builtin<typeof import('node:net')>('node:net');
  const uid = options.uid ?? process.getuid?.() ?? 0;
  let socket: Socket | null = null;
  let authenticated = false;
  let authText = '';
  let inbox: Buffer = Buffer.alloc(0);
  let serial = 0;
  /** The index of the socket being spoken to. */
  let current = 0;
  let failure: Error | null = null;
  /** Messages waiting for the bus to accept us. */
  let outbox: Buffer[] | null = [];
  const pending = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();

  const fail = (error: Error) => {
    if (failure) return;
    failure = error;
    clearTimeout(timer);
    socket?.destroy();
    outbox = null;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const timer = setTimeout(() => fail(new BusTimeout(options.timeoutMs)), options.timeoutMs);

  const send = (call: BusCall): Promise<Message> => {
    if (failure) return Promise.reject(failure);
    const id = ++serial;
    const promise = new Promise<Message>((resolve, reject) => pending.set(id, { resolve, reject }));
    // Marked handled: a call whose caller already gave up (another call failed first) never surfaces as unhandled.
    promise.catch(() => undefined);
    let frame: Buffer;
    try {
      frame = encodeMessage({ type: METHOD_CALL, serial: id, ...call });
    } catch (error) {
      pending.get(id)?.reject(error as Error);
      pending.delete(id);
      return promise;
    }
    if (outbox) outbox.push(frame);
    else socket!.write(frame);
    return promise;
  };

  const dispatch = (frame: Buffer) => {
    const head = decodeMessage(frame, false);
    if ((head.type !== METHOD_RETURN && head.type !== ERROR) || head.replySerial === undefined) return;
    const waiting = pending.get(head.replySerial);
    if (!waiting) return;
    pending.delete(head.replySerial);
    let message: Message;
    try {
      message = decodeMessage(frame, true);
    } catch (error) {
      waiting.reject(error as Error);
      return;
    }
    if (message.type === ERROR) {
      const text = typeof message.body[0] === 'string' ? message.body[0] : '';
      waiting.reject(new DBusError(message.errorName ?? 'org.freedesktop.DBus.Error.Failed', text));
    } else {
      waiting.resolve(message);
    }
  };

  const onData = (chunk: Buffer) => {
    if (failure) return;
    try {
      if (!authenticated) {
        authText += chunk.toString('latin1');
        const end = authText.indexOf('\r\n');
        if (end < 0) {
          if (authText.length > MAX_AUTH_LINE) throw new BusClosed('the session bus sent no authentication answer');
          return;
        }
        const line = authText.slice(0, end);
        if (!line.startsWith('OK ')) throw new BusClosed(`the session bus did not accept this user (${line.slice(0, 80).replace(/[^\x20-\x7e]/g, '')})`);
        const expected = options.guids?.[current] ?? null;
        const answered = line.slice(3).trim();
        if (expected !== null && answered.toLowerCase() !== expected.toLowerCase()) {
          throw new BusClosed(`the bus at this address is not the session bus its address names (guid ${answered.slice(0, 32).replace(/[^0-9a-zA-Z]/g, '')}, not ${expected.slice(0, 32).replace(/[^0-9a-zA-Z]/g, '')})`);
        }
        authenticated = true;
        inbox = Buffer.from(authText.slice(end + 2), 'latin1');
        const queued = outbox ?? [];
        outbox = null;
        socket!.write(Buffer.concat(queued));
      } else {
        inbox = inbox.length ? Buffer.concat([inbox, chunk]) : chunk;
      }
      for (;;) {
        const length = messageLength(inbox);
        if (length === null || inbox.length < length) break;
        const frame = inbox.subarray(0, length);
        inbox = inbox.subarray(length);
        dispatch(frame);
      }
    } catch (error) {
      fail(error as Error);
    }
  };

  const attempt = (index: number, lastCode: string) => {
    if (failure) return;
    if (index >= sockets.length) { fail(new BusUnreachable(lastCode)); return; }
    const path = sockets[index]!;
    // An abstract name (a leading NUL) has no file to own.
    if (!path.startsWith('\0')) {
      let owner: number;
      try {
        owner = statSync(path).uid;
      } catch (error) {
        attempt(index + 1, (error as NodeJS.ErrnoException).code ?? 'error');
        return;
      }
      const problem = socketOwnerProblem(path, owner, process.getuid?.());
      if (problem) { fail(new BusClosed(problem)); return; }
    }
    connect(index);
  };
  const connect = (index: number) => {
    current = index;
    const s = net.connect({ path: sockets[index]! });
    socket = s;
    let connected = false;
    s.on('connect', () => {
      connected = true;
      s.write(Buffer.from(`\0AUTH EXTERNAL ${Buffer.from(String(uid)).toString('hex')}\r\nBEGIN\r\n`, 'latin1'));
    });
    s.on('data', onData);
    s.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected) { s.destroy(); attempt(index + 1, error.code ?? 'error'); } else fail(new BusClosed(`the session bus connection failed (${error.code ?? error.message})`));
    });
    s.on('close', () => { if (connected) fail(new BusClosed('the session bus closed the connection')); });
  };

  // The bus's first message must be Hello; its answer (our unique name) is not needed, only that it came.
  send({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'Hello' })
    .then((reply) => { if (reply.signature !== 's') fail(new WireError('Hello answered without a name')); }, (error: Error) => fail(error));
  attempt(0, 'no address');
  return {
    async call(call, expect) {
      const reply = await send(call);
      if (reply.signature !== expect) throw new WireError(`${call.member} answered with signature "${reply.signature}", not "${expect}"`);
      return reply.body;
    },
    close() { fail(new BusClosed('the connection was closed')); },
  };
}
