/**
 * The device flow running right now, as it may be shown: read from the device lock with no network and no process
 * spawning, so the pre-MCP hook can name a running sign-in's code as cheaply as session start can.
 */
import { quoteShort } from '../../platform/errors.js';
import { isStaleDeviceLock, readDeviceLock, shownDeviceLock } from './lock.js';
import type { DeviceLock } from '../../schemas/state.js';
import { isDisplayableUserCode } from './userCode.js';
import { isPlainLink } from './browser.js';

export type SignInOutcome =
  | { kind: 'running'; url: string | null; code: string | null; expiresAt: string }
  | { kind: 'started'; url: string; code: string; expiresAt: string }
  | { kind: 'failed'; message: string; /** The keychain stopped it: the message names it and its fix. */ keychain?: boolean };

export type RunningFlow = Extract<SignInOutcome, { kind: 'running' }>;

/** What may be shown of a running flow: its code and link only when they pass the rules a server's must, and the
 * link only when it is on one of `origins`. */
export function running(holder: DeviceLock, origins: readonly string[]): RunningFlow {
  const shown = shownDeviceLock(holder, origins);
  const url = [shown.verification_uri_complete, shown.verification_uri].find((u) => isPlainLink(u)) ?? null;
  return { kind: 'running', url, code: isDisplayableUserCode(holder.user_code) ? holder.user_code : null, expiresAt: quoteShort(shown.expires_at, 40) };
}

/** The device flow running right now (its code, and its URL when that is on one of `origins`), or null. */
export function runningFlow(path: string, now: number, origins: readonly string[]): RunningFlow | null {
  const holder = readDeviceLock(path);
  if (!holder || isStaleDeviceLock(holder, now)) return null;
  return running(holder, origins);
}
