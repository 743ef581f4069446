import type { PointView } from '../contracts/history.js';

/**
 * One history point: the aggregate of the meter readings whose time falls into one bucket.
 * Power statistics keep the sum (not the mean), so roll-ups and merges of partial buckets are as
 * exact as the samples themselves; the mean is computed when a point is shown.
 */
export interface PowerStats {
  /** Samples that carried this power value. */
  n: number;
  min: number;
  sum: number;
  max: number;
}

export interface HistoryPoint {
  /** Bucket start, Unix seconds. */
  t: number;
  /** Readings counted into the bucket. */
  n: number;
  /** Import power (kW, P_In); undefined when no reading of the bucket carried it. */
  pIn?: PowerStats;
  /** Export power (kW, P_Out); undefined when no reading of the bucket carried it. */
  pOut?: PowerStats;
  /** Imported energy in the bucket (kWh, from E_In); null when no delta could be taken. */
  eIn: number | null;
  /** Exported energy in the bucket (kWh, from E_Out); null when no delta could be taken. */
  eOut: number | null;
  /** Readings whose tariff register (0-0:96.14.0) said 1, and 2; absent: none (costs by tariff). */
  nT1?: number;
  nT2?: number;
}

/** One reading as the history sees it: powers and the energy deltas since the previous reading. */
export interface HistorySample {
  pIn?: number;
  pOut?: number;
  eIn?: number;
  eOut?: number;
  /** The meter's active tariff (1-based), when it sends one. */
  tariff?: number;
}

function addCount(point: HistoryPoint, key: 'nT1' | 'nT2', count: number | undefined): void {
  if (count) point[key] = (point[key] ?? 0) + count;
}

export function emptyPoint(t: number): HistoryPoint {
  return { t, n: 0, eIn: null, eOut: null };
}

function addPower(stats: PowerStats | undefined, value: number): PowerStats {
  if (!stats) return { n: 1, min: value, sum: value, max: value };
  return {
    n: stats.n + 1,
    min: Math.min(stats.min, value),
    sum: stats.sum + value,
    max: Math.max(stats.max, value),
  };
}

function mergePower(a: PowerStats | undefined, b: PowerStats | undefined): PowerStats | undefined {
  if (!a || !b) return a ?? b;
  return { n: a.n + b.n, min: Math.min(a.min, b.min), sum: a.sum + b.sum, max: Math.max(a.max, b.max) };
}

function addEnergy(total: number | null, delta: number | null | undefined): number | null {
  if (delta === undefined || delta === null) return total;
  return total === null ? delta : total + delta;
}

/** The point with one more sample (a new object; points are values). */
export function addSample(point: HistoryPoint, sample: HistorySample): HistoryPoint {
  const next: HistoryPoint = {
    t: point.t,
    n: point.n + 1,
    eIn: addEnergy(point.eIn, sample.eIn),
    eOut: addEnergy(point.eOut, sample.eOut),
  };
  const pIn = sample.pIn === undefined ? point.pIn : addPower(point.pIn, sample.pIn);
  const pOut = sample.pOut === undefined ? point.pOut : addPower(point.pOut, sample.pOut);
  if (pIn) next.pIn = pIn;
  if (pOut) next.pOut = pOut;
  addCount(next, 'nT1', point.nT1);
  addCount(next, 'nT2', point.nT2);
  if (sample.tariff === 1) addCount(next, 'nT1', 1);
  if (sample.tariff === 2) addCount(next, 'nT2', 1);
  return next;
}

/**
 * `b` counted into `a`, the result at bucket start `t` (defaults to a's): merging two parts of one
 * bucket, or rolling a finer bucket up into the coarser bucket that contains it.
 */
export function mergePoints(a: HistoryPoint, b: HistoryPoint, t = a.t): HistoryPoint {
  const merged: HistoryPoint = {
    t,
    n: a.n + b.n,
    eIn: addEnergy(a.eIn, b.eIn),
    eOut: addEnergy(a.eOut, b.eOut),
  };
  const pIn = mergePower(a.pIn, b.pIn);
  const pOut = mergePower(a.pOut, b.pOut);
  if (pIn) merged.pIn = pIn;
  if (pOut) merged.pOut = pOut;
  for (const key of ['nT1', 'nT2'] as const) {
    addCount(merged, key, a[key]);
    addCount(merged, key, b[key]);
  }
  return merged;
}

/** Energy and mean power are shown to 1e-6 (1 mWh, 1 mW): float sums of register deltas carry noise below that. */
export function roundMicro(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

export type { PointView } from '../contracts/history.js';

function powerView(stats: PowerStats | undefined): PointView['p_in'] {
  if (!stats) return null;
  return { min: stats.min, mean: roundMicro(stats.sum / stats.n), max: stats.max };
}

export function pointView(point: HistoryPoint): PointView {
  return {
    t: point.t,
    n: point.n,
    p_in: powerView(point.pIn),
    p_out: powerView(point.pOut),
    e_in: point.eIn === null ? null : roundMicro(point.eIn),
    e_out: point.eOut === null ? null : roundMicro(point.eOut),
  };
}
