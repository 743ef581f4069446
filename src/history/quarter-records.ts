/**
 * The quarter-hour records of the history (docs/architecture.md#push): the registers of each
 * quarter in their own ring file beside the tiers' files, taken from the readings, and read back
 * with the quarter's 15-minute point for the push, MQTT and CSV consumers.
 */
import type { Reading } from '../reading/reading.js';
import type { HistoryPoint } from './point.js';
import { COUNTER_KEYS, COUNTER_OBIS, hasCounters, type QuarterCounters } from './quarter-counters.js';
import type { RingFile } from './ring-file.js';
import { TIERS } from './tiers.js';

/** A quarter hour of the extended 15-minute tier: its registers at the end, and its point when stored. */
export interface QuarterRecord {
  counters: QuarterCounters;
  point?: HistoryPoint;
}

/** Ring file of the quarter-hour registers beside the tiers' files (docs/architecture.md#push). */
export const QUARTERS_FILE = 'quarters.ring';

/**
 * Stored quarter hours with registers after `after` up to `until` (Unix s, quarter starts), oldest
 * first, at most `limit`; each with its 15-minute point when that is stored (docs/architecture.md#push).
 */
export async function readQuarters(
  counterRing: RingFile<QuarterCounters>,
  quarterPoints: RingFile,
  after: number,
  until: number,
  limit: number,
): Promise<QuarterRecord[]> {
  const tier = TIERS['15m'];
  const found: QuarterRecord[] = [];
  const last = tier.numberOf(until);
  // The ring holds a year; older quarters are gone, so the scan starts at most a ring back.
  let first = Math.max(tier.numberOf(after) + 1, last - tier.capacity + 1);
  // Chunks of the batch size: a dense backlog is read once, a sparse one in a few more reads.
  const chunk = Math.max(limit, 96);
  while (first <= last && found.length < limit) {
    const end = Math.min(last, first + chunk - 1);
    const counters = (await counterRing.readRange(first, end)).filter(hasCounters);
    if (counters.length > 0) {
      const lastFound = tier.numberOf(counters[Math.min(counters.length, limit - found.length) - 1]!.t);
      const points = await quarterPoints.readRange(tier.numberOf(counters[0]!.t), lastFound);
      const byStart = new Map(points.map((point) => [point.t, point]));
      for (const record of counters) {
        if (found.length >= limit) break;
        const point = byStart.get(record.t);
        found.push(point ? { counters: record, point } : { counters: record });
      }
    }
    first = end + 1;
  }
  return found;
}

/** The registers of a reading for the record of its quarter hour (null: a register it lacks). */
export function countersOf(reading: Reading, at: number): QuarterCounters {
  const counters = { t: TIERS['15m'].bucketOf(at), at } as QuarterCounters;
  for (const key of COUNTER_KEYS) {
    const register = reading.values.get(COUNTER_OBIS[key])?.value;
    counters[key] = register !== undefined && Number.isFinite(register) ? register : null;
  }
  return counters;
}
