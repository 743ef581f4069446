import type { CostTotalsView, CostView } from '../contracts/history.js';
import type { HistoryPoint } from './point.js';
import type { PriceSignal } from '../price-signal.js';

/**
 * Energy costs of history buckets (docs/architecture.md#costs): pure functions of the price settings
 * (`services.costs`) and the points, used by the history API for its JSON `cost` fields and its CSV
 * columns, so the page and the download show one computation.
 *
 * - fixed: every kWh at `price`.
 * - tariff: kWh at `t1` or `t2` by the meter's tariff register (0-0:96.14.0) during the bucket, split
 *   by the share of the bucket's readings in each tariff; readings without a tariff count as T1.
 * - time_of_use: a table "HH:MM=price ..." (quarter hours, local time); a bucket is priced at the
 *   entry in force at its start; before the first entry of a day the day's last entry applies.
 *   Buckets longer than 15 minutes cannot be priced by it (null); daily points are priced from the
 *   15-minute tier instead (history-costs.ts).
 *
 * - dynamic: the day-ahead price of the bucket's quarter (docs/architecture.md#prices) from the price
 *   series; a quarter without one is priced by `fallback` (fixed or time_of_use) and the cost is
 *   flagged `estimated`.
 *
 * Import is money paid, export money received; the standing charge is monthly, spread evenly over
 * the days of each month. Fixed charges are billed "to date" (docs/architecture.md#costs): for the
 * part of a period from the local day of its first recorded bucket to now, never for days before
 * the history starts or for the rest of a period not yet over.
 */

export type PriceMode = 'fixed' | 'tariff' | 'time_of_use' | 'dynamic';

export interface PriceSettings {
  mode: PriceMode;
  price: number;
  t1: number;
  t2: number;
  time_of_use: string;
  /** Mode dynamic: how a quarter without a market price is priced. */
  fallback?: 'fixed' | 'time_of_use';
}

export interface CostSettings {
  enable: boolean;
  currency: string;
  import: PriceSettings;
  export: PriceSettings;
  standing_charge: number;
}

/** A charge on the period's peak demand (a capacity tariff), from a module that tracks the peak. */
export interface CapacityChargeContributor {
  /** The charge for [fromMs, toMs), or null when the module has nothing for that period. */
  chargeFor(fromMs: number, toMs: number): number | null;
}

/** Money of one bucket: import paid and export received; null where its energy or price is unknown. */
export type PointCost = CostView;

export type CostTotals = CostTotalsView;

export interface TimeOfUseEntry {
  /** Minute of the local day the price starts at. */
  minute: number;
  price: number;
}

export function parseTimeOfUse(text: string): TimeOfUseEntry[] {
  const entries: TimeOfUseEntry[] = [];
  for (const part of text.trim().split(/\s+/)) {
    const match = /^(\d\d):(\d\d)=(-?[\d.]+)$/.exec(part);
    if (match) entries.push({ minute: Number(match[1]) * 60 + Number(match[2]), price: Number(match[3]) });
  }
  return entries.sort((a, b) => a.minute - b.minute);
}

/** The price in force at minute `minute` of a local day; null for an empty table. */
export function priceAtMinute(entries: readonly TimeOfUseEntry[], minute: number): number | null {
  if (entries.length === 0) return null;
  let price = entries[entries.length - 1]!.price;
  for (const entry of entries) if (entry.minute <= minute) price = entry.price;
  return price;
}

const QUARTER_S = 900;

/** A price and whether it is an estimate (the fallback of a quarter without a market price). */
interface Priced {
  price: number | null;
  estimated: boolean;
}

/** The price per kWh of one bucket [t, end) (Unix s), or null when the settings cannot price it. */
export function bucketPrice(
  prices: PriceSettings,
  point: HistoryPoint,
  end: number,
  series?: { signal: PriceSignal; direction: 'import' | 'export' },
): number | null {
  return pricedBucket(prices, point, end, series).price;
}

function pricedBucket(
  prices: PriceSettings,
  point: HistoryPoint,
  end: number,
  series?: { signal: PriceSignal; direction: 'import' | 'export' },
): Priced {
  if (prices.mode !== 'dynamic') return { price: settledPrice(prices, point, end), estimated: false };
  if (end - point.t > QUARTER_S) return { price: null, estimated: false };
  const quarter = series?.signal.quarterAt(point.t * 1000);
  const market = quarter?.[series!.direction];
  if (quarter && market !== null && market !== undefined && !quarter.estimated)
    return { price: market, estimated: false };
  const fallback: PriceSettings = { ...prices, mode: prices.fallback ?? 'fixed' };
  return { price: settledPrice(fallback, point, end), estimated: true };
}

