/**
 * Before a sign-in asks the authorization server for a code: under `credential-store = keychain` (no fallback to
 * the file), the keychain is tried with a throwaway entry (put, read back, delete), so a keychain that cannot keep
 * the token (no session bus, no Secret Service, a locked collection, a tool that hangs) stops the sign-in before
 * anyone approves a code whose token would then be lost. Under `auto` and `file` nothing is tried here: the save
 * falls back, or never asks. Only the sign-ins come here, never a hook's first stage.
 */
import { randomBytes } from 'node:crypto';
import type { Keychain, SecretKey } from '../../platform/keychain/types.js';
import type { CursorPaths } from '../server/paths.js';
import { KEYCHAIN_SERVICE, keychainOf, requiredError, storeChoice, type StoreChoice, type StoreOptions } from './credentialStore.js';

/** The whole check's bound; each call has the keychain's own 2 s bound within it. */
export const STORE_CHECK_BUDGET_MS = 5_000;
const CHECK_LABEL = 'AgentStack keychain check (removed at once)';

/** Whether a sign-in must try the keychain before it asks for a code: only where the file is no way out. */
export function needsStoreCheck(choice: StoreChoice): boolean {
  return choice.mode === 'keychain';
}

/** The throwaway entry: its own server name and a random account, so it never meets a real token's entry. */
export function checkKey(paths: Pick<CursorPaths, 'dir'>): SecretKey {
  return { service: KEYCHAIN_SERVICE, server: 'keychain-check', account: `${paths.dir}#${randomBytes(6).toString('hex')}` };
}

/**
 * Puts, reads back and deletes a throwaway secret, within `budgetMs` in all: null when the keychain kept and gave
 * it back, else why not, in words a person can act on.
 */
export async function tryKeychain(keychain: Keychain, key: SecretKey, budgetMs = STORE_CHECK_BUDGET_MS): Promise<string | null> {
  const problem = keychain.unavailable();
  if (problem !== null) return problem;
  const secret = randomBytes(18).toString('base64url');
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the ${keychain.name} did not finish a test entry within ${budgetMs / 1000} s`), budgetMs);
    timer.unref?.();
  });
  let stored = false;
  const attempt = (async (): Promise<string | null> => {
    try {
      await keychain.put(key, secret, CHECK_LABEL);
      stored = true;
      if ((await keychain.get(key)) !== secret) return 'the keychain did not give back the test entry it was given (is the collection locked?)';
      await keychain.delete(key);
      stored = false;
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  })();
  try {
    return await Promise.race([attempt, outOfTime]);
  } finally {
    clearTimeout(timer);
    // A test entry left behind by a failed read or a late answer: removed without waiting (bounded by its own call).
    if (stored) keychain.delete(key).catch(() => false);
  }
}

/**
 * Throws the `keychain` error the save would throw, when the store in effect is `keychain` and the keychain cannot
 * keep a secret here; returns at once otherwise (no keychain call under `auto` or `file`).
 */
export async function assertStoreWorks(options: StoreOptions & { paths: Pick<CursorPaths, 'dir'>; budgetMs?: number }): Promise<void> {
  const choice = storeChoice(options);
  if (!needsStoreCheck(choice)) return;
  const keychain = keychainOf(options);
  const problem = keychain ? await tryKeychain(keychain, checkKey(options.paths), options.budgetMs) : `no keychain this plugin can use on ${process.platform}`;
  if (problem !== null) throw requiredError(choice, keychain, problem);
}
