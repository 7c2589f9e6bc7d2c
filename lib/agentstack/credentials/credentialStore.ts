/**
 * Where the refresh token is kept: the system keychain (platform/keychain: the Secret Service, the macOS Keychain,
 * the Windows Credential Manager) or the 0600 record file itself. `credential-store` decides: `auto` (the default)
 * uses the keychain where it works and the file otherwise, saying why; `keychain` has no fallback (sign-in and
 * renewal stop and say why); `file` never asks the keychain. The record (`agentstack-refresh`) always says where
 * the token is, so the views and the hooks read where it is from the file and never call the keychain.
 *
 * Only sign-in, renewal and sign-out come here, each under the credential lock. A token in the file moves into the
 * keychain at the next save, and leaves the file only after the keychain gave the same secret back.
 */
import { createHash } from 'node:crypto';
import { PluginError } from '../../platform/errors.js';
import { hasUnsafeText, readWebUrl, webUrlProblemText } from '../../platform/net/webUrl.js';
import { systemKeychain } from '../../platform/keychain/system.js';
import { KeychainError, type Keychain, type SecretKey } from '../../platform/keychain/types.js';
import { writeRefreshFile, type StoredRefresh } from '../auth/refreshStore.js';
import type { RefreshFile } from '../../schemas/state.js';
import { credentialStoreIn } from '../settings/keys.js';
import type { EffectiveSettings } from '../settings/effective.js';
import { readManagedSettings, type ManagedOptions } from '../settings/managed.js';
import type { CursorPaths } from '../server/paths.js';

/** The keychain entries' service name. */
export const KEYCHAIN_SERVICE = 'agentstack-cursor';
const LABEL = 'AgentStack refresh token (Cursor plugin)';
/** The reason a token is in the file when the person chose the file. */
export const FILE_CHOSEN = 'credential-store is file';

export type StoreMode = 'auto' | 'keychain' | 'file';

export interface StoreChoice {
  mode: StoreMode;
  /** The managed settings file that fixes it, when an organization does. */
  managedBy: string | null;
}

export interface StoreOptions {
  env: NodeJS.ProcessEnv;
  /**
   * The settings in effect (settings/effective.ts): `credential-store` and who set it. Without them, the settings
   * module reads the store from `env` (an environment with the settings applied) and the managed file.
   */
  settings?: Pick<EffectiveSettings, 'rows'>;
  /** The keychain to use (tests); this machine's otherwise. null: none. */
  keychain?: Keychain | null;
  managed?: ManagedOptions;
}

/** The store in effect, and the managed file that sets it, from the settings in effect. */
export function storeChoice(options: StoreOptions): StoreChoice {
  const row = options.settings?.rows.find((r) => r.key === 'credential-store');
  if (row) {
    const value = row.value?.trim().toLowerCase();
    return { mode: value === 'keychain' || value === 'file' ? value : 'auto', managedBy: row.origin === 'managed' ? row.source : null };
  }
  const mode: StoreMode = credentialStoreIn(options.env);
  let managedBy: string | null = null;
  try {
    const managed = readManagedSettings(options.managed);
    if (managed.keys.includes('credential-store')) managedBy = managed.path;
  } catch { /* no managed file to name */ }
  return { mode, managedBy };
}

export function keychainOf(options: StoreOptions): Keychain | null {
  return options.keychain !== undefined ? options.keychain : systemKeychain({ env: options.env });
}

export function fingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/**
 * The entry's key: the server the token is for, and this Cursor folder (two folders never share one entry). The
 * server is the canonical href of the resource (or token endpoint) the server named, never its text as received:
 * a value that cannot be a canonical URL (quotes, controls, line breaks) is refused with `invalid_response`.
 */
