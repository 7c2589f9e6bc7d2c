/**
 * The credential store as the views tell it (`--status`, `--status --json`'s `credential_store`, diagnose): the
 * setting in effect and who set it, where the refresh token is and why, and whether renewal may use it there. Under
 * an organization's `keychain`, a token found in the file (written before the rule, or under another setting) is
 * never sent: the keychain is required, and the views say so. Pure: from the settings table and the record.
 */
import type { RefreshPlacement, StoredRefresh } from '../auth/refreshStore.js';
import type { StoreChoice, StoreMode } from './credentialStore.js';
import type { KeychainLook } from './keychainLook.js';
import { tilde } from '../../platform/text/tilde.js';

export interface CredentialStoreFacts {
  /** The setting in effect: `auto`, `keychain` or `file`. */
  setting: StoreMode;
  /** Where it comes from: `managed` (the organization's file), `env`, `settings`, `default`. */
  set_by: 'managed' | 'env' | 'settings' | 'default';
  /** The file or variable that sets it (null for the default). */
  source: string | null;
  /** The keychain is required and the file is no way out (an organization's `keychain`). */
  required: boolean;
  /** Where the refresh token is: `keychain`, `file`, or null with none stored. */
  refresh_in: 'keychain' | 'file' | null;
  /** Why it is there (the keychain's name, or why not the keychain), or why it cannot be used. */
  reason: string | null;
  /** False when renewal will not use the stored token (a token in the file under a required keychain). */
  usable: boolean;
  /** The keychain as a view just found it (keychainLook.ts); absent where no view looked (the hooks). */
  keychain?: { state: KeychainLook['state']; name: string | null; problem: string | null };
}

/** A keychain that stops renewal or a sign-in, in one sentence, and what the person does about it. */
export interface KeychainBlock {
  /** What is true: "the refresh token is kept in the Secret Service, which is locked". */
  problem: string;
  /** The fix, a sentence (unlock it, start a Secret Service, ask the administrator); null: a new sign-in is the fix. */
  fix: string | null;
  /** A sign-in would stop at once (the keychain is the only store and cannot keep a token). */
  signInStops: boolean;
}

export const MANAGED_KEYCHAIN_FILE_REFUSED = 'your organization requires the system keychain, so the refresh token in the file is not used; sign in again to keep it in the keychain';

const MODES: readonly StoreMode[] = ['auto', 'keychain', 'file'];

/** Why renewal must not send a refresh token the file holds, or null: the keychain is required by the organization. */
export function fileTokenRefusal(choice: StoreChoice, stored: Pick<StoredRefresh, 'store'>): string | null {
  return choice.mode === 'keychain' && choice.managedBy !== null && stored.store !== 'keychain' ? MANAGED_KEYCHAIN_FILE_REFUSED : null;
}

const lookUsable = (look: KeychainLook | null | undefined) => !look || look.state === 'usable' || look.state === 'present' || look.state === 'not_asked';

/**
 * The reason the record gives for a token in the file, as it is now: "no D-Bus session bus" was true when it was
 * saved; a bus that is there now (the look found one) is said, and that the next renewal tries the keychain again.
 */
function fileReason(reason: string | null, look: KeychainLook | null | undefined, setting: StoreMode): string | null {
  if (!reason || setting !== 'auto' || !look || !['usable', 'present'].includes(look.state) || !/D-Bus session bus/i.test(reason)) return reason;
  return `${reason} when it was saved; there is one now, and the next renewal tries the ${look.name ?? 'keychain'} again`;
}

export function credentialStoreFacts(row: { value: string | null; origin: CredentialStoreFacts['set_by']; source: string | null } | undefined, placement: RefreshPlacement | null, look?: KeychainLook | null): CredentialStoreFacts {
  const value = row?.value?.trim().toLowerCase();
  const setting: StoreMode = MODES.includes(value as StoreMode) ? (value as StoreMode) : 'auto';
  const setBy = row?.origin ?? 'default';
  const required = setting === 'keychain' && setBy === 'managed';
  const refusal = placement ? fileTokenRefusal({ mode: setting, managedBy: required ? row?.source ?? 'managed' : null }, placement) : null;
  const inKeychain = placement?.store === 'keychain';
  const unreadable = inKeychain && !lookUsable(look);
  const where = inKeychain ? (unreadable ? `${placement.keychain}, which cannot be read now: ${look!.problem}` : placement.keychain) : placement ? fileReason(placement.reason, look, setting) : null;
  return {
    setting,
    set_by: setBy,
    source: row?.source ?? null,
    required,
    refresh_in: placement?.store ?? null,
    reason: refusal ?? where,
    usable: refusal === null && !unreadable,
    ...(look ? { keychain: { state: look.state, name: look.name, problem: look.problem } } : {}),
  };
}

/** The fix of a keychain that cannot be used, by what is wrong with it. */
function fixOf(f: CredentialStoreFacts): string | null {
  const state = f.keychain?.state;
  if (state === 'missing') return null;
  const fix = state === 'locked' ? 'Unlock your keyring'
    : state === 'unavailable' ? 'Start a Secret Service (GNOME Keyring, KWallet or KeePassXC) in your desktop session, or open Cursor from a session that has one'
      : 'Check your keyring';
  const or = f.required ? `; or ask your administrator (credential-store = keychain in ${f.source})` : f.setting === 'keychain' ? '; or run `config set credential-store auto`' : '';
  return `${fix}${or}.`;
}

/**
 * Whether the keychain stops renewal or a sign-in now, decided once for every view (the story's next step, diagnose's
 * row, the card): the token the record names cannot be read back, or the keychain is the only store and cannot keep
 * one. Null when it does not (or no view looked).
 */
export function keychainBlock(f: CredentialStoreFacts): KeychainBlock | null {
  if (!f.keychain || f.keychain.state === 'usable' || f.keychain.state === 'present' || f.keychain.state === 'not_asked') return null;
  const problem = f.keychain.problem ?? f.keychain.state;
  const signInStops = f.setting === 'keychain';
  if (f.refresh_in === 'keychain') return { problem: `the refresh token is kept in the ${f.reason?.split(',')[0] ?? 'keychain'}, which cannot be read now: ${problem}`, fix: fixOf(f), signInStops };
  if (!signInStops) return null;
  const who = f.required ? `your organization requires the refresh token in the system keychain (credential-store = keychain in ${f.source})` : `your settings keep the refresh token only in the system keychain (credential-store = keychain${f.source ? `, set by ${tilde(f.source)}` : ''})`;
  return { problem: `${who}, and the ${f.keychain.name ?? 'keychain'} cannot be used here: ${problem}`, fix: fixOf(f), signInStops };
}

/** One line: `credential-store keychain (required by /etc/agentstack/managed-settings.json); refresh token in file: …`. */
export function credentialStoreText(f: CredentialStoreFacts): string {
  const by = f.required ? `required by ${f.source}` : f.set_by === 'default' ? 'the default' : `set by ${tilde(f.source ?? f.set_by)}`;
  const where = f.refresh_in === null ? `no refresh token stored${f.keychain && f.setting === 'keychain' && f.keychain.problem ? `; the ${f.keychain.name ?? 'keychain'} cannot be used here: ${f.keychain.problem}` : ''}` : `refresh token in ${f.refresh_in}${f.reason ? `: ${f.reason}` : ''}`;
  return `credential-store ${f.setting} (${by}); ${where}`;
}
