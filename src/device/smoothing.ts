import type { ObisValue, Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';

/**
 * Optional smoothing of the power a consumer personality serves (docs/architecture.md#personality-smoothing).
 * Battery controllers that regulate to zero grid power on a fast, noisy feed may chase every step and
 * oscillate; a moving average or a hold time calms them. Only instantaneous powers are touched (OBIS
 * D = 7 in kW, kvar or kVA: active, reactive and apparent, total and per phase); energies, voltages,
 * currents, power factor and frequency stay as the meter sent them. The smoothed reading is built
 * once per meter reading, when the store announces it, never per request.
 */

export type SmoothingMode = 'off' | 'average' | 'hold';

export interface SmoothingSettings {
  mode: SmoothingMode;
  /** Window of the moving average, or how long a power value is held, in seconds. */
  seconds: number;
}

const POWER_UNITS = new Set(['kW', 'kvar', 'kVA']);

function isPower(key: string, value: ObisValue): boolean {
  return key.split('.')[1] === '7' && POWER_UNITS.has(value.unit);
}

/** `reading` with its power values replaced by `power(key, value)`; the rest unchanged. */
function withPowers(reading: Reading, power: (key: string, value: ObisValue) => number): Reading {
  const values = new Map<string, ObisValue>();
  for (const [key, value] of reading.values)
    values.set(key, isPower(key, value) ? { value: power(key, value), unit: value.unit } : value);
  return { ...reading, values };
}

/**
 * The smoothed readings of one stream of meter readings. `push` takes each reading once, in order;
 * `average` serves the arithmetic mean of each power over the readings received in the last
 * `seconds` (the newest included), `hold` serves the powers of a reading for `seconds` before the
 * next reading's replace them (energies always from the newest).
 */
export class PowerSmoother {
  private window: Reading[] = [];
  private held: Reading | undefined;
  private mode: SmoothingMode = 'off';
  private seconds = 0;

  push(reading: Reading, settings: SmoothingSettings): Reading {
    if (settings.mode !== this.mode || settings.seconds !== this.seconds) {
      this.window = [];
      this.held = undefined;
      this.mode = settings.mode;
      this.seconds = settings.seconds;
    }
    const spanMs = settings.seconds * 1000;
    if (settings.mode === 'hold') {
      if (!this.held || reading.receivedAt - this.held.receivedAt >= spanMs) this.held = reading;
      const held = this.held.values;
      return withPowers(reading, (key, value) => held.get(key)?.value ?? value.value);
    }
    if (settings.mode === 'average') {
      this.window = this.window.filter((old) => reading.receivedAt - old.receivedAt < spanMs);
      this.window.push(reading);
      return withPowers(reading, (key) => {
        let sum = 0;
        let count = 0;
        for (const old of this.window) {
          const value = old.values.get(key)?.value;
          if (value === undefined) continue;
          sum += value;
          count++;
        }
        // Rounded to the meter's resolution of 1 mW so that sums of float steps read cleanly.
        return Math.round((sum / count) * 1e6) / 1e6;
      });
    }
    return reading;
  }
}

/**
 * The newest reading of a store as a personality serves it: smoothed when its settings ask for it,
 * the store's own otherwise, undefined while the store has no fresh reading (staleness as the store).
 * Follows the store of the configured meter as the configuration changes.
 */
export class SmoothedFeed {
  private store: ReadingStore | undefined;
  private smoother = new PowerSmoother();
  private last: { source: Reading; served: Reading } | undefined;
  private readonly changed = new Set<() => void>();
  private readonly onReading = (reading: Reading): void => {
    this.take(reading);
    for (const listener of this.changed) listener();
  };
  /** The meter's status changed (it went stale, or came back): what is served changed too. */
  private readonly onMeter = (): void => {
    for (const listener of this.changed) listener();
  };

  constructor(
    private readonly storeOf: () => ReadingStore | undefined,
    private readonly settings: () => SmoothingSettings,
  ) {
    this.follow();
  }

  private follow(): ReadingStore | undefined {
    const store = this.storeOf();
    if (store !== this.store) {
      this.store?.off('reading', this.onReading);
      this.store?.off('meter', this.onMeter);
      store?.on('reading', this.onReading);
      store?.on('meter', this.onMeter);
      this.store = store;
      this.smoother = new PowerSmoother();
      this.last = undefined;
    }
    return store;
  }

  private take(reading: Reading): Reading {
    const settings = this.settings();
    if (settings.mode === 'off') return reading;
    this.last = { source: reading, served: this.smoother.push(reading, settings) };
    return this.last.served;
  }

  latest(): Reading | undefined {
    const reading = this.follow()?.latest;
    if (!reading || this.settings().mode === 'off') return reading;
    if (this.last?.source === reading) return this.last.served;
    return this.take(reading);
  }

  /**
   * Calls `listener` after each reading of the followed store (the served reading is then
   * `latest()`) and after each change of its meter status; returns the unsubscribe function.
   */
  onChange(listener: () => void): () => void {
    this.follow();
    this.changed.add(listener);
    return () => this.changed.delete(listener);
  }

  close(): void {
    this.store?.off('reading', this.onReading);
    this.store?.off('meter', this.onMeter);
    this.store = undefined;
  }
}
