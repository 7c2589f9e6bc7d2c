/**
 * `agentstack-device.lock`: at most one Device Code sign-in per Cursor dir. Taken by exclusive create; it carries
 * what a second caller needs to join the running flow (its URL and code). A lock whose pid is dead or whose
 * `expires_at` has passed is stale and replaced.
 */
import { randomHex } from '../../platform/randomHex.js';
import { unlinkSync } from 'node:fs';
import { PluginError } from '../../platform/errors.js';
import { breakStaleLock, isBeingWritten, isProcessAlive, readLockFile } from '../../platform/fs/fileLock.js';
import { DeviceLockSchema, type DeviceLock } from '../../schemas/state.js';
import { createExclusive, readTextIfExists, writeFileAtomic } from '../../platform/fs/secureFile.js';

export interface HeldDeviceLock {
  path: string;
  /** Records the issued code and its expiry, so a second run can show them. */
  update(fields: Partial<Pick<DeviceLock, 'expires_at' | 'verification_uri' | 'verification_uri_complete' | 'user_code'>>): void;
  release(): void;
}

export type DeviceLockResult = { acquired: true; lock: HeldDeviceLock } | { acquired: false; holder: DeviceLock };

/** The current lock's content, or null when there is none or it is unreadable. */
export function readDeviceLock(path: string): DeviceLock | null {
  const raw = readLockFile(path);
  if (!raw) return null;
  const parsed = DeviceLockSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

export function isStaleDeviceLock(holder: DeviceLock | null, now = Date.now()): boolean {
  if (!holder || !isProcessAlive(holder.pid)) return true;
  const expires = Date.parse(holder.expires_at);
  return !Number.isFinite(expires) || expires <= now;
}

const BEING_WRITTEN_PAUSE_MS = 25;

/** A short synchronous wait: this function is synchronous, and its callers hold no event-loop work meanwhile. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Takes the lock, replacing a stale one; when a live flow holds it, returns that flow's payload instead. */
export function acquireDeviceLock(path: string, options: { expiresAt: Date; now?: () => number }): DeviceLockResult {
  const now = options.now ?? Date.now;
  const nonce = randomHex(6);
  let payload: DeviceLock & { nonce: string } = {
    pid: process.pid,
    started_at: new Date(now()).toISOString(),
    expires_at: options.expiresAt.toISOString(),
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
      writeFileAtomic(path, JSON.stringify(payload));
    },
    release() {
      try {
        if (isOurs()) unlinkSync(path);
      } catch { /* already gone */ }
    },
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(path, JSON.stringify(payload))) return { acquired: true, lock };
    const text = readTextIfExists(path);
    if (text === null) continue;
    if (isBeingWritten(path, text)) {
      pause(BEING_WRITTEN_PAUSE_MS);
      continue;
    }
    const holder = readDeviceLock(path);
    if (!isStaleDeviceLock(holder, now())) return { acquired: false, holder: holder! };
    breakStaleLock(path, text);
  }
  const holder = readDeviceLock(path);
  if (holder) return { acquired: false, holder };
  throw new PluginError('locked', `Could not take ${path}; remove it if no sign-in is running, then try again`);
}
