/**
 * The clock (docs/architecture.md#clock): the one way a module reads the time or waits. Every
 * module gets it from the context or its constructor options; a test gives a virtual clock instead
 * and moves time without waiting. This is the only module under src/ that touches the global
 * timers and `Date.now()` (a lint rule forbids them elsewhere).
 */

/** A pending timeout or interval. `unref` lets the process exit while it is pending (Node's Timeout). */
export interface Timer {
  unref(): Timer;
  ref(): Timer;
  /** Starts the same delay again from now (Node's Timeout.refresh). */
  refresh(): Timer;
}

export interface Clock {
  /** Wall clock in ms since the epoch. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): Timer;
  clearTimeout(timer: Timer | undefined): void;
  setInterval(callback: () => void, intervalMs: number): Timer;
  clearInterval(timer: Timer | undefined): void;
}

/** The real clock: Node's timers and `Date.now`. Stateless, so one object serves every caller. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
  setInterval: (callback, intervalMs) => setInterval(callback, intervalMs),
  clearInterval: (timer) => clearInterval(timer as NodeJS.Timeout | undefined),
};

/** `clock` with its wall clock replaced by `now` (a shifted daemon clock, a test's frozen time). */
export function withNow(clock: Clock, now: () => number): Clock {
  return { ...clock, now };
}

/** Resolves after `delayMs` on `clock`; early (without error) when `signal` aborts. */
export function delay(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clock.clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, Math.max(0, delayMs));
    signal?.addEventListener('abort', done, { once: true });
  });
}
