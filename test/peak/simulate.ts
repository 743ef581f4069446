import { PeakEngine } from '../../src/peak/engine.js';
import type { PeakEvent, PeakCall, PeakSettings } from '../../src/peak/engine-types.js';
import type { PeakStage } from '../../src/peak/stages.js';

/**
 * Drives a peak engine at 1 Hz on generated readings: the import power of each second comes from
 * a profile of the time and the shed stages, and A+ integrates it exactly (each reading carries
 * the power of the second that ends at its time).
 */

export const EV: PeakStage = {
  id: 'ev',
  shed: 'ev_off',
  restore: 'ev_on',
  relief_kw: 3.7,
  min_on_s: 0,
  min_off_s: 0,
  locks: [],
};

export const BELGIUM: PeakSettings = {
  model: 'be_quarter',
  window_s: 900,
  limit_kw: 4,
  mode: 'fixed',
  warn_margin_kw: 0.3,
  margin_kw: 0.1,
  floor_kw: 2.5,
  arm_after_s: 60,
  step_delay_s: 30,
  hysteresis_kw: 0.3,
  hold_s: 60,
  on_stale: 'hold',
  eur_per_kw_year: 40.4,
  stages: [EV],
};

export type Profile = (at: number, shed: readonly string[]) => number;

export class Simulation {
  readonly calls: PeakCall[] = [];
  readonly events: PeakEvent[] = [];
  kwh = 1000;
  at: number;

  constructor(
    readonly engine: PeakEngine,
    start: number,
    private readonly profile: Profile,
  ) {
    this.at = start;
  }

  static belgian(start: string, profile: Profile, settings: Partial<PeakSettings> = {}): Simulation {
    return new Simulation(new PeakEngine({ ...BELGIUM, ...settings }, 10_000), Date.parse(start), profile);
  }

  get shed(): string[] {
    return this.engine.snapshot(this.at).shed.map((stage) => stage.id);
  }

  /** Feeds one reading per second up to and including `until`. */
  runUntil(until: string): void {
    const end = Date.parse(until);
    while (this.at < end) {
      this.at += 1000;
      const kw = this.profile(this.at, this.shed);
      this.kwh += kw / 3600;
      const result = this.engine.reading({ at: this.at, importKwh: this.kwh, importKw: kw });
      this.calls.push(...result.calls);
      this.events.push(...result.events);
    }
  }

  quantities() {
    return this.engine.snapshot(this.at).quantities!;
  }
}

export const local = (text: string) => new Date(text).toISOString();