export function keychainKey(server: string, paths: Pick<CursorPaths, 'dir'>): SecretKey {
  const read = readWebUrl(server);
  if (!read.ok) throw new PluginError('invalid_response', `The server named a resource that ${webUrlProblemText(read.problem)}; it cannot name a keychain entry. Ask the server's operator to fix its resource metadata.`);
  return { service: KEYCHAIN_SERVICE, server: read.url, account: paths.dir };
}

/**
 * The key the record names. A server there with text no URL holds (quotes, controls, line breaks: a record an older
 * version wrote with the text a server sent) names no entry: it is never handed to a keychain backend.
 */
function keyOfRecord(stored: StoredRefresh): SecretKey | null {
  if (stored.keychain_server && hasUnsafeText(stored.keychain_server)) return null;
  return stored.store === 'keychain' && stored.keychain_server && stored.keychain_account
    ? { service: KEYCHAIN_SERVICE, server: stored.keychain_server, account: stored.keychain_account } : null;
}

const sameKey = (a: SecretKey | null, b: SecretKey | null) => a !== null && b !== null && a.server === b.server && a.account === b.account;

export function requiredError(choice: StoreChoice, keychain: Keychain | null, reason: string): PluginError {
  const who = choice.managedBy ? `Your organization requires the refresh token in the system keychain (credential-store = keychain in ${choice.managedBy})` : 'credential-store is keychain';
  const what = choice.managedBy ? 'Unlock or start your keyring, then sign in again; or ask your administrator.' : 'Unlock or start your keyring and sign in again, or run `config set credential-store auto`.';
  return new PluginError('keychain', `${who}, and the ${keychain?.name ?? 'keychain'} cannot be used here: ${reason}. ${what}`, { details: { reason } });
}

export interface SaveArgs extends StoreOptions {
  paths: Pick<CursorPaths, 'refresh' | 'dir'>;
  /** The record to write, with the refresh token. */
  record: RefreshFile & { refresh_token: string };
  /** The record it replaces (null: none). */
  previous: StoredRefresh | null;
  /** Told why, when a keychain that exists here was tried and failed, and the file was used instead (`auto`). */
  onFallback?: (reason: string) => void;
}

/**
 * Saves the refresh token and its record: into the keychain under `auto`/`keychain` where it works (read back
 * before the file loses it, unless it only replaces a token the keychain already held), else into the file with
 * the reason. A keychain entry the new record no longer names is removed. Throws under `keychain` when it cannot.
 */
export async function saveRefresh(args: SaveArgs): Promise<StoredRefresh> {
  const { record, previous, paths } = args;
  const choice = storeChoice(args);
  const oldKey = previous ? keyOfRecord(previous) : null;
  // What the record says about a store is written anew: none of the previous record's placement is carried over.
  const { refresh_token: secret, store: _s, store_reason: _r, keychain: _k, keychain_server: _ks, keychain_account: _ka, refresh_token_sha256: _f, ...clean } = record;
  let reason = FILE_CHOSEN;
  if (choice.mode !== 'file') {
    const keychain = keychainOf(args);
    const server = record.resource ?? record.token_endpoint;
    const key = server ? keychainKey(server, paths) : { service: KEYCHAIN_SERVICE, server: 'unknown', account: paths.dir };
    const problem = keychain ? keychain.unavailable() : `no keychain this plugin can use on ${process.platform}`;
    if (problem === null && keychain) {
      try {
        await keychain.put(key, secret, LABEL);
        // Rotating a token the keychain already held needs no read back; anything else does.
        if (!sameKey(oldKey, key) && (await keychain.get(key)) !== secret) throw new Error('the keychain did not give back the token it was given');
        const saved: StoredRefresh = { ...clean, store: 'keychain', keychain: keychain.name, keychain_server: key.server, keychain_account: key.account, refresh_token_sha256: fingerprint(secret) };
        writeRefreshFile(paths.refresh, saved);
        if (oldKey && !sameKey(oldKey, key)) await keychain.delete(oldKey).catch(() => false);
        return saved;
      } catch (error) {
        if (error instanceof PluginError) throw error;
        reason = (error as Error).message;
      }
    } else {
      reason = problem ?? reason;
    }
    if (choice.mode === 'keychain') throw requiredError(choice, keychain, reason);
    if (problem === null) args.onFallback?.(reason);
  }
  const saved: StoredRefresh = { ...clean, refresh_token: secret, store: 'file', store_reason: reason };
  writeRefreshFile(paths.refresh, saved);
  // The person chose the file: the keychain's copy goes. (A keychain that just failed is not asked again.)
  if (oldKey && choice.mode === 'file') await keychainOf(args)?.delete(oldKey).catch(() => false);
  return saved;
}

