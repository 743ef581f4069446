// A Clock for tests (docs/architecture.md#clock): time stands still until the test moves it.
import type { Clock, Timer } from '../../src/clock.js';

/** Lets pending promise continuations (and I/O callbacks already due) run. */
function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

class VirtualTimer implements Timer {
  active = true;
  due: number;
  order: number;

  constructor(
    private readonly clock: VirtualClock,
    readonly callback: () => void,
    readonly delayMs: number,
    readonly periodMs: number | undefined,
  ) {
    this.due = clock.now() + delayMs;
    this.order = clock.nextOrder();
  }

  unref(): this {
    return this;
  }

  ref(): this {
    return this;
  }

  /** As Node's: the same delay again from now, re-armed even after it fired. */
  refresh(): this {
    this.due = this.clock.now() + this.delayMs;
    this.order = this.clock.nextOrder();
    this.clock.arm(this);
    return this;
  }
}

/**
 * Virtual time: `now()` starts at `startMs` and moves only with `advance(ms)`, which fires the
 * timers due within the span in time order (equal times in the order they were set), each with
 * `now()` at its own time, and lets promise continuations run after each one.
 */
export class VirtualClock implements Clock {
  private current: number;
  private counter = 0;
  private readonly timers = new Set<VirtualTimer>();

  constructor(startMs = Date.now()) {
    this.current = startMs;
  }

  readonly now = (): number => this.current;

  readonly setTimeout = (callback: () => void, delayMs: number): Timer =>
    this.arm(new VirtualTimer(this, callback, Math.max(0, delayMs || 0), undefined));

  readonly setInterval = (callback: () => void, intervalMs: number): Timer => {
    const period = Math.max(1, intervalMs || 0);
    return this.arm(new VirtualTimer(this, callback, period, period));
  };

  readonly clearTimeout = (timer: Timer | undefined): void => {
    if (timer instanceof VirtualTimer) {
      timer.active = false;
      this.timers.delete(timer);
    }
  };

  readonly clearInterval = this.clearTimeout;

  /** @internal */
  nextOrder(): number {
    this.counter += 1;
    return this.counter;
  }

  /** @internal */
  arm(timer: VirtualTimer): VirtualTimer {
    timer.active = true;
    this.timers.add(timer);
    return timer;
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time by `ms`, firing every timer due on the way (see the class comment). */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await turn();
    for (let next = this.due(target); next; next = this.due(target)) {
      this.current = Math.max(this.current, next.due);
      if (next.periodMs === undefined) {
        next.active = false;
        this.timers.delete(next);
      } else {
        next.due += next.periodMs;
        next.order = this.nextOrder();
      }
      next.callback();
      await turn();
    }
    this.current = target;
    await turn();
  }

  /** When the next timer is due (virtual ms), if any is pending. */
  nextDue(): number | undefined {
    return this.due(Number.POSITIVE_INFINITY)?.due;
  }

  /**
   * Settles `work` whose peer is real (a pty, a broker) while its own waits run on this clock: the
   * peer gets `graceMs` of real time to act, then time jumps to the next pending timer, and so on.
   * A window that a real peer would fill within `graceMs` behaves as it does in real time; a long
   * silent window costs `graceMs` instead of its length.
   */
  async settle<T>(work: Promise<T>, graceMs: number): Promise<T> {
    let settled = false;
    const watched = work.finally(() => {
      settled = true;
    });
    while (!settled) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        watched.catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      clearTimeout(timer);
      const next = this.nextDue();
      if (!settled && next !== undefined) await this.advance(next - this.current);
    }
    return watched;
  }

  /**
   * Advances in steps of `stepMs` until `condition()` holds; fails after `limitMs` of virtual time
   * (the virtual counterpart of waiting for a condition).
   */
  async advanceUntil(condition: () => boolean, limitMs: number, stepMs = 10): Promise<void> {
    for (let moved = 0; !condition(); moved += stepMs) {
      if (moved >= limitMs) throw new Error(`condition not met within ${limitMs} ms of virtual time`);
      await this.advance(stepMs);
    }
  }

  private due(target: number): VirtualTimer | undefined {
    let first: VirtualTimer | undefined;
    for (const timer of this.timers) {
      if (timer.due > target) continue;
      if (!first || timer.due < first.due || (timer.due === first.due && timer.order < first.order))
        first = timer;
    }
    return first;
  }
}
