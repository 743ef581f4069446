import { windowAt, type DemandWindow } from './window.js';

/**
 * Follows the import counter A+ through the demand windows: the counter at the window start
 * (interpolated linearly between the readings around a boundary that no reading hits exactly)
 * and the windows that closed, each with its demand (docs/architecture.md#peak-guard).
 */

/** A first reading this long after its window's start leaves the start counter unknown. */
const START_TOLERANCE_MS = 60_000;

export interface ClosedWindow {
  start: number;
  end: number;
  kw: number;
  /** No reading within the gap limit on both sides of its end: its value would be invented. */
  missed?: boolean;
}

export interface TrackerState {
  windowStart: number;
  /** A+ at the window start, kWh. */
  startKwh: number;
  /** The last reading: time and A+. */
  lastAt: number;
  lastKwh: number;
  /** The window began before the first reading: its start counter is unknown, it is not recorded. */
  partial?: boolean;
}

export class WindowTracker {
  private state: TrackerState | undefined;

  constructor(
    readonly seconds: number,
    restored?: TrackerState,
    /** The longest gap between two readings across which a window end is interpolated. */
    private readonly maxGapMs = Infinity,
  ) {
    this.state = restored;
  }

  get current(): DemandWindow | undefined {
    return this.state ? windowAt(this.state.windowStart, this.seconds) : undefined;
  }

  /** Energy imported in the current window so far, kWh. */
  get energyKwh(): number {
    return this.state ? this.state.lastKwh - this.state.startKwh : 0;
  }

  snapshot(): TrackerState | undefined {
    return this.state ? { ...this.state } : undefined;
  }

  /** Starts the window of `at` with `energyKwh` imported in it so far; A+ is `kwh` at `at`. */
  seed(at: number, kwh: number, energyKwh: number): void {
    const window = windowAt(at, this.seconds);
    this.state = { windowStart: window.start, startKwh: kwh - energyKwh, lastAt: at, lastKwh: kwh };
  }

  /** Takes a reading; returns the windows it closed (none, or several after a long gap). */
  add(at: number, kwh: number): ClosedWindow[] {
    const window = windowAt(at, this.seconds);
    const state = this.state;
    if (!state || kwh < state.lastKwh) {
      // First reading, or a counter that went back (meter replaced): start over from here; a
      // window entered after its start is only partly seen.
      this.state = { windowStart: window.start, startKwh: kwh, lastAt: at, lastKwh: kwh };
      if (at - window.start > Math.min(this.maxGapMs, START_TOLERANCE_MS)) this.state.partial = true;
      return [];
    }
    const closed: ClosedWindow[] = [];
    let open = windowAt(state.windowStart, this.seconds);
    const missed = at - state.lastAt > this.maxGapMs;
    while (open.start < window.start) {
      const endKwh = interpolate(state.lastAt, state.lastKwh, at, kwh, open.end);
      const entry: ClosedWindow = {
        start: open.start,
        end: open.end,
        kw: ((endKwh - state.startKwh) * 3600) / open.seconds,
      };
      if (missed || state.partial) entry.missed = true;
      delete state.partial;
      closed.push(entry);
      state.startKwh = endKwh;
      open = windowAt(open.end, this.seconds);
    }
    state.windowStart = window.start;
    state.lastAt = at;
    state.lastKwh = kwh;
    return closed;
  }
}

/** The counter at `at` on the straight line between two readings (the later one when at ≥ it). */
function interpolate(t0: number, e0: number, t1: number, e1: number, at: number): number {
  if (at >= t1 || t1 === t0) return e1;
  if (at <= t0) return e0;
  return e0 + ((e1 - e0) * (at - t0)) / (t1 - t0);
}
