import type { AppConfig } from '../config/types.js';
import type { QuarterPrice } from '../price-signal.js';
import type { CompiledFormula } from './formula.js';
import type { BilledQuarter } from './sources.js';
import { QUARTER_MS } from './spot.js';

/**
 * One local day of prices as the price store holds it (docs/architecture.md#prices): the raw spot
 * of each quarter by column, and the import and export prices the formula computes from it.
 */

export type CostsSlice = AppConfig['services']['costs'];

export interface DayRecord {
  day: string;
  start: number;
  end: number;
  source: string;
  zone: string;
  currency: string;
  fetchedAt: number;
  /** Per quarter, in the source's currency per MWh; NaN where there is none. */
  spot: Float64Array;
  /** tibber: what is billed per kWh; NaN where there is none. */
  total: Float64Array | undefined;
  imports: Float64Array;
  exports: Float64Array;
}

const round = (value: number) => Math.round(value * 1e9) / 1e9;

/** A stored value as a price: NaN (no price) and a missing value are null, never 0. */
export const finite = (value: number | undefined): number | null =>
  value === undefined || Number.isNaN(value) ? null : value;

/** The price series' view of quarter `i` of a day. */
export function quarterOf(record: DayRecord, i: number): QuarterPrice {
  const start = record.start + i * QUARTER_MS;
  return {
    start,
    end: start + QUARTER_MS,
    import: finite(record.imports[i]),
    export: finite(record.exports[i]),
    estimated: false,
  };
}

/**
 * A source's quarters laid out as the columns of the day [start, end): spot, and tibber's billed
 * total when it gives one; `found` counts the quarters of the day the source priced.
 */
export function spotColumns(
  quarters: BilledQuarter[],
  bounds: { start: number; end: number },
): { spot: Float64Array; total: Float64Array | undefined; found: number } {
  const count = Math.round((bounds.end - bounds.start) / QUARTER_MS);
  const spot = new Float64Array(count).fill(NaN);
  let total: Float64Array | undefined;
  let found = 0;
  for (const quarter of quarters) {
    if (quarter.start < bounds.start || quarter.start >= bounds.end) continue;
    const i = (quarter.start - bounds.start) / QUARTER_MS;
    spot[i] = quarter.spot;
    found += 1;
    if (quarter.total !== undefined) {
      total ??= new Float64Array(count).fill(NaN);
      total[i] = quarter.total;
    }
  }
  return { spot, total, found };
}

/**
 * The import and export price of every quarter after the formula, the spot converted at the
 * settings' rate when the day is in another currency than the contract; tibber's billed total is
 * the import price unless the contract adds its own charges. No spot, no formula or no rate: null.
 */
export function computePrices(
  record: DayRecord,
  slice: CostsSlice | undefined,
  formula: CompiledFormula | undefined,
): void {
  for (let i = 0; i < record.spot.length; i += 1) {
    const raw = record.spot[i]!;
    const rate = !slice || record.currency === slice.currency ? 1 : slice.source.rate;
    if (Number.isNaN(raw) || !formula || rate <= 0) {
      record.imports[i] = NaN;
      record.exports[i] = NaN;
      continue;
    }
    const spot = raw * rate;
    const start = record.start + i * QUARTER_MS;
    const billed = record.total?.[i];
    record.imports[i] =
      record.source === 'tibber' &&
      !slice!.source.own_charges &&
      billed !== undefined &&
      !Number.isNaN(billed)
        ? round(billed * rate)
        : formula.importPrice(spot, start);
    record.exports[i] = formula.exportPrice(spot);
  }
}
