import type { QuarterPrice } from '../price-signal.js';
import { finite, quarterOf, type DayRecord } from './day-record.js';
import { addDays, localDate, localDayBounds } from './local-day.js';
import { QUARTER_MS } from './spot.js';

/**
 * The stored days as a series (docs/architecture.md#prices): the quarter at a time and the
 * quarters of a span, as the `PriceSignal` answers them, and every quarter of a local day, as the
 * prices answer shows it. A quarter without a market price is null, never 0.
 */

export type StoredDays = ReadonlyMap<string, DayRecord>;

export interface SlotView {
  start: number;
  end: number;
  spot: number | null;
  import: number | null;
  export: number | null;
  source: string | null;
  estimated: boolean;
}

export function quarterAtIn(days: StoredDays, time: number): QuarterPrice | undefined {
  const record = days.get(localDate(time));
  if (!record || time < record.start || time >= record.end) return undefined;
  return quarterOf(record, Math.floor((time - record.start) / QUARTER_MS));
}

/** The stored quarters overlapping [from, to), oldest first. */
export function quartersIn(days: StoredDays, from: number, to: number): QuarterPrice[] {
  const out: QuarterPrice[] = [];
  if (!(to > from)) return out;
  for (let day = localDate(from); ; day = addDays(day, 1)) {
    const bounds = localDayBounds(day);
    if (!bounds || bounds.start >= to) break;
    const record = days.get(day);
    if (record)
      for (let i = 0; i < record.spot.length; i += 1) {
        const start = record.start + i * QUARTER_MS;
        if (start + QUARTER_MS > from && start < to) out.push(quarterOf(record, i));
      }
  }
  return out;
}

/** Every quarter of a local day with its prices; a quarter without one is null. */
export function daySlots(days: StoredDays, day: string): SlotView[] | undefined {
  const bounds = localDayBounds(day);
  if (!bounds) return undefined;
  const record = days.get(day);
  const out: SlotView[] = [];
  for (let start = bounds.start, i = 0; start < bounds.end; start += QUARTER_MS, i += 1) {
    const spot = record ? finite(record.spot[i]) : null;
    out.push({
      start,
      end: start + QUARTER_MS,
      spot,
      import: record ? finite(record.imports[i]) : null,
      export: record ? finite(record.exports[i]) : null,
      source: spot === null ? null : record!.source,
      estimated: false,
    });
  }
  return out;
}
