/**
 * When a lock is stale (its holder gone, its time up) and when it must be left alone: the rules behind replacing
 * the device lock and breaking mcp.json.lock, through their exported predicates.
 */
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLiveDeviceLock, isStaleDeviceLock } from '../../lib/agentstack/signIn/lock.js';
import { LOCK_CLOCK_SKEW_MS, isBeingWritten, isLockHolderAlive, isProcessAlive } from '../../lib/platform/fs/fileLock.js';
import { processStartTime } from '../../lib/platform/processStart.js';
import type { DeviceLock } from '../../lib/schemas/state.js';
import { NEVER_A_PID } from '../helpers/deadPid.js';
import { tempDir } from '../helpers/repo.js';

const NOW = Date.now();
const lock = (fields: Partial<DeviceLock> = {}): DeviceLock => ({
  pid: process.pid,
  started_at: new Date(NOW - 10_000).toISOString(),
  expires_at: new Date(NOW + 600_000).toISOString(),
  verification_uri: null,
  verification_uri_complete: null,
  user_code: 'WDJB-MJHT',
  ...fields,
});

describe('isProcessAlive', () => {
  it('this process is alive; a pid no process can have is not', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(NEVER_A_PID)).toBe(false);
  });

  it('pid 1 exists even when it may not be signalled (EPERM for an ordinary user still means alive)', () => {
    expect(isProcessAlive(1)).toBe(true);
  });

  it('anything but a positive integer is no process (never process.kill(0) or a group)', () => {
    for (const pid of [0, -1, -process.pid, 1.5, Number.NaN, '123', null, undefined, String(process.pid)]) {
      expect(isProcessAlive(pid), String(pid)).toBe(false);
    }
  });
});

describe('isStaleDeviceLock', () => {
  it('a live holder before its expiry is not stale', () => {
    expect(isStaleDeviceLock(lock(), NOW)).toBe(false);
  });

  it('no lock (missing or unreadable) is stale', () => {
    expect(isStaleDeviceLock(null, NOW)).toBe(true);
  });

  it('a holder whose process is gone is stale, however far its expiry', () => {
    expect(isStaleDeviceLock(lock({ pid: NEVER_A_PID }), NOW)).toBe(true);
  });

  it('stale at its expires_at exactly, live a millisecond before', () => {
    expect(isStaleDeviceLock(lock({ expires_at: new Date(NOW).toISOString() }), NOW)).toBe(true);
    expect(isStaleDeviceLock(lock({ expires_at: new Date(NOW + 1).toISOString() }), NOW)).toBe(false);
    expect(isStaleDeviceLock(lock({ expires_at: new Date(NOW - 1).toISOString() }), NOW)).toBe(true);
  });

  it('an expires_at that is not a date makes it stale', () => {
    expect(isStaleDeviceLock(lock({ expires_at: 'soon' }), NOW)).toBe(true);
    expect(isStaleDeviceLock(lock({ expires_at: '' }), NOW)).toBe(true);
  });
});

describe('isBeingWritten', () => {
  const tmp = tempDir('agentstack-lockrules-');
  afterAll(() => tmp.cleanup());

  it('an empty lock file a moment old is still being written', () => {
    const path = join(tmp.path, 'young.lock');
    writeFileSync(path, '');
    expect(isBeingWritten(path, '')).toBe(true);
  });

  it('an empty lock file past the grace period is not (it is abandoned)', () => {
    const path = join(tmp.path, 'old.lock');
    writeFileSync(path, '');
    const past = new Date(Date.now() - 60_000);
    utimesSync(path, past, past);
    expect(isBeingWritten(path, '')).toBe(false);
  });

  it('a lock with content, or one that is gone, is not being written', () => {
    const path = join(tmp.path, 'full.lock');
    writeFileSync(path, '{"pid":1}');
    expect(isBeingWritten(path, '{"pid":1}')).toBe(false);
    expect(isBeingWritten(join(tmp.path, 'missing.lock'), '')).toBe(false);
  });
});

describe('the holder of a lock, and a lock dated ahead', () => {
  it('a live holder counts only while it is the process that took the lock (start time, where the system tells it)', () => {
    const mine = processStartTime(process.pid);
    expect(isLockHolderAlive(process.pid, mine ?? undefined)).toBe(true);
    // No start time recorded, or one of the wrong type: the pid alone decides.
    expect(isLockHolderAlive(process.pid, undefined)).toBe(true);
    expect(isLockHolderAlive(process.pid, 42)).toBe(true);
    expect(isLockHolderAlive(process.pid, '')).toBe(true);
    if (mine !== null) expect(isLockHolderAlive(process.pid, `${mine}1`)).toBe(false);
    // Where the system does not tell start times, a recorded one cannot disagree.
    expect(isLockHolderAlive(process.pid, 'not-the-start', 'darwin')).toBe(true);
    expect(isLockHolderAlive(NEVER_A_PID, undefined)).toBe(false);
  });

  it('a device lock dated up to the clock skew ahead still holds; past it, it is judged forged', () => {
    const at = (ms: number) => new Date(NOW + ms).toISOString();
    const ahead = (ms: number) => lock({ started_at: at(ms), expires_at: at(ms + 600_000) });
    expect(isLiveDeviceLock(ahead(LOCK_CLOCK_SKEW_MS), { holderAlive: true, now: NOW })).toBe(true);
    expect(isLiveDeviceLock(ahead(LOCK_CLOCK_SKEW_MS + 1), { holderAlive: true, now: NOW })).toBe(false);
  });
});
