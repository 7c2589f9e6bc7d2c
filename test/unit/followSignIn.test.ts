import { mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FINISH_GRACE_MS, followRunningSignIn, runningSignInState } from '../../lib/agentstack/signIn/follow.js';
import { processStartTime } from '../../lib/platform/processStart.js';

const NOW = Date.parse('2026-12-01T10:00:00Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();
const lock = (over: Record<string, unknown> = {}) => ({ pid: 4242, started_at: at(-60_000), expires_at: at(600_000), ...over });

describe('where a followed sign-in stands (pure)', () => {
  const state = (followed: ReturnType<typeof lock>, current: ReturnType<typeof lock> | null, holderAlive = true, now = NOW) =>
    runningSignInState(followed, current, { holderAlive, now });

  it('waiting while its holder lives and the code has not expired; approved once the lock says so', () => {
    expect(state(lock(), lock())).toBe('waiting');
    expect(state(lock(), lock({ approved_at: at(-1) }))).toBe('approved');
  });
  it('ended when the lock is gone, taken by another run, or its holder died', () => {
    expect(state(lock(), null)).toBe('ended');
    expect(state(lock(), lock({ pid: 4243 }))).toBe('ended');
    expect(state(lock(), lock({ started_at: at(-1) }))).toBe('ended');
    expect(state(lock(), lock(), false)).toBe('ended');
  });
  it('past its end: ended, unless approved and still within the grace to save', () => {
    expect(state(lock(), lock(), true, NOW + 600_001)).toBe('ended');
    expect(state(lock(), lock({ approved_at: at(0) }), true, NOW + 600_000 + FINISH_GRACE_MS)).toBe('approved');
    expect(state(lock(), lock({ approved_at: at(0) }), true, NOW + 600_001 + FINISH_GRACE_MS)).toBe('ended');
    expect(state(lock(), lock({ expires_at: 'never' }))).toBe('ended');
  });
});

describe('following a sign-in through its lock file', () => {
  let dir = '';
  afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }); });

  it('tells once when it is approved and returns when the lock is released', async () => {
    dir = mkdtempSync(join(tmpdir(), 'follow-'));
    const path = join(dir, 'agentstack-device.lock');
    const now = Date.now();
    const holder = { pid: process.pid, pid_start: processStartTime(process.pid) ?? undefined, started_at: new Date(now - 1_000).toISOString(), expires_at: new Date(now + 600_000).toISOString() };
    writeFileSync(path, JSON.stringify(holder));
    let told = 0;
    let polls = 0;
    const result = await followRunningSignIn({
      path, holder, onApproved: () => { told++; },
      sleep: async () => {
        polls++;
        if (polls === 2) writeFileSync(path, JSON.stringify({ ...holder, approved_at: new Date().toISOString() }));
        if (polls === 5) unlinkSync(path);
      },
    });
    expect(result).toEqual({ approved: true });
    expect(told).toBe(1);
    expect(polls).toBe(5);
  });

  it('a lock released without approval: not approved, never told', async () => {
    dir = mkdtempSync(join(tmpdir(), 'follow-'));
    const path = join(dir, 'agentstack-device.lock');
    const holder = { pid: process.pid, started_at: new Date(Date.now() - 1_000).toISOString(), expires_at: new Date(Date.now() + 600_000).toISOString() };
    writeFileSync(path, JSON.stringify(holder));
    let told = 0;
    const result = await followRunningSignIn({ path, holder, onApproved: () => { told++; }, sleep: async () => { unlinkSync(path); } });
    expect(result).toEqual({ approved: false });
    expect(told).toBe(0);
  });
});
