import { systemClock, type Clock } from '../../clock.js';

/**
 * Incoming bytes of a request session, awaited with a deadline. Bounded: when the consumer lags
 * behind by more than `limit` bytes the oldest are dropped (and counted).
 */
export class ByteInbox {
  dropped = 0;
  private queue: Buffer[] = [];
  private queued = 0;
  private wake: (() => void) | undefined;

  constructor(
    private readonly limit: number,
    private readonly clock: Clock = systemClock,
  ) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.queue.push(chunk);
    this.queued += chunk.length;
    while (this.queued > this.limit && this.queue.length > 1) {
      const oldest = this.queue.shift()!;
      this.queued -= oldest.length;
      this.dropped += oldest.length;
    }
    this.wake?.();
  }

  clear(): void {
    this.queue = [];
    this.queued = 0;
  }

  /** Puts bytes back in front (the part of a chunk the current step did not consume). */
  unshift(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.queue.unshift(chunk);
    this.queued += chunk.length;
  }

  /** All queued bytes, waiting up to `timeoutMs` for some; undefined on timeout or abort. */
  async next(timeoutMs: number, signal: AbortSignal): Promise<Buffer | undefined> {
    if (this.queued === 0 && timeoutMs > 0 && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.clock.clearTimeout(timer);
          signal.removeEventListener('abort', done);
          this.wake = undefined;
          resolve();
        };
        const timer = this.clock.setTimeout(done, timeoutMs);
        signal.addEventListener('abort', done);
        this.wake = done;
      });
    }
    if (this.queued === 0 || signal.aborted) return undefined;
    const bytes = this.queue.length === 1 ? this.queue[0]! : Buffer.concat(this.queue, this.queued);
    this.clear();
    return bytes;
  }
}

/** Resolves after `ms`, or at once when the signal aborts. */
export function pause(ms: number, signal: AbortSignal, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) {
      resolve();
      return;
    }
    const done = (): void => {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
