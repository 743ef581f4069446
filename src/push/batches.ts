import type { QuarterRecord } from '../history/quarter-records.js';
import type { HistoryPoint } from '../history/point.js';
import { TIERS } from '../history/tiers.js';
import type { PriceSignal } from '../price-signal.js';
import {
  LIVE_SERIES,
  liveLabels,
  minuteSamples,
  quarterSamples,
  type PushSample,
  type TargetLabels,
} from './series.js';

/**
 * What a push batch holds (docs/architecture.md#push): where the quarters, minutes and live power
 * come from, which of them are due after a cursor, and their samples, with those older than the
 * receiver's retention counted apart.
 */

export const QUARTER_S = TIERS['15m'].nominalSeconds;
export const MINUTE_S = TIERS['1m'].nominalSeconds;
/** How far back the history's 1-minute tier holds its minutes. */
const MINUTE_TIER_MS = TIERS['1m'].retentionMs;
/** A quarter is pushed once it ended this long ago: its last minute's record is written by then. */
export const GRACE_MS = 120_000;

/**
 * Items per request of one kind, halved by each 413 (the receiver's body limit) down to one; the
 * quarters, the minutes and the live samples each have their own.
 */
export class BatchSize {
  constructor(
    public size: number,
    /** What an item is called in the log: `quarters`, `minutes`, `live samples`. */
    private readonly unit: string,
  ) {}

  /** Halves the size; the new size named, or undefined when it is one already. */
  shrink(): string | undefined {
    if (this.size === 1) return undefined;
    this.size = Math.max(1, Math.floor(this.size / 2));
    return `${this.size} ${this.unit}`;
  }
}

/** Where the quarters come from: the meters and their extended 15-minute tiers. */
export interface QuarterSource {
  meters(): Array<{ id: string; role: string }>;
  quarters(meter: string, after: number, until: number, limit: number): Promise<QuarterRecord[] | undefined>;
  /** The 1-minute tier's points of a meter whose minute overlaps [from, to] (ms), oldest first. */
  minutes?(meter: string, from: number, to: number): Promise<HistoryPoint[] | undefined>;
}

/** One reading's signed active power (W, import positive), of a meter (power_1s). */
export interface LivePowerSample {
  meter: string;
  role: string;
  /** ms since the epoch: the reading's time. */
  at: number;
  watts: number;
}

/** The readings' live power, as the push's power_1s takes it; returns the unsubscribe. */
export interface LivePower {
  subscribe(listener: (sample: LivePowerSample) => void): () => void;
}

type MeterEntry = { id: string; role: string };
export type QuarterEntry = { meter: MeterEntry; record: QuarterRecord };

/** Samples to send, and how many were left out as older than the receiver's retention. */
export interface BatchSamples {
  samples: PushSample[];
  tooOld: number;
}

/** Last complete quarter start (Unix s): its end lies GRACE_MS in the past. */
export function lastCompleteQuarter(now: number): number {
  return Math.floor((now - GRACE_MS) / 1000 / QUARTER_S) * QUARTER_S - QUARTER_S;
}

/**
 * The next batch after the cursor: every meter's records of the first `limit` quarter starts.
 * A listed meter whose history is not open (`undefined`: its recorder starts or restarts after a
 * change of the meter) is named in `missing`: the batch waits for it, since moving the cursor
 * past its quarters would never send them.
 */
export async function collectQuarters(
  source: QuarterSource,
  cursor: number,
  until: number,
  limit: number,
): Promise<{ last: number; records: QuarterEntry[] } | { missing: string } | undefined> {
  const found: QuarterEntry[] = [];
  for (const meter of source.meters()) {
    const records = await source.quarters(meter.id, cursor, until, limit);
    if (records === undefined) return { missing: meter.id };
    for (const record of records) found.push({ meter, record });
  }
  if (found.length === 0) return undefined;
  // A meter returned its first `limit` records after the cursor, so the first `limit` distinct
  // quarter starts over all meters are complete for every meter.
  const starts = [...new Set(found.map((entry) => entry.record.counters.t))]
    .sort((a, b) => a - b)
    .slice(0, limit);
  const last = starts[starts.length - 1]!;
  return { last, records: found.filter((entry) => entry.record.counters.t <= last) };
}

/** The samples of a batch of quarters; a quarter that ended before `oldest` (ms) is too old. */
export function quarterBatchSamples(
  records: QuarterEntry[],
  labels: TargetLabels,
  prices: PriceSignal | undefined,
  /** The meter whose quarters carry the peak guard's quarter value. */
  guarded: string | undefined,
  oldest: number,
): BatchSamples {
  const out: BatchSamples = { samples: [], tooOld: 0 };
  for (const { meter, record } of records) {
    const quarter = quarterSamples(
      record,
      { meter: meter.id, role: meter.role },
      labels,
      prices,
      meter.id === guarded,
    );
    if ((record.counters.t + QUARTER_S) * 1000 < oldest) out.tooOld += quarter.length;
    else out.samples.push(...quarter);
  }
  return out;
}

/**
 * The minute starts (Unix s) of the next batch of minutes after `minuteCursor`, at most `count` of
 * them; undefined when none is complete. The 1-minute tier holds 48 h, so a cursor further back
 * starts there; a new target (cursor 0) also starts at the receiver's retention edge (as for the
 * quarters).
 */
export function minuteSpan(
  now: number,
  minuteCursor: number,
  retentionEdge: number,
  count: number,
): { first: number; last: number } | undefined {
  const until = Math.floor((now - GRACE_MS) / 1000 / MINUTE_S) * MINUTE_S - MINUTE_S;
  const tierEdge = now - MINUTE_TIER_MS;
  const edge = minuteCursor > 0 ? tierEdge : Math.max(tierEdge, retentionEdge);
  const oldest = Math.ceil(edge / 1000 / MINUTE_S) * MINUTE_S;
  const first = Math.max(minuteCursor + MINUTE_S, oldest);
  if (first > until) return undefined;
  return { first, last: Math.min(until, first + (count - 1) * MINUTE_S) };
}

/**
 * Every meter's closed minutes in [first, last] (Unix s) as mean powers stamped at each minute's
 * end; minutes that ended before `retentionEdge` (ms) are too old. A meter whose history is not
 * open is named in `missing`.
 */
export async function collectMinutes(
  source: QuarterSource,
  span: { first: number; last: number },
  labels: TargetLabels,
  retentionEdge: number,
): Promise<BatchSamples | { missing: string }> {
  const { first, last } = span;
  const out: BatchSamples = { samples: [], tooOld: 0 };
  for (const meter of source.meters()) {
    const points = await source.minutes!(meter.id, first * 1000, last * 1000);
    if (points === undefined) return { missing: meter.id };
    for (const point of points) {
      if (point.t < first || point.t > last) continue;
      const minute = minuteSamples(point, { meter: meter.id, role: meter.role }, labels);
      if ((point.t + MINUTE_S) * 1000 < retentionEdge) out.tooOld += minute.length;
      else out.samples.push(...minute);
    }
  }
  return out;
}

/** Live power samples as `meter_active_power_watts` at each reading's time, the /metrics series. */
export function liveSamples(batch: LivePowerSample[], labels: TargetLabels): PushSample[] {
  return batch.map((sample): PushSample => ({
    name: LIVE_SERIES,
    labels: liveLabels(labels, sample),
    value: sample.watts,
    timestamp: sample.at,
  }));
}
