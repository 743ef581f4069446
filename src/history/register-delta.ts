import { roundMicro } from './point.js';

/**
 * Highest average power (kW) a step of an energy register may imply and still count as energy
 * used: a household connection delivers well under 100 kW (3 x 63 A at 230 V is 43 kW), so a
 * larger step is a meter change or a register set to a new value, not consumption.
 */
export const MAX_PLAUSIBLE_KW = 1000;

/** Steps up to this many kWh always count (register resolution with readings milliseconds apart). */
const RESOLUTION_SLACK_KWH = 0.01;

/**
 * Energy used between consecutive readings of one energy register (kWh, rounded to 1 mWh). A
 * step backwards (register reset, replaced meter) or a step larger than MAX_PLAUSIBLE_KW over
 * the time between the readings counts as nothing and the new value becomes the base, so such an
 * event never shows as a huge negative or positive bucket. Energy used while no reading arrived
 * is counted with the first reading after the gap.
 */
export class RegisterDelta {
  private last: { value: number; at: number } | undefined;

  /** Forgets the base (another meter answers); the next reading only sets it. */
  reset(): void {
    this.last = undefined;
  }

  /** The step since the previous reading, or undefined when there is no usable previous value. */
  next(value: number | undefined, at: number): number | undefined {
    if (value === undefined || !Number.isFinite(value)) return undefined;
    const previous = this.last;
    this.last = { value, at };
    if (!previous) return undefined;
    const step = value - previous.value;
    const hours = Math.max(at - previous.at, 0) / 3_600_000;
    if (step < 0 || step > hours * MAX_PLAUSIBLE_KW + RESOLUTION_SLACK_KWH) return undefined;
    return roundMicro(step);
  }
}