/** The refresh token of a record: from the record, or from the keychain it names (bounded). Throws `keychain`. */
export async function loadRefreshToken(stored: StoredRefresh, options: StoreOptions): Promise<string> {
  const key = keyOfRecord(stored);
  if (!key) {
    if (stored.refresh_token) return stored.refresh_token;
    throw new PluginError('malformed_file', 'the refresh record names no token; sign in again to replace it');
  }
  const keychain = keychainOf(options);
  const name = stored.keychain ?? keychain?.name ?? 'system keychain';
  if (!keychain) throw new PluginError('keychain', `The refresh token is kept in the ${name}, which this machine cannot reach; sign in again with /agentstack-login.`);
  let secret: string | null;
  try {
    secret = await keychain.get(key);
  } catch (error) {
    throw new PluginError('keychain', `The refresh token is kept in the ${name}, which could not be read: ${(error as Error).message}.`, { details: { reason: (error as Error).message } });
  }
  if (!secret) throw new PluginError('keychain', `The ${name} gave no AgentStack refresh token (it is locked, or the entry was removed); unlock it, or sign in again with /agentstack-login.`);
  return secret;
}

/**
 * Removes the keychain entries of a sign-out: the one the record names, the one this folder would use for `server`,
 * and, when `server` is given (a sign-out), every other entry of this plugin for this folder whatever its server (a
 * record lost in a crash or damaged, whose entry was keyed by a `resource` other than `<base>/mcp`, leaves none
 * behind). Never throws; returns what went wrong, in words: a failure to remove the entry the record names means
 * the refresh token stays in the keychain.
 */
export async function deleteRefreshSecrets(stored: StoredRefresh | null, server: string | null, args: StoreOptions & { paths: Pick<CursorPaths, 'dir'> }): Promise<string[]> {
  const keys: SecretKey[] = [];
  const named = stored ? keyOfRecord(stored) : null;
  if (named) keys.push(named);
  if (server && storeChoice(args).mode !== 'file') {
    const derived = keychainKey(server, args.paths);
    if (!sameKey(named, derived)) keys.push(derived);
  }
  if (keys.length === 0) return [];
  const keychain = keychainOf(args);
  if (!keychain || keychain.unavailable() !== null) {
    return named ? [`The refresh token in the ${stored?.keychain ?? 'keychain'} could not be removed (${keychain?.unavailable() ?? 'no keychain here'}); remove the "${LABEL}" entry by hand.`] : [];
  }
  const problems: string[] = [];
  // A keychain that did not answer in time is not asked again: each call would wait as long.
  let hung = false;
  for (const key of keys) {
    try {
      await keychain.delete(key);
    } catch (error) {
      if (key === named) problems.push(`The refresh token stays in the ${keychain.name}: it could not be removed (${(error as Error).message}); remove the "${LABEL}" entry by hand.`);
      if (error instanceof KeychainError && error.problem === 'timeout') { hung = true; break; }
    }
  }
  // Best effort, like the derived key: what it finds is a guess, and its failure is said by the named key's.
  if (!hung && server && storeChoice(args).mode !== 'file') await keychain.forget?.({ service: KEYCHAIN_SERVICE, account: args.paths.dir, label: LABEL }).catch(() => undefined);
  return problems;
}
