/**
 * Linux: the Secret Service (GNOME Keyring, KWallet, KeePassXC) spoken to directly over the D-Bus session bus, with
 * no process started: a renewal's read and write cost a few socket round trips instead of two `secret-tool` runs.
 * The items are the ones `secret-tool store/lookup/clear` use (attributes service, server, account; the `default`
 * collection), so either can read what the other wrote.
 *
 * The session is `plain`, as libsecret's and go-keyring's can be: the bus is this user's own, and any process of
 * the user could ask the service for the secret anyway. The secret goes only into this process's socket, never into
 * a command line or another process's input. Nothing here ever asks for a prompt: a locked collection or item, or a
 * call that answers with a prompt to show, is `locked`; the person unlocks the keyring themselves.
 */
import { BusClosed, BusTimeout, BusUnreachable, DBusError, openBus, type Bus } from '../dbus/connection.js';
import { Variant, type DBusValue } from '../dbus/wire.js';
import { sessionBusProblem } from './secretService.js';
import { KEYCHAIN_TIMEOUT_MS, KeychainError, type Keychain, type SecretKey } from './types.js';

const DEST = 'org.freedesktop.secrets';
const SECRET = 'org.freedesktop.Secret.';
const SERVICE_PATH = '/org/freedesktop/secrets';
const NO_PROMPT = '/';
/** The default collection by its alias, as libsecret (and so `secret-tool store`) addresses it: no ReadAlias first. */
const DEFAULT_COLLECTION = '/org/freedesktop/secrets/aliases/default';

const attributes = (key: SecretKey): DBusValue[] => [['service', key.service], ['server', key.server], ['account', key.account]];
const printable = (text: string) => text.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '').slice(0, 160);

/** Any failure of a call as the KeychainError a person can act on (the wording the secret-tool backend gives). */
export function busFailure(error: unknown, timeoutMs = KEYCHAIN_TIMEOUT_MS): KeychainError {
  if (error instanceof KeychainError) return error;
  if (error instanceof BusTimeout) return new KeychainError('timeout', `the Secret Service did not answer within ${timeoutMs / 1000} s (a locked keyring waiting for its password?)`);
  if (error instanceof BusUnreachable) return new KeychainError('unavailable', 'no D-Bus session bus');
  if (error instanceof BusClosed) return new KeychainError('unavailable', `no usable D-Bus session bus: ${printable(error.message)}`);
  if (error instanceof DBusError) {
    const name = error.errorName;
    if (/^org\.freedesktop\.DBus\.Error\.(ServiceUnknown|NameHasNoOwner|Spawn\.)/.test(name)) return new KeychainError('unavailable', 'no Secret Service on this session bus');
    if (name === `${SECRET}Error.IsLocked`) return new KeychainError('locked', 'the keyring is locked');
    // No default collection: GNOME Keyring answers UnknownMethod, "Object does not exist at path ...".
    if (name === `${SECRET}Error.NoSuchObject` || name === 'org.freedesktop.DBus.Error.UnknownObject' || /does not exist|no such object/i.test(error.message)) return new KeychainError('locked', `the keyring has no usable collection (${printable(error.message)})`);
    if (/^org\.freedesktop\.DBus\.Error\.(NoReply|Timeout|TimedOut)$/.test(name)) return new KeychainError('timeout', `the Secret Service did not answer within ${timeoutMs / 1000} s (a locked keyring waiting for its password?)`);
    return new KeychainError('failed', `the Secret Service failed: ${printable(error.message)}`);
  }
  return new KeychainError('failed', `the Secret Service gave an answer this client cannot read (${printable(String((error as Error)?.message ?? error))})`);
}

const locked = () => new KeychainError('locked', 'the keyring is locked');

