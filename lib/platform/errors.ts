import { scrubSecrets } from './text/scrub.js';
import { displayText } from './text/displayText.js';

/**
 * Every failure the kernel reports is a PluginError with a stable code. Messages are written for a person
 * and never contain a secret: callers pass only OAuth `error`/`error_description` or their own words.
 */
export type PluginErrorCode =
  | 'access_denied'
  | 'expired_token'
  | 'network'
  | 'timeout'
  | 'server'
  | 'invalid_config'
  /** A setting an administrator fixed (a machine-wide managed file): the person cannot change it. */
  | 'managed_setting'
  | 'invalid_response'
  | 'invalid_grant'
  | 'unsafe_url'
  | 'already_running'
  | 'not_signed_in'
  | 'malformed_file'
  | 'locked'
  /** The system keychain could not be used where it must be (credential-store = keychain), or could not be read. */
  | 'keychain'
  | 'io'
  | 'aborted';

export class PluginError extends Error {
  readonly code: PluginErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: PluginErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PluginError';
    this.code = code;
    this.details = options?.details;
  }
}

export function isPluginError(error: unknown, code?: PluginErrorCode): error is PluginError {
  return error instanceof PluginError && (code === undefined || error.code === code);
}

/** Shortens text quoted from a server so a hostile body cannot flood a terminal or a log, or hide what it says. */
export function quoteShort(text: unknown, max = 200): string {
  return displayText(text, max);
}

/**
 * A copy of `error` whose message and details have every run of 12+ characters of `secrets` masked. Server text is
 * quoted (cut short) in messages, and a hostile server can echo back what it was sent (a refresh token, a device
 * code, a client secret): whole, or as the prefix the cut leaves.
 */
export function redactError(error: PluginError, secrets: ReadonlyArray<string | null | undefined>): PluginError {
  const message = scrubSecrets(error.message, secrets);
  let details = error.details;
  if (details !== undefined) {
    try { details = JSON.parse(scrubSecrets(JSON.stringify(details), secrets)) as Record<string, unknown>; } catch { details = undefined; }
  }
  if (message === error.message && JSON.stringify(details) === JSON.stringify(error.details)) return error;
  return new PluginError(error.code, message, { cause: error.cause, details });
}
