/** The stdin deadline's clock: time the process could not run counts for at most two ticks. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RUNNING_TICK_MS, afterRunningMs } from '../../lib/platform/hookIo.js';

afterEach(() => vi.restoreAllMocks());

/** A clock and a wait the test drives: each wait asked for is run when the test says, the clock moved by `gap`. */
function driven() {
  let now = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => now);
  const pending: Array<{ ms: number; fn: () => void }> = [];
  return {
    pending,
    wait: (ms: number, fn: () => void) => void pending.push({ ms, fn }),
    /** Runs the next wait `late` ms after it was due. */
    step(late = 0) {
      const next = pending.shift()!;
      now += next.ms + late;
      next.fn();
    },
  };
}

describe('afterRunningMs', () => {
  it('a process that runs on time: the deadline after ms, in ticks', () => {
    const d = driven();
    let fired = 0;
    afterRunningMs(200, () => { fired += 1; }, d.wait);
    for (let i = 0; i < 200 / RUNNING_TICK_MS - 1; i++) d.step();
    expect(fired).toBe(0);
    d.step();
    expect(fired).toBe(1);
    expect(d.pending).toHaveLength(0);
  });

  it('a stretch of 5 s not run counts as two ticks: the deadline waits for time the process ran', () => {
    const d = driven();
    let fired = 0;
    afterRunningMs(2_000, () => { fired += 1; }, d.wait);
    d.step(5_000);
    expect(fired).toBe(0);
    const ticksLeft = (2_000 - 2 * RUNNING_TICK_MS) / RUNNING_TICK_MS;
    for (let i = 0; i < ticksLeft - 1; i++) d.step();
    expect(fired).toBe(0);
    d.step();
    expect(fired).toBe(1);
  });

  it('a clock set back counts nothing; the deadline still comes from the ticks that follow', () => {
    const d = driven();
    let fired = 0;
    afterRunningMs(100, () => { fired += 1; }, d.wait);
    d.step(-10_000);
    expect(fired).toBe(0);
    d.step();
    d.step();
    expect(fired).toBe(1);
  });

  it('cancelled: never fires, and arms nothing more', () => {
    const d = driven();
    let fired = 0;
    const deadline = afterRunningMs(100, () => { fired += 1; }, d.wait);
    deadline.cancel();
    d.step();
    expect(fired).toBe(0);
    expect(d.pending).toHaveLength(0);
  });
});
