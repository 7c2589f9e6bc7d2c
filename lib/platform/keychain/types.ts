/**
 * The operating system's keychain as one small interface: a secret put, read and deleted by service, server and
 * account. Every backend runs the system's own tool with the secret on standard input (never in its arguments), each
 * call bounded in time. A backend that cannot be used says why in words a person can act on.
 */

export interface SecretKey {
  /** The application's name for its entries (e.g. `myapp`). */
  service: string;
  /** Where the secret is used (a URL). */
  server: string;
  account: string;
}

/** Why a keychain could not be used: `unavailable` (no keychain here), `locked`, `timeout`, `failed`. */
export type KeychainProblem = 'unavailable' | 'locked' | 'timeout' | 'failed';

export class KeychainError extends Error {
  readonly problem: KeychainProblem;
  constructor(problem: KeychainProblem, message: string) {
    super(message);
    this.name = 'KeychainError';
    this.problem = problem;
  }
}

export interface Keychain {
  /** What it is, for a person: `Secret Service`, `macOS Keychain`, `Windows Credential Manager`. */
  readonly name: string;
  /** Why it cannot be used here without trying it (no tool, no session bus), or null. */
  unavailable(): string | null;
  put(key: SecretKey, secret: string, label: string): Promise<void>;
  /** The secret, or null when there is no such entry. */
  get(key: SecretKey): Promise<string | null>;
  /** True when an entry was removed. */
  delete(key: SecretKey): Promise<boolean>;
}

/** A keychain call that hangs (a locked keyring waiting for a password no one is asked for) is given up after this. */
export const KEYCHAIN_TIMEOUT_MS = 2_000;