function settledPrice(prices: PriceSettings, point: HistoryPoint, end: number): number | null {
  switch (prices.mode) {
    case 'dynamic':
      return null;
    case 'fixed':
      return prices.price;
    case 'tariff': {
      const t1 = point.nT1 ?? 0;
      const t2 = point.nT2 ?? 0;
      const share2 = t2 === 0 ? 0 : t2 / Math.max(point.n, t1 + t2);
      return share2 === 0
        ? prices.t1
        : share2 === 1
          ? prices.t2
          : (1 - share2) * prices.t1 + share2 * prices.t2;
    }
    case 'time_of_use': {
      if (end - point.t > QUARTER_S) return null;
      const start = new Date(point.t * 1000);
      return priceAtMinute(parseTimeOfUse(prices.time_of_use), start.getHours() * 60 + start.getMinutes());
    }
  }
}

function times(energy: number | null, price: number | null): number | null {
  return energy === null || price === null ? null : energy * price;
}

/** The cost of one bucket ending at `end` (Unix s); `prices` is the day-ahead series of mode dynamic. */
export function bucketCost(
  settings: CostSettings,
  point: HistoryPoint,
  end: number,
  prices?: PriceSignal,
): PointCost {
  const imported = pricedBucket(
    settings.import,
    point,
    end,
    prices && { signal: prices, direction: 'import' },
  );
  const exported = pricedBucket(
    settings.export,
    point,
    end,
    prices && { signal: prices, direction: 'export' },
  );
  const cost: PointCost = {
    import: times(point.eIn, imported.price),
    export: times(point.eOut, exported.price),
  };
  if ((imported.estimated && point.eIn) || (exported.estimated && point.eOut)) cost.estimated = true;
  return cost;
}

/** The sum of the costs of several buckets (a day from its quarter hours); null parts count as nothing. */
export function sumCosts(costs: readonly PointCost[]): PointCost {
  const add = (key: 'import' | 'export') =>
    costs.reduce<number | null>((sum, cost) => (cost[key] === null ? sum : (sum ?? 0) + cost[key]!), null);
  const sum: PointCost = { import: add('import'), export: add('export') };
  if (costs.some((cost) => cost.estimated)) sum.estimated = true;
  return sum;
}

/** Start (ms) of the local day that contains `ms`, and of the next one. */
function localDay(ms: number): { start: number; end: number; days: number } {
  const date = new Date(ms);
  const y = date.getFullYear();
  const m = date.getMonth();
  const d = date.getDate();
  return {
    start: new Date(y, m, d).getTime(),
    end: new Date(y, m, d + 1).getTime(),
    days: new Date(y, m + 1, 0).getDate(),
  };
}

/**
 * The standing charge of [fromMs, toMs): each local day costs monthly / days of its month, a part of
 * a day its share of the day's length (23 or 25 hours around DST changes).
 */
export function standingCharge(monthly: number, fromMs: number, toMs: number): number {
  let sum = 0;
  for (let at = fromMs; at < toMs;) {
    const day = localDay(at);
    const until = Math.min(day.end, toMs);
    sum += ((monthly / day.days) * (until - at)) / (day.end - day.start);
    at = until;
  }
  return sum;
}

/** Money shown to 1e-6 (float sums of products carry noise below that), like energy. */
export function roundMoney(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * Totals of the costs of a range [fromMs, toMs) whose buckets cost `costs`. The fixed charges
 * (standing and capacity) are billed for `charged`, the part of the range that is both elapsed and
 * recorded ("to date"), when given; nothing when that part is empty.
 */
export function costTotals(
  settings: CostSettings,
  costs: readonly PointCost[],
  fromMs: number,
  toMs: number,
  capacity?: CapacityChargeContributor,
  charged: { fromMs: number; toMs: number } = { fromMs, toMs },
): CostTotals {
  const sum = sumCosts(costs);
  const imported = sum.import ?? 0;
  const exported = sum.export ?? 0;
  const billed = charged.toMs > charged.fromMs;
  const standing = billed ? standingCharge(settings.standing_charge, charged.fromMs, charged.toMs) : 0;
  const charge = billed ? (capacity?.chargeFor(charged.fromMs, charged.toMs) ?? null) : null;
  return {
    currency: settings.currency || 'EUR',
    import: roundMoney(imported),
    export: roundMoney(exported),
    standing: roundMoney(standing),
    capacity: charge === null ? null : roundMoney(charge),
    total: roundMoney(imported - exported + standing + (charge ?? 0)),
  };
}
