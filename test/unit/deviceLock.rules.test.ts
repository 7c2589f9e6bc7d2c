import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  MAX_DEVICE_LOCK_MS, deviceLockEndsAt, isLiveDeviceLock, shownDeviceLock, shownSignInUrl, signInOrigins,
} from '../../lib/agentstack/signIn/lock.js';
import { isLockHolderAlive } from '../../lib/platform/fs/fileLock.js';
import { processStartTime } from '../../lib/platform/processStart.js';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();
const holder = (over: Record<string, unknown> = {}) => ({ pid: 4242, started_at: at(-60_000), expires_at: at(600_000), ...over });

describe('device lock life', () => {
  it('ends at expires_at, never later than 30 minutes after started_at', () => {
    expect(deviceLockEndsAt(holder())).toBe(NOW + 600_000);
    expect(deviceLockEndsAt(holder({ expires_at: '2999-01-01T00:00:00Z' }))).toBe(NOW - 60_000 + MAX_DEVICE_LOCK_MS);
    expect(deviceLockEndsAt(holder({ started_at: 'yesterday' }))).toBeNaN();
  });
  it('live only with a live holder, before its end, and not dated in the future', () => {
    const live = (over: Record<string, unknown>, holderAlive = true) => isLiveDeviceLock(holder(over), { holderAlive, now: NOW });
    expect(live({})).toBe(true);
    expect(live({}, false)).toBe(false);
    expect(live({ expires_at: at(-1) })).toBe(false);
    expect(live({ started_at: at(-MAX_DEVICE_LOCK_MS - 1), expires_at: '2999-01-01T00:00:00Z' })).toBe(false);
    expect(live({ started_at: at(30_000), expires_at: at(600_000) })).toBe(true);
    expect(live({ started_at: at(3600_000), expires_at: '2999-01-01T00:00:00Z' })).toBe(false);
    expect(live({ expires_at: 'never' })).toBe(false);
  });
});

describe('which sign-in page a lock may show', () => {
  const origins = signInOrigins('https://agentstack.tech', ['https://auth.agentstack.tech/oauth/token', null, 'not a url']);
  it('the server origin and its authorization server origins', () => {
    expect(origins).toEqual(['https://agentstack.tech', 'https://auth.agentstack.tech']);
  });
  it('shows an openable URL on those origins only', () => {
    expect(shownSignInUrl('https://agentstack.tech/activate?user_code=AB-CD', origins)).toBe('https://agentstack.tech/activate?user_code=AB-CD');
    expect(shownSignInUrl('https://auth.agentstack.tech/device', origins)).toBe('https://auth.agentstack.tech/device');
    for (const url of ['https://evil.example/activate', 'https://agentstack.tech.evil.example/a', 'http://agentstack.tech/activate', 'https://agentstack.tech/a b', 'javascript:alert(1)', null]) {
      expect(shownSignInUrl(url, origins)).toBeNull();
    }
  });
  it('shownDeviceLock removes a foreign URL and keeps the rest', () => {
    const shown = shownDeviceLock({ ...holder(), verification_uri: 'https://evil.example/a', verification_uri_complete: 'https://agentstack.tech/a?c=1', user_code: 'AB-CD' }, origins);
    expect(shown).toMatchObject({ verification_uri: null, verification_uri_complete: 'https://agentstack.tech/a?c=1', user_code: 'AB-CD', pid: 4242 });
    expect(shownDeviceLock({ ...holder(), expires_at: '2999-01-01T00:00:00Z' }, origins).expires_at).toBe(at(-60_000 + MAX_DEVICE_LOCK_MS));
  });
});

describe('lock holders and reused pids', () => {
  it.runIf(process.platform === 'linux')('reads a process start time on Linux; another process has another', async () => {
    const mine = processStartTime(process.pid);
    expect(mine).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(mine);
    expect(isLockHolderAlive(process.pid, mine)).toBe(true);
    expect(isLockHolderAlive(process.pid, String(Number(mine) + 1))).toBe(false);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)']);
    await new Promise((r) => setTimeout(r, 100));
    expect(processStartTime(child.pid!)).not.toBeNull();
    child.kill();
  });
  it('no start time elsewhere, or for a pid that is not a process; then only liveness counts', () => {
    expect(processStartTime(process.pid, 'darwin')).toBeNull();
    expect(processStartTime(-1)).toBeNull();
    expect(isLockHolderAlive(process.pid, null)).toBe(true);
    expect(isLockHolderAlive(999_999_999, null)).toBe(false);
  });
});
