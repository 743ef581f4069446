import type { PriceSignal } from '../price-signal.js';
import type { QuarterRecord } from './quarter-records.js';

/**
 * What a quarter hour of the history carries besides its registers, as every consumer of the
 * quarter records sends it (the push targets' samples, docs/architecture.md#push, and the MQTT
 * quarter messages): the day-ahead prices of the quarter, its import cost and export credit, and
 * for the peak guard's meter the guard's value of the quarter (its import energy over 15 minutes).
 */

/** The length of a quarter record (s). */
export const QUARTER_S = 900;

/** Rounded to 1e-6 of its unit: float sums carry noise below that and would differ between re-sends. */
export function micro(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** The facts a quarter record has besides the registers: price, cost and the guard's demand. */
export interface QuarterExtras {
  priceImport?: number;
  priceExport?: number;
  cost?: number;
  credit?: number;
  /** The peak guard's value of the quarter (W), for the guarded meter. */
  demandW?: number;
}

/** The extras of one quarter: prices and money only when the price series knows the quarter. */
export function quarterExtras(
  record: QuarterRecord,
  prices: PriceSignal | undefined,
  guarded: boolean,
): QuarterExtras {
  const { counters, point } = record;
  const extras: QuarterExtras = {};
  const price = prices?.quarterAt(counters.t * 1000);
  if (price) {
    if (price.import !== null) extras.priceImport = price.import;
    if (price.export !== null) extras.priceExport = price.export;
    if (price.import !== null && point?.eIn !== null && point?.eIn !== undefined)
      extras.cost = micro(point.eIn * price.import);
    if (price.export !== null && point?.eOut !== null && point?.eOut !== undefined)
      extras.credit = micro(point.eOut * price.export);
  }
  if (guarded && point?.eIn !== null && point?.eIn !== undefined)
    extras.demandW = micro(((point.eIn * 3600) / QUARTER_S) * 1000);
  return extras;
}
