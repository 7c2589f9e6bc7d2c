/**
 * A cross-process lock: a lock file created with O_EXCL holding `{pid, pid_start, acquired_at}`. A lock whose process
 * is gone (or whose pid now belongs to a process started later), that is older than `staleMs`, or that is dated in
 * the future, is broken. Written by hand because the device lock must carry its own JSON payload
 * and both locks must share one stale-detection rule; lock libraries use mkdir+mtime and cannot.
 */
import { statSync, unlinkSync } from 'node:fs';
import { readStateFile } from './stateFile.js';
import { randomHex } from '../randomHex.js';
import { createExclusive } from './secureFile.js';
import { renameWithRetry, type RenameOptions } from './renameRetry.js';
import { PluginError } from '../errors.js';
import { processStartTime } from '../processStart.js';

export function isProcessAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when `pid` is alive and is still the process that took the lock: when the lock recorded its holder's start
 * time and the system tells it, the two must match (a reused pid does not keep a dead holder's lock alive).
 */
export function isLockHolderAlive(pid: unknown, recordedStart: unknown, platform: NodeJS.Platform = process.platform): boolean {
  if (!isProcessAlive(pid)) return false;
  if (typeof recordedStart !== 'string' || !recordedStart) return true;
  const current = processStartTime(pid as number, platform);
  return current === null || current === recordedStart;
}

/** How far in the future a lock's own time may be (clock adjustments) before the lock is judged forged or broken. */
export const LOCK_CLOCK_SKEW_MS = 60_000;

/** A lock file's JSON from its text; `{}` when it holds garbage. */
export function parseLockText(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A lock file holds one small JSON object: anything larger is not ours. */
const LOCK_MAX_BYTES = 64 * 1024;

/** A lock file's text, read as every state file is (never blocking on a FIFO, a regular file only, capped). */
function readLockText(path: string): string {
  return readStateFile(path, { maxBytes: LOCK_MAX_BYTES }).toString('utf8');
}

/** Reads a lock file's JSON, or null when it is missing; `{}` when it holds garbage. */
export function readLockFile(path: string): Record<string, unknown> | null {
  let text: string;
  try {
    text = readLockText(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseLockText(text);
}

/**
 * Removes a lock file only if it still holds `expected` (the content judged stale): renames it aside first so two
 * breakers cannot both remove a fresh lock, and puts back a lock that changed in between.
 */
export function breakStaleLock(path: string, expected: string, options: RenameOptions = {}): void {
  const aside = `${path}.${process.pid}.${randomHex(4)}.stale`;
  try {
    renameWithRetry(path, aside, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT') return;
    throw new PluginError('io', `Cannot move the stale lock file ${path} aside (${UNWRITABLE[code] ?? code}); nothing was changed. Remove it by hand if no sign-in or refresh is running.`, { cause: error, details: { path, errno: code } });
  }
  let moved = '';
  try { moved = readLockText(aside); } catch { /* vanished */ }
  if (moved !== expected) {
    // Put the live lock back, unless a newer one exists already (createExclusive also works without hard links).
    try { createExclusive(path, moved); } catch { /* cannot write here: the holder's release will find it gone */ }
  }
  try { unlinkSync(aside); } catch { /* already gone */ }
}

// EEXIST here: creating the folder found a file in its place (mkdir -p over a file).
const UNWRITABLE: Record<string, string> = { EACCES: 'permission denied', EPERM: 'permission denied', EROFS: 'read-only file system', ENOSPC: 'disk full', ENOTDIR: 'a parent is not a folder', EEXIST: 'a parent is not a folder' };

/** What a write failure's errno means for a person ("permission denied"), else the code itself. */
export function unwritableReason(code: string | undefined): string {
  return (code && UNWRITABLE[code]) ?? code ?? 'error';
}

/** createExclusive with a person-readable error when the folder cannot take the lock file. */
function createLockFile(path: string, payload: string): boolean {
  try {
    return createExclusive(path, payload);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PluginError('io', `Cannot create the lock file ${path} (${UNWRITABLE[code] ?? code}); nothing was changed. Check that the folder is writable.`, { cause: error, details: { path, errno: code } });
  }
}

export interface LockOptions {
  /** How long to wait for the lock before giving up. */
  timeoutMs?: number;
  /** A lock older than this is broken even if its process lives (a holder must finish well within it). */
  staleMs?: number;
  signal?: AbortSignal;
}

const EMPTY_LOCK_GRACE_MS = 2_000;

function fileAgeMs(path: string): number {
  try { return Date.now() - statSync(path).mtimeMs; } catch { return Infinity; }
}

/**
 * True for an empty lock file only a moment old: on a file system without hard links its holder creates it, then
 * writes it, so it is still being written and must not be judged stale yet. `text` is what was read from `path`.
 */
export function isBeingWritten(path: string, text: string): boolean {
  return text === '' && fileAgeMs(path) < EMPTY_LOCK_GRACE_MS;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function acquireLock(path: string, options: LockOptions = {}): Promise<() => void> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  const payload = JSON.stringify({ pid: process.pid, pid_start: processStartTime(process.pid), acquired_at: new Date().toISOString(), nonce: randomHex(6) });
  let delay = 5;
  for (;;) {
    if (createLockFile(path, payload)) {
      return () => {
        try {
          if (readLockText(path) === payload) unlinkSync(path);
        } catch { /* already released or broken */ }
      };
    }
    let text = '';
    try {
      text = readLockText(path);
    } catch (error) {
      // Gone between our create and this read: try again. Anything else (a folder in its place) will not change.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new PluginError('io', `Cannot use the lock file ${path} (${code}); move it aside, then try again.`, { cause: error, details: { path, errno: code } });
    }
    // Judged from the very bytes that would be broken: reading the file again could see it gone (a holder that just
    // released) and take that for a dead holder, then move aside the lock another process took in between.
    const holder = parseLockText(text);
    const acquiredAt = Date.parse(String(holder.acquired_at ?? ''));
    const age = Date.now() - acquiredAt;
    const stale = !isBeingWritten(path, text) && (!isLockHolderAlive(holder.pid, holder.pid_start) || !Number.isFinite(acquiredAt) || age > staleMs || age < -LOCK_CLOCK_SKEW_MS);
    if (stale) {
      breakStaleLock(path, text);
      continue;
    }
    if (options.signal?.aborted) throw new PluginError('aborted', `Stopped waiting for ${path}`);
    if (Date.now() >= deadline) throw new PluginError('locked', `Another process holds ${path}; try again in a moment`);
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 100);
  }
}

export async function withLock<T>(path: string, fn: () => T | Promise<T>, options?: LockOptions): Promise<T> {
  const release = await acquireLock(path, options);
  try {
    return await fn();
  } finally {
    release();
  }
}
