/**
 * A second sign-in run while one is running follows that one to its end instead of leaving the person with its code:
 * the code may already be approved (the running one is saving the sign-in) or about to be. It watches the device lock
 * until its holder releases it, dies, or runs past its end, and the caller then says what the disk holds.
 */
import type { DeviceLock } from '../../schemas/state.js';
import { isLockHolderAlive } from '../../platform/fs/fileLock.js';
import { deviceLockEndsAt, readDeviceLock } from './lock.js';
import { abortableSleep, type Sleep } from './poll.js';

/** How long past the lock's end a sign-in that was approved may still take to save itself (its requests are bounded). */
export const FINISH_GRACE_MS = 60_000;

export type RunningSignIn = 'waiting' | 'approved' | 'ended';

const sameHolder = (a: DeviceLock, b: DeviceLock) => a.pid === b.pid && a.started_at === b.started_at;

/** Pure: where the sign-in `followed` stands, given the lock as it is now (`current`, null when gone). */
export function runningSignInState(followed: DeviceLock, current: DeviceLock | null, args: { holderAlive: boolean; now: number }): RunningSignIn {
  if (!current || !sameHolder(followed, current) || !args.holderAlive) return 'ended';
  const endsAt = deviceLockEndsAt(current);
  const approved = Boolean(current.approved_at);
  if (!Number.isFinite(endsAt) || args.now > endsAt + (approved ? FINISH_GRACE_MS : 0)) return 'ended';
  return approved ? 'approved' : 'waiting';
}

export interface FollowOptions {
  path: string;
  holder: DeviceLock;
  /** Once, when the followed sign-in's code is approved and it begins saving (not when it already was). */
  onApproved?: () => void;
  signal?: AbortSignal;
  sleep?: Sleep;
  now?: () => number;
  everyMs?: number;
}

/** Waits until the followed sign-in has ended; says whether it was approved (seen in its lock, now or on the way). */
export async function followRunningSignIn(options: FollowOptions): Promise<{ approved: boolean }> {
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  let approved = Boolean(options.holder.approved_at);
  let told = approved;
  for (;;) {
    const current = readDeviceLock(options.path);
    const state = runningSignInState(options.holder, current, { holderAlive: current ? isLockHolderAlive(current.pid, current.pid_start) : false, now: now() });
    if (state === 'approved') approved = true;
    if (approved && !told) {
      told = true;
      options.onApproved?.();
    }
    if (state === 'ended') return { approved };
    await sleep(options.everyMs ?? 250, options.signal);
  }
}
