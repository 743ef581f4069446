import { mergePoints, type HistoryPoint } from './point.js';
import type { LoadCounts, RingFile } from './ring-file.js';
import { TIERS, type Resolution, type Tier } from './tiers.js';

export interface Restored {
  /** The open quarter-hour and day as far as the stored finer records fill them. */
  open15m?: HistoryPoint;
  open1d?: HistoryPoint;
  /** Closed coarse buckets written now because their record was missing or corrupt. */
  rebuilt: number;
  counts: Record<Resolution, LoadCounts>;
}

/** Finer points summed into the coarser tier's buckets, in time order (Map by bucket start). */
function rollUp(tier: Tier, points: readonly HistoryPoint[]): Map<number, HistoryPoint> {
  const buckets = new Map<number, HistoryPoint>();
  for (const point of [...points].sort((a, b) => a.t - b.t)) {
    const t = tier.bucketOf(point.t * 1000);
    const current = buckets.get(t);
    buckets.set(t, current ? mergePoints(current, point) : { ...point, t });
  }
  return buckets;
}

/**
 * Start-up: a coarse bucket is only written when it closes, so after a crash or a stop its open
 * part exists only as finer records. This rebuilds the open quarter-hour and day from them, and
 * writes every closed quarter-hour (from minutes) and day (from quarter-hours) whose record is
 * missing or corrupt: the daemon was down when it closed, or its write was cut.
 */
export async function restoreOpenBuckets(
  rings: Record<Resolution, RingFile>,
  now: number,
): Promise<Restored> {
  const minutes = await rings['1m'].readAll();
  const quarters = await rings['15m'].readAll();
  const days = await rings['1d'].readAll();
  const quarterNow = TIERS['15m'].bucketOf(now);
  const dayNow = TIERS['1d'].bucketOf(now);
  const restored: Restored = {
    rebuilt: 0,
    counts: { '1m': minutes.counts, '15m': quarters.counts, '1d': days.counts },
  };
  const storedQuarters = new Set(quarters.points.map((point) => point.t));
  for (const [t, point] of rollUp(TIERS['15m'], minutes.points)) {
    if (t === quarterNow) restored.open15m = point;
    else if (t < quarterNow && !storedQuarters.has(t)) {
      const { outcome, stored } = await rings['15m'].write(point);
      if (outcome === 'kept-newer') continue;
      quarters.points.push(stored);
      restored.rebuilt += 1;
    }
  }
  const storedDays = new Set(days.points.map((point) => point.t));
  const closedQuarters = quarters.points.filter((point) => point.t < quarterNow);
  for (const [t, point] of rollUp(TIERS['1d'], closedQuarters)) {
    if (t === dayNow) restored.open1d = point;
    else if (t < dayNow && !storedDays.has(t)) {
      const { outcome } = await rings['1d'].write(point);
      if (outcome !== 'kept-newer') restored.rebuilt += 1;
    }
  }
  return restored;
}
