import { addSample, emptyPoint, mergePoints, type HistoryPoint, type HistorySample } from './point.js';
import { TIERS, type Resolution } from './tiers.js';

/** Receives every bucket that closes, finest first (its record is then written). */
export type ClosedBucketHandler = (resolution: Resolution, point: HistoryPoint) => void;

/** Open buckets that count into a tier's partial point, finest last. */
const PARTIAL_SOURCES: Readonly<Record<Resolution, readonly Resolution[]>> = {
  '1m': ['1m'],
  '15m': ['15m', '1m'],
  '1d': ['1d', '15m', '1m'],
};

/**
 * The open (not yet closed) bucket of each tier, in memory. Readings go into the 1-minute bucket;
 * a closed minute rolls up into the open quarter-hour, a closed quarter-hour into the open day,
 * so every coarser bucket is exactly the sum of the finer ones (and can be rebuilt from them
 * after a restart). Buckets close when a reading of a later bucket arrives or when the clock
 * passes their end (`advanceTo`), whichever comes first.
 */
export class OpenBuckets {
  private readonly open: Partial<Record<Resolution, HistoryPoint>> = {};

  constructor(private readonly onClosed: ClosedBucketHandler) {}

  /** Sets the open quarter-hour or day restored from the files at start-up. */
  seed(resolution: '15m' | '1d', point: HistoryPoint): void {
    this.open[resolution] = point;
  }

  /** Counts one reading taken at `at` (ms). */
  add(at: number, sample: HistorySample): void {
    const minute = TIERS['1m'].bucketOf(at);
    // A reading of another minute, later or (clock set back) earlier, closes the open one.
    if (this.open['1m'] && this.open['1m'].t !== minute) this.closeMinute();
    this.advanceTo(at);
    this.open['1m'] = addSample(this.open['1m'] ?? emptyPoint(minute), sample);
  }

  /** Closes every open bucket that ends at or before `at` (ms). */
  advanceTo(at: number): void {
    const seconds = at / 1000;
    const minute = this.open['1m'];
    if (minute && TIERS['1m'].endOf(minute.t) <= seconds) this.closeMinute();
    for (const resolution of ['15m', '1d'] as const) {
      const point = this.open[resolution];
      if (point && TIERS[resolution].endOf(point.t) <= seconds) this.closeCoarse(resolution);
    }
  }

  /**
   * Removes the open minute without rolling it up (clean stop): it is stored as a partial record,
   * and the next start rebuilds the open quarter-hour and day from the minute records.
   */
  takeOpenMinute(): HistoryPoint | undefined {
    const minute = this.open['1m'];
    delete this.open['1m'];
    return minute;
  }

  /** The open buckets as partial points of `resolution` (the open minute inside today's point ...). */
  partial(resolution: Resolution): HistoryPoint[] {
    const tier = TIERS[resolution];
    const byStart = new Map<number, HistoryPoint>();
    for (const source of PARTIAL_SOURCES[resolution]) {
      const point = this.open[source];
      if (!point) continue;
      const t = tier.bucketOf(point.t * 1000);
      const current = byStart.get(t);
      byStart.set(t, current ? mergePoints(current, point) : { ...point, t });
    }
    return [...byStart.values()];
  }

  private closeMinute(): void {
    const minute = this.open['1m']!;
    delete this.open['1m'];
    this.onClosed('1m', minute);
    this.rollUp('15m', minute);
  }

  private rollUp(resolution: '15m' | '1d', finer: HistoryPoint): void {
    const t = TIERS[resolution].bucketOf(finer.t * 1000);
    if (this.open[resolution] && this.open[resolution].t !== t) this.closeCoarse(resolution);
    const current = this.open[resolution];
    this.open[resolution] = current ? mergePoints(current, finer) : { ...finer, t };
  }

  private closeCoarse(resolution: '15m' | '1d'): void {
    const point = this.open[resolution]!;
    delete this.open[resolution];
    this.onClosed(resolution, point);
    if (resolution === '15m') this.rollUp('1d', point);
  }
}
