/**
 * The keychain as it is now, for the views (`--status`, diagnose, the sign-out's own words): not the record's memory
 * of it. A record says where the token went and why at its last save ("no D-Bus session bus"); a bus that appeared
 * since, or a keyring locked since, is only seen by looking. Bounded (the keychain's own 2 s a call, the sign-in's
 * check budget in all) and never in a hook's first stage.
 *
 * What is asked, and only that: the token the record names is read back (a locked keyring or a removed entry shows
 * there); where the keychain is required and holds no token yet, the sign-in's own check is made (a throwaway entry
 * put, read back and removed), so a view never offers a sign-in that check would stop; under `auto` the keychain
 * is only asked whether it is there at all (no call: `unavailable()`).
 */
import { KeychainError } from '../../platform/keychain/types.js';
import { readRefreshFile, type StoredRefresh } from '../auth/refreshStore.js';
import { cursorPaths, type CursorPaths } from '../server/paths.js';
import { KEYCHAIN_SERVICE, keychainOf, storeChoice, type StoreOptions } from './credentialStore.js';
import { checkKey, tryKeychain } from './storeCheck.js';

/**
 * `usable`: it gave back what was asked; `present`: it is there, not asked (`auto` with no token in it); else why
 * not, by kind. `not_asked`: the file is the store.
 */
export type KeychainLookState = 'usable' | 'present' | 'locked' | 'unavailable' | 'missing' | 'failed' | 'not_asked';

export interface KeychainLook {
  state: KeychainLookState;
  /** The keychain's name (`Secret Service`, …), or null with none on this platform. */
  name: string | null;
  /** What is wrong, in words, when it is not usable. */
  problem: string | null;
}

const NOT_ASKED: KeychainLook = { state: 'not_asked', name: null, problem: null };

/** The kind of a problem the keychain check or a backend gave as text. */
export function lookKind(problem: string): Exclude<KeychainLookState, 'usable' | 'present' | 'not_asked' | 'missing'> {
  if (/\block(ed)?\b|no usable collection|password/i.test(problem)) return 'locked';
  if (/no D-Bus|no Secret Service|not installed|no keychain|could not be started|session bus/i.test(problem)) return 'unavailable';
  return 'failed';
}

function kindOf(error: unknown): KeychainLook['state'] {
  // A value the keychain tool cannot take (refused) is a failure of this keychain for this token, not a lock.
  if (error instanceof KeychainError) return error.problem === 'timeout' ? 'locked' : error.problem === 'refused' ? 'failed' : error.problem;
  return 'failed';
}

/** Looks at the keychain the settings and the record name: see the module's comment for what is asked. */
export async function lookAtKeychain(args: StoreOptions & { paths: Pick<CursorPaths, 'dir'>; stored: StoredRefresh | null; budgetMs?: number }): Promise<KeychainLook> {
  const choice = storeChoice(args);
  const inKeychain = args.stored?.store === 'keychain' && args.stored.keychain_server && args.stored.keychain_account;
  if (choice.mode === 'file' && !inKeychain) return NOT_ASKED;
  const keychain = keychainOf(args);
  if (!keychain) return { state: 'unavailable', name: null, problem: `no keychain this plugin can use on ${process.platform}` };
  const absent = keychain.unavailable();
  if (absent !== null) return { state: 'unavailable', name: keychain.name, problem: absent };
  if (inKeychain) {
    try {
      const secret = await keychain.get({ service: KEYCHAIN_SERVICE, server: args.stored!.keychain_server!, account: args.stored!.keychain_account! });
      return secret ? { state: 'usable', name: keychain.name, problem: null } : { state: 'missing', name: keychain.name, problem: `the ${keychain.name} holds no AgentStack refresh token (the entry was removed)` };
    } catch (error) {
      return { state: kindOf(error), name: keychain.name, problem: (error as Error).message };
    }
  }
  if (choice.mode !== 'keychain') return { state: 'present', name: keychain.name, problem: null };
  const problem = await tryKeychain(keychain, checkKey(args.paths), args.budgetMs);
  return problem === null ? { state: 'usable', name: keychain.name, problem: null } : { state: lookKind(problem), name: keychain.name, problem };
}

/** The look a view takes of this Cursor folder's keychain: the record read here (one that cannot be read names none). */
export async function lookAtKeychainHere(options: StoreOptions): Promise<KeychainLook> {
  const paths = cursorPaths(options.env);
  let stored: StoredRefresh | null = null;
  try { stored = readRefreshFile(paths.refresh); } catch { /* its own row says so */ }
  return lookAtKeychain({ ...options, paths, stored });
}