function secretCalls(bus: Bus) {
  const service = (member: string, signature: string, body: DBusValue[], expect: string) =>
    bus.call({ destination: DEST, path: SERVICE_PATH, interface: `${SECRET}Service`, member, signature, body }, expect);
  return {
    async openSession(): Promise<string> {
      const [, path] = await service('OpenSession', 'sv', ['plain', new Variant('s', '')], 'vo');
      return path as string;
    },
    async search(key: SecretKey | DBusValue[]): Promise<{ unlocked: string[]; locked: string[] }> {
      const [unlocked, lockedItems] = await service('SearchItems', 'a{ss}', [Array.isArray(key) ? key : attributes(key)], 'aoao');
      return { unlocked: unlocked as string[], locked: lockedItems as string[] };
    },
    async secretOf(item: string, session: string): Promise<Buffer> {
      const [secret] = await bus.call({ destination: DEST, path: item, interface: `${SECRET}Item`, member: 'GetSecret', signature: 'o', body: [session] }, '(oayays)');
      return (secret as DBusValue[])[2] as Buffer;
    },
    async create(collection: string, session: string, key: SecretKey, secret: string, label: string): Promise<string> {
      const properties: DBusValue[] = [[`${SECRET}Item.Label`, new Variant('s', label)], [`${SECRET}Item.Attributes`, new Variant('a{ss}', attributes(key))]];
      const value: DBusValue[] = [session, Buffer.alloc(0), Buffer.from(secret, 'utf8'), 'text/plain'];
      const [, prompt] = await bus.call({ destination: DEST, path: collection, interface: `${SECRET}Collection`, member: 'CreateItem', signature: 'a{sv}(oayays)b', body: [properties, value, true] }, 'oo');
      return prompt as string;
    },
    async remove(item: string): Promise<string> {
      const [prompt] = await bus.call({ destination: DEST, path: item, interface: `${SECRET}Item`, member: 'Delete', signature: '', body: [] }, 'o');
      return prompt as string;
    },
  };
}

/** Deletes the unlocked items found; a locked one (its secret out of reach) is `locked`. True when one went. */
async function removeAll(s: ReturnType<typeof secretCalls>, found: { unlocked: string[]; locked: string[] }): Promise<boolean> {
  for (const item of found.unlocked) if ((await s.remove(item)) !== NO_PROMPT) throw locked();
  if (found.locked.length > 0) throw locked();
  return found.unlocked.length > 0;
}

export interface BusKeychainOptions {
  env?: NodeJS.ProcessEnv;
  /** The session bus's sockets to try, in order (dbus/address.ts sessionBus). */
  sockets: readonly string[];
  /** The `guid=` each socket's address names (the bus must answer with it). */
  guids?: ReadonlyArray<string | null>;
  timeoutMs?: number;
}

export function secretServiceBusKeychain(options: BusKeychainOptions): Keychain {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
  /** One connection for one operation, closed after it; the deadline covers connecting and every call. */
  const withService = async <T>(work: (calls: ReturnType<typeof secretCalls>) => Promise<T>): Promise<T> => {
    if (options.sockets.length === 0) throw new KeychainError('unavailable', sessionBusProblem(env) ?? 'no D-Bus session bus');
    const bus = openBus(options.sockets, { timeoutMs, guids: options.guids });
    try {
      return await work(secretCalls(bus));
    } catch (error) {
      throw busFailure(error, timeoutMs);
    } finally {
      bus.close();
    }
  };
  return {
    name: 'Secret Service',
    unavailable() {
      return options.sockets.length === 0 ? sessionBusProblem(env) ?? 'no D-Bus session bus' : null;
    },
    put(key, secret, label) {
      return withService(async (s) => {
        if ((await s.create(DEFAULT_COLLECTION, await s.openSession(), key, secret, label)) !== NO_PROMPT) throw locked();
      });
    },
    get(key) {
      return withService(async (s) => {
        // Asked at once (one round trip): the session and the search do not depend on each other.
        const [session, found] = await Promise.all([s.openSession(), s.search(key)]);
        const item = found.unlocked[0];
        if (item === undefined) {
          if (found.locked.length > 0) throw locked();
          return null;
        }
        const value = await s.secretOf(item, session);
        if (!Buffer.isBuffer(value)) throw new KeychainError('failed', 'the Secret Service gave an answer this client cannot read (no secret value)');
        return value.toString('utf8') || null;
      });
    },
    delete(key) {
      return withService(async (s) => removeAll(s, await s.search(key)));
    },
    async forget(match) {
      // The Secret Service matches the attributes given, so the server may be anything.
      await withService(async (s) => removeAll(s, await s.search([['service', match.service], ['account', match.account]])));
    },
  };
}
