import { bucketCost, costTotals, roundMoney, sumCosts } from './costs.js';
import type { CapacityChargeContributor, CostSettings, PointCost } from './costs.js';
import type { HistoryView } from '../contracts/history.js';
import type { HistoryPoint } from './point.js';
import type { PriceSignal } from '../price-signal.js';
import { TIERS, type Resolution } from './tiers.js';

/** Reads the points of a tier overlapping [fromMs, toMs] (the recorder's query). */
export type TierQuery = (
  resolution: Resolution,
  fromMs: number,
  toMs: number,
) => Promise<HistoryPoint[] | undefined>;

function needsQuarters(settings: CostSettings): boolean {
  return settings.import.mode !== 'fixed' || settings.export.mode !== 'fixed';
}

/**
 * The cost of each point (docs/architecture.md#costs). Daily points are priced from their day's
 * 15-minute buckets when the prices depend on the time or the tariff (the 15-minute tier keeps a
 * year); a day without them is priced from the daily point itself (a time-of-use price: unknown).
 */
export async function pointCosts(
  settings: CostSettings,
  resolution: Resolution,
  points: readonly HistoryPoint[],
  query: TierQuery,
  prices?: PriceSignal,
): Promise<PointCost[]> {
  const tier = TIERS[resolution];
  const own = (point: HistoryPoint) => bucketCost(settings, point, tier.endOf(point.t), prices);
  if (resolution !== '1d' || !needsQuarters(settings) || points.length === 0) return points.map(own);
  const day = TIERS['1d'];
  const from = points[0]!.t * 1000;
  const to = day.endOf(points[points.length - 1]!.t) * 1000 - 1;
  const byDay = new Map<number, PointCost[]>();
  for (const quarter of (await query('15m', from, to)) ?? []) {
    const start = day.bucketOf(quarter.t * 1000);
    const list = byDay.get(start) ?? [];
    list.push(bucketCost(settings, quarter, TIERS['15m'].endOf(quarter.t), prices));
    byDay.set(start, list);
  }
  return points.map((point) => {
    const quarters = byDay.get(point.t);
    return quarters ? sumCosts(quarters) : own(point);
  });
}

/** Start of the local day of `ms`. */
function localDayStart(ms: number): number {
  const date = new Date(ms);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/**
 * The part of [fromMs, toMs) fixed charges are billed for: from the local day of the first recorded
 * bucket in it (a point with readings) to `now`, so a history of 20 minutes is not billed a year of
 * standing charge, nor a month in progress its days still to come.
 */
export function chargedPart(
  points: readonly HistoryPoint[],
  fromMs: number,
  toMs: number,
  now: number,
): { fromMs: number; toMs: number } {
  const first = points.find((point) => point.n > 0 && point.t * 1000 < toMs);
  if (!first) return { fromMs, toMs: fromMs };
  return { fromMs: Math.max(fromMs, localDayStart(first.t * 1000)), toMs: Math.min(toMs, now) };
}

/**
 * The history answer with costs: `cost` on every point and `costs`, the totals of the points that
 * start inside [view.from, view.to] with the fixed charges of the elapsed, recorded part of
 * [from, to + 1 s) (chargedPart).
 */
export async function withCosts(
  view: HistoryView,
  settings: CostSettings,
  points: readonly HistoryPoint[],
  query: TierQuery,
  capacity: CapacityChargeContributor | undefined,
  now: number,
  prices?: PriceSignal,
): Promise<HistoryView> {
  const resolution = view.resolution as Resolution;
  const costs = await pointCosts(settings, resolution, points, query, prices);
  const round = (value: number | null) => (value === null ? null : roundMoney(value));
  const inside = costs.filter((_, i) => points[i]!.t >= view.from && points[i]!.t <= view.to);
  return {
    ...view,
    points: view.points.map((point, i) => ({
      ...point,
      cost: {
        import: round(costs[i]!.import),
        export: round(costs[i]!.export),
        ...(costs[i]!.estimated ? { estimated: true } : {}),
      },
    })),
    costs: costTotals(
      settings,
      inside,
      view.from * 1000,
      (view.to + 1) * 1000,
      capacity,
      chargedPart(
        points.filter((point) => point.t >= view.from && point.t <= view.to),
        view.from * 1000,
        (view.to + 1) * 1000,
        now,
      ),
    ),
  };
}
