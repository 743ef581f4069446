/**
 * Slows down password guessing (repeated failures from one address are slowed down, not answered
 * faster; docs/architecture.md#auth): after `freeAttempts` failed credentials from one address, each further
 * 401 is held back, doubling from `baseDelayMs` up to `maxDelayMs`. A success or `forgetAfterMs` without
 * failures clears the address. The table is bounded; the oldest address is dropped first.
 */
export interface ThrottleOptions {
  freeAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
  maxAddresses: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = {
  freeAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  forgetAfterMs: 15 * 60_000,
  maxAddresses: 4096,
};

interface Failures {
  count: number;
  lastAt: number;
}

export class FailureThrottle {
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly now: () => number,
    private readonly options: ThrottleOptions = DEFAULT_THROTTLE,
  ) {}

  /** Counts a failure of `address` and returns how long its answer is to be held back (ms). */
  fail(address: string): number {
    const now = this.now();
    let entry = this.failures.get(address);
    if (!entry || now - entry.lastAt > this.options.forgetAfterMs) entry = { count: 0, lastAt: now };
    entry.count += 1;
    entry.lastAt = now;
    this.failures.delete(address);
    if (this.failures.size >= this.options.maxAddresses) {
      this.failures.delete(this.failures.keys().next().value as string);
    }
    this.failures.set(address, entry);
    return this.delayFor(entry.count);
  }

  succeed(address: string): void {
    this.failures.delete(address);
  }

  failuresOf(address: string): number {
    const entry = this.failures.get(address);
    return entry && this.now() - entry.lastAt <= this.options.forgetAfterMs ? entry.count : 0;
  }

  private delayFor(count: number): number {
    const excess = count - this.options.freeAttempts;
    if (excess <= 0) return 0;
    return Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** Math.min(excess - 1, 30));
  }
}
