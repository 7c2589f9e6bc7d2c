/**
 * The credential store as the views tell it (`--status`, `--status --json`'s `credential_store`, diagnose): the
 * setting in effect and who set it, where the refresh token is and why, and whether renewal may use it there. Under
 * an organization's `keychain`, a token found in the file (written before the rule, or under another setting) is
 * never sent: the keychain is required, and the views say so. Pure: from the settings table and the record.
 */
import type { RefreshPlacement, StoredRefresh } from '../auth/refreshStore.js';
import { tilde } from '../../platform/text/tilde.js';
import type { StoreChoice, StoreMode } from './credentialStore.js';

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
}

export const MANAGED_KEYCHAIN_FILE_REFUSED = 'your organization requires the system keychain, so the refresh token in the file is not used; sign in again to keep it in the keychain';

const MODES: readonly StoreMode[] = ['auto', 'keychain', 'file'];

/** Why renewal must not send a refresh token the file holds, or null: the keychain is required by the organization. */
export function fileTokenRefusal(choice: StoreChoice, stored: Pick<StoredRefresh, 'store'>): string | null {
  return choice.mode === 'keychain' && choice.managedBy !== null && stored.store !== 'keychain' ? MANAGED_KEYCHAIN_FILE_REFUSED : null;
}

export function credentialStoreFacts(row: { value: string | null; origin: CredentialStoreFacts['set_by']; source: string | null } | undefined, placement: RefreshPlacement | null): CredentialStoreFacts {
  const value = row?.value?.trim().toLowerCase();
  const setting: StoreMode = MODES.includes(value as StoreMode) ? (value as StoreMode) : 'auto';
  const setBy = row?.origin ?? 'default';
  const required = setting === 'keychain' && setBy === 'managed';
  const refusal = placement ? fileTokenRefusal({ mode: setting, managedBy: required ? row?.source ?? 'managed' : null }, placement) : null;
  return {
    setting,
    set_by: setBy,
    source: row?.source ?? null,
    required,
    refresh_in: placement?.store ?? null,
    reason: refusal ?? (placement ? (placement.store === 'keychain' ? placement.keychain : placement.reason) : null),
    usable: refusal === null,
  };
}

/** One line: `credential-store keychain (required by /etc/agentstack/managed-settings.json); refresh token in file: …`. */
export function credentialStoreText(f: CredentialStoreFacts): string {
  const by = f.required ? `required by ${f.source}` : f.set_by === 'default' ? 'the default' : `set by ${tilde(f.source ?? f.set_by)}`;
  const where = f.refresh_in === null ? 'no refresh token stored' : `refresh token in ${f.refresh_in}${f.reason ? `: ${f.reason}` : ''}`;
  return `credential-store ${f.setting} (${by}); ${where}`;
}
