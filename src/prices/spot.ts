/**
 * Day-ahead spot prices as the sources give them, before the contract formula
 * (docs/architecture.md#prices): one price per quarter hour in the source's currency per MWh. Since
 * 2025-10-01 the European single day-ahead coupling clears in 15-minute slots; an hourly price
 * (older days, or a source that still publishes hours) stands for four equal quarters.
 */

export const QUARTER_MS = 15 * 60_000;

/** One quarter of a spot price: start in ms since the epoch (UTC), price per MWh. */
export interface SpotQuarter {
  start: number;
  /** Currency per MWh, negative allowed. */
  spot: number;
}

/** What a source's answer holds. */
export type SpotAnswer =
  | { kind: 'prices'; currency: string; quarters: SpotQuarter[] }
  /** The source answered that the day is not published yet (ENTSO-E reason 999, an empty list). */
  | { kind: 'not_published'; reason: string }
  /** The answer was not usable (wrong shape, unit, namespace, size): nothing of it is stored. */
  | { kind: 'refused'; reason: string };

/** At most this many quarters in one answer (a few days); more is a hostile or wrong answer. */
export const MAX_QUARTERS = 4 * 24 * 8;

export function refused(reason: string): SpotAnswer {
  return { kind: 'refused', reason };
}

/**
 * ISO 8601 durations of the slot resolutions in use (PT15M, PT30M, PT60M, also written PT1H), in
 * minutes; undefined for anything else.
 */
export function resolutionMinutes(text: string): number | undefined {
  const match = /^PT(?:(\d{1,2})H)?(?:(\d{1,3})M)?$/.exec(text.trim());
  if (!match || (match[1] === undefined && match[2] === undefined)) return undefined;
  const minutes = Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0);
  return minutes === 15 || minutes === 30 || minutes === 60 ? minutes : undefined;
}

/**
 * Adds a price of `minutes` starting at `start` as its quarters. A quarter given twice keeps the
 * first value (the series of classification position 1 is read first).
 */
export function addSlot(into: Map<number, number>, start: number, minutes: number, spot: number): void {
  for (let offset = 0; offset < minutes; offset += 15) {
    const quarter = start + offset * 60_000;
    if (!into.has(quarter)) into.set(quarter, spot);
  }
}

/** The quarters of a map, oldest first. */
export function sortedQuarters(map: Map<number, number>): SpotQuarter[] {
  return [...map.entries()].sort((a, b) => a[0] - b[0]).map(([start, spot]) => ({ start, spot }));
}

/** Parses an ISO 8601 UTC time as the sources write it (`2024-10-05T22:00Z`, with seconds, `+00:00`). */
export function utcTime(text: unknown): number | undefined {
  if (typeof text !== 'string' || text.length > 40) return undefined;
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$/.test(text.trim())) return undefined;
  const ms = Date.parse(text.trim());
  return Number.isFinite(ms) ? ms : undefined;
}
