import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';

export interface WaitOptions {
  /** How long to keep looking before failing (default 20 s: generous for a loaded machine). */
  deadlineMs?: number;
  /** Pause between two looks (default 20 ms). */
  intervalMs?: number;
}

/**
 * The one way tests wait for something to become true: looks at `observe()` until `until(value)`
 * holds and returns that value. Past the deadline it throws an error naming `reason` and the last
 * value seen, so a failure says what was expected and what was there instead. The deadline only
 * turns a broken run into a failure; nothing is asserted about how long the wait took.
 */
export async function waitFor<T>(
  reason: string,
  observe: () => T | Promise<T>,
  until: (value: T) => boolean = Boolean,
  { deadlineMs = 20_000, intervalMs = 20 }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await observe();
    if (until(value)) return value;
    if (Date.now() >= deadline) {
      const last = describeLast(value);
      throw new Error(`timed out after ${deadlineMs} ms waiting for ${reason}; last observed: ${last}`);
    }
    await sleep(intervalMs);
  }
}

/** The last observed value for the error: long text (a process's output) by its end. */
function describeLast(value: unknown): string {
  if (typeof value === 'string' && value.length > 2000) return `…${inspect(value.slice(-2000))}`;
  return inspect(value, { depth: 3, breakLength: Infinity, maxStringLength: 2000, maxArrayLength: 20 });
}

/**
 * Lets `ms` pass before a test checks that something did NOT happen ("nothing arrives within
 * `ms`"). Only for proving an absence; to wait for something to happen use `waitFor`.
 */
export async function quietPeriod(ms: number): Promise<void> {
  await sleep(ms);
}

/**
 * Settles as `work` does, or rejects naming `reason` once `deadlineMs` passed without that: for
 * teardown steps (closing ports, stopping peers) that must not hang a test run.
 */
export async function settleWithin<T>(reason: string, work: Promise<T>, deadlineMs = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${reason} did not finish within ${deadlineMs} ms`)),
      deadlineMs,
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
