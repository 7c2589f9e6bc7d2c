/**
 * `agentstack-device.lock`: at most one Device Code sign-in per Cursor dir. Taken by exclusive create; it carries
 * what a second caller needs to join the running flow (its URL and code). A lock is stale (and replaced) when its
 * holder is gone (or its pid now belongs to a process started later), when its `expires_at` or its life cap has
 * passed, or when it is dated in the future. Anyone who can write the Cursor dir can write this file: its URL is
 * shown only when it is on the server's own origin (or its authorization server's) and passes the URL rule.
 */
import { randomHex } from '../../platform/randomHex.js';
import { unlinkSync } from 'node:fs';
import { PluginError } from '../../platform/errors.js';
import { LOCK_CLOCK_SKEW_MS, breakStaleLock, isBeingWritten, isLockHolderAlive, parseLockText, readLockFile, unwritableReason } from '../../platform/fs/fileLock.js';
import { processStartTime } from '../../platform/processStart.js';
import { isPlainLink } from './browser.js';
import { mayRequestFor, mcpUrlFor } from '../server/baseUrl.js';
import { DeviceLockSchema, type DeviceLock } from '../../schemas/state.js';
import { createExclusive, readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';
import { STATE_FILE_MAX_BYTES } from '../server/fileLimits.js';

export interface HeldDeviceLock {
  path: string;
  /** Records the issued code and its expiry, so a second run can show them. */
  update(fields: Partial<Pick<DeviceLock, 'expires_at' | 'verification_uri' | 'verification_uri_complete' | 'user_code'>>): void;
  release(): void;
}

export type DeviceLockResult = { kind: 'acquired'; lock: HeldDeviceLock } | { kind: 'held'; holder: DeviceLock };

function deviceLockOf(raw: Record<string, unknown>): DeviceLock | null {
  const parsed = DeviceLockSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/** The current lock's content, or null when there is none or it is unreadable. */
export function readDeviceLock(path: string): DeviceLock | null {
  const raw = readLockFile(path);
  return raw ? deviceLockOf(raw) : null;
}

/** The longest a device lock lives: its device code's `expires_in`, itself capped at this. */
export const MAX_DEVICE_LOCK_MS = 30 * 60_000;

/** When the lock stops holding: its `expires_at`, but never later than its life cap after `started_at`. */
export function deviceLockEndsAt(holder: Pick<DeviceLock, 'started_at' | 'expires_at'>): number {
  const started = Date.parse(holder.started_at);
  const expires = Date.parse(holder.expires_at);
  return Number.isFinite(started) && Number.isFinite(expires) ? Math.min(expires, started + MAX_DEVICE_LOCK_MS) : NaN;
}

/** Pure: a lock whose holder is alive holds until its end, unless it is dated in the future. */
export function isLiveDeviceLock(holder: DeviceLock, args: { holderAlive: boolean; now: number }): boolean {
  if (!args.holderAlive || Date.parse(holder.started_at) > args.now + LOCK_CLOCK_SKEW_MS) return false;
  const endsAt = deviceLockEndsAt(holder);
  return Number.isFinite(endsAt) && endsAt > args.now;
}

export function isStaleDeviceLock(holder: DeviceLock | null, now = Date.now()): boolean {
  return !holder || !isLiveDeviceLock(holder, { holderAlive: isLockHolderAlive(holder.pid, holder.pid_start), now });
}

/**
 * The origins whose pages a device lock may send a person to: the server's, and its authorization server's when the
 * plugin may request it for the server's MCP URL (https; plain http to loopback only for an MCP server on plain http
 * to loopback), which a stored endpoint written by an older version may not be.
 */
export function signInOrigins(baseUrl: string, authorizationUrls: ReadonlyArray<string | null | undefined> = []): string[] {
  const origins = new Set<string>();
  const mcpUrl = mcpUrlFor(baseUrl);
  for (const url of [baseUrl, ...authorizationUrls.filter((u) => u && mayRequestFor(u, mcpUrl))]) {
    try { if (url) origins.add(new URL(url).origin); } catch { /* not a URL: adds nothing */ }
  }
  return [...origins];
}

/** `url` when it may be shown as the page of a running sign-in: a plain link on one of `origins`; else null. */
export function shownSignInUrl(url: unknown, origins: readonly string[]): string | null {
  if (!isPlainLink(url)) return null;
  return origins.includes(new URL(url).origin) ? url : null;
}

/** The lock as it may be shown: a URL that is not on `origins` (or not openable) is removed, its end is capped. */
export function shownDeviceLock(holder: DeviceLock, origins: readonly string[]): DeviceLock {
  const endsAt = deviceLockEndsAt(holder);
  return {
    ...holder,
    expires_at: Number.isFinite(endsAt) ? new Date(endsAt).toISOString() : holder.expires_at,
    verification_uri: shownSignInUrl(holder.verification_uri, origins),
    verification_uri_complete: shownSignInUrl(holder.verification_uri_complete, origins),
  };
}

function capped(expiresAt: string, startedAt: string): string {
  const endsAt = deviceLockEndsAt({ started_at: startedAt, expires_at: expiresAt });
  return Number.isFinite(endsAt) ? new Date(endsAt).toISOString() : startedAt;
}

const BEING_WRITTEN_PAUSE_MS = 25;

/** A short synchronous wait: this function is synchronous, and its callers hold no event-loop work meanwhile. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Records in the lock that its code was approved and the sign-in is finishing (a sign-out then says so, not "still
 * waiting"). Only the holder's own lock (same pid and code) is changed; best effort.
 */
export function markDeviceLockApproved(path: string, args: { userCode: string; at: Date }): void {
  try {
    const holder = readLockFile(path);
    if (!holder || holder.pid !== process.pid || holder.user_code !== args.userCode) return;
    writeFileAtomic(path, JSON.stringify({ ...holder, approved_at: args.at.toISOString() }));
  } catch { /* the lock only informs other runs */ }
}

/** createExclusive, with a folder that cannot take the lock said as a file problem (not an unexpected failure). */
function createLockFile(path: string, text: string): boolean {
  try {
    return createExclusive(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PluginError('io', `Cannot create the sign-in lock ${path} (${unwritableReason(code)}); nothing was changed. Check that the folder is writable.`, { cause: error, details: { path, errno: code ?? 'error' } });
  }
}

/** Takes the lock, replacing a stale one; when a live flow holds it, returns that flow's payload instead. */
export function acquireDeviceLock(path: string, options: { expiresAt: Date; now?: () => number }): DeviceLockResult {
  const now = options.now ?? Date.now;
  const nonce = randomHex(6);
  const startedAt = new Date(now()).toISOString();
  let payload: DeviceLock & { nonce: string } = {
    pid: process.pid,
    pid_start: processStartTime(process.pid),
    started_at: startedAt,
    expires_at: capped(options.expiresAt.toISOString(), startedAt),
    verification_uri: null,
    verification_uri_complete: null,
    user_code: null,
    nonce,
  };
  const isOurs = (): boolean => (readLockFile(path) ?? {}).nonce === nonce;
  const lock: HeldDeviceLock = {
    path,
    update(fields) {
      if (!isOurs()) return;
      payload = { ...payload, ...fields };
      payload.expires_at = capped(payload.expires_at, payload.started_at);
      writeFileAtomic(path, JSON.stringify(payload));
    },
    release() {
      try {
        if (isOurs()) unlinkSync(path);
      } catch { /* already gone */ }
    },
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createLockFile(path, JSON.stringify(payload))) return { kind: 'acquired', lock };
    const text = readTextIfExists(path, { maxBytes: STATE_FILE_MAX_BYTES.deviceLock });
    if (text === null) continue;
    if (isBeingWritten(path, text)) {
      pause(BEING_WRITTEN_PAUSE_MS);
      continue;
    }
    // Judged from the bytes that would be broken, never from a second read (see acquireLock in fileLock.ts).
    const holder = deviceLockOf(parseLockText(text));
    if (!isStaleDeviceLock(holder, now())) return { kind: 'held', holder: holder! };
    breakStaleLock(path, text);
  }
  const holder = readDeviceLock(path);
  if (holder) return { kind: 'held', holder };
  throw new PluginError('locked', `Could not take ${path}; remove it if no sign-in is running, then try again`);
}
