import { CLOCK_OFFSET_VARIABLE } from '../../src/context.js';

/** One time line shared by a test and the daemon processes it starts, shifted from the real time. */
export interface ShiftedClock {
  /** The shifted time, in ms. */
  now(): number;
  /** The environment that starts a daemon on this time line, or `aheadMs` further on. */
  env(aheadMs?: number): Record<string, string>;
}

/**
 * A time line that is `intoMs` into a period of `periodMs` (a minute, a quarter hour; Unix-time
 * aligned like the history's buckets and the peak guard's windows) at the moment of the call, so
 * that a test about a boundary need not wait for a real one. Daemons take it through
 * MG_TEST_CLOCK_OFFSET_S (docs/architecture.md#test-clock-offset).
 */
export function shiftedClock(periodMs: number, intoMs: number): ShiftedClock {
  const shiftMs = intoMs - (Date.now() % periodMs);
  return {
    now: () => Date.now() + shiftMs,
    env: (aheadMs = 0) => ({ [CLOCK_OFFSET_VARIABLE]: String((shiftMs + aheadMs) / 1000) }),
  };
}
