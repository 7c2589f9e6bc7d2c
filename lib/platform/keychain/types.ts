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

/**
 * Why a keychain could not be used: `unavailable` (no keychain here), `locked`, `timeout`, `failed`, `refused` (a
 * value the backend will not hand to its tool: a newline, a NUL, or more than the tool reads in one line).
 */
export type KeychainProblem = 'unavailable' | 'locked' | 'timeout' | 'failed' | 'refused';

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
  /**
   * Removes every entry of `service` for `account`, whatever its server: what a sign-out must find when the record
   * that named the entry is gone. `label` is the entries' label (the macOS Keychain searches by it with the account).
   * Every backend here has it (optional for stand-ins in tests).
   */
  forget?(match: ForgetMatch): Promise<void>;
}

export interface ForgetMatch {
  service: string;
  account: string;
  label: string;
}

/**
 * Refuses a value with a line break or NUL before any tool sees it: every backend's tool reads its input by lines or
 * as C strings, and such a value would end one command and begin another there. `what` names the value, never its text.
 */
export function refuseBreaks(values: Record<string, string>): void {
  for (const [what, value] of Object.entries(values)) {
    if (/[\0\n\r\u2028\u2029\u0085]/.test(value)) throw new KeychainError('refused', `the keychain entry's ${what} holds a line break or NUL, which the keychain tool would read as the end of a command; it is not stored there`);
  }
}

/** A keychain call that hangs (a locked keyring waiting for a password no one is asked for) is given up after this. */
export const KEYCHAIN_TIMEOUT_MS = 2_000;
