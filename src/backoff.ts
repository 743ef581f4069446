import type { Clock } from './clock.js';

/**
 * The cap of every meter source's reconnect and retry and of the RTU slave's reopen: 1 s doubling to
 * exactly this (1, 2, 4, 8, 16, 30 s), the one number README and docs/architecture.md#data-flow state.
 */
export const RECONNECT_CAP_MS = 30_000;

/**
 * Capped exponential backoff (docs/architecture.md#data-flow): 1 s doubling to RECONNECT_CAP_MS by
 * default, never above the cap, optional jitter, reset after a success.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = 1000,
    private readonly maxMs = RECONNECT_CAP_MS,
    /** 0..1: the delay is drawn from [delay * (1 - jitter), delay]. */
    private readonly jitter = 0,
    private readonly random: () => number = Math.random,
  ) {}

  /** Delay before the next attempt; each call doubles the following one up to the cap. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.attempt, 30));
    this.attempt += 1;
    return Math.round(base * (1 - this.jitter * this.random()));
  }

  reset(): void {
    this.attempt = 0;
  }

  get attempts(): number {
    return this.attempt;
  }
}

/** Runs `attempt` after `delayMs`; returns its cancel. Tests inject one to run a long retry series at once. */
export type RetryTimer = (attempt: () => void, delayMs: number) => () => void;

/** The retry timer on `clock` (docs/architecture.md#clock). */
export function clockRetryTimer(clock: Clock): RetryTimer {
  return (attempt, delayMs) => {
    const timer = clock.setTimeout(attempt, delayMs);
    return () => clock.clearTimeout(timer);
  };
}
