import type { PeakSettings, PriceStep, StepView } from './engine-types.js';
import { monthValue, type WindowPeak } from './months.js';
import { dayOf } from './window.js';

/**
 * What a tariff model bills (docs/architecture.md#peak-guard-models): the window length, how
 * many of a month's windows make its value and whether they must lie on distinct local days, the
 * windows that count at all (Sweden's day-time, weekday and month filters) and Norway's price
 * steps.
 *
 * - `be_quarter` (Fluvius capaciteitstarief): 900 s, the month's highest window.
 * - `no_top3_days` (Norway, kapasitetsledd): 3600 s, the mean of the 3 highest hours on 3
 *   different days, billed in steps.
 * - `se_max_hour` (Sweden, effektavgift): 3600 s, the mean of the top N hours (1 by default, as
 *   Karlskoga Energi's "belastningstopp"), optionally only Monday–Friday, within local hours and
 *   in winter months (Karlskoga Energi's höglast: Mon–Fri 06–20, November–March).
 * - `custom`: `window_s`, top N (1), any aggregation, the same filters.
 */

const DEFAULT_TOP: Record<PeakSettings['model'], number> = {
  be_quarter: 1,
  no_top3_days: 3,
  se_max_hour: 1,
  custom: 1,
};

export function windowSeconds(settings: Pick<PeakSettings, 'model' | 'window_s'>): number {
  if (settings.model === 'be_quarter') return 900;
  return settings.model === 'custom' ? settings.window_s : 3600;
}

/** The number of windows (or day maxima) averaged into the month value. */
export function topN(settings: Pick<PeakSettings, 'model' | 'top_n'>): number {
  return settings.top_n && settings.top_n > 0 ? settings.top_n : DEFAULT_TOP[settings.model];
}

/** Whether the month value takes one window per local day (each day's maximum). */
export function distinctDays(settings: Pick<PeakSettings, 'model' | 'aggregation'>): boolean {
  if (settings.aggregation === 'mean_distinct_days') return true;
  return settings.aggregation !== 'mean' && settings.model === 'no_top3_days';
}

/**
 * Why a window starting at `start` does not count for the peak (the filters of se_max_hour and
 * custom), or undefined when it counts.
 */
export function outsideFilter(
  settings: Pick<PeakSettings, 'model' | 'filter'>,
  start: number,
): string | undefined {
  const filter = settings.filter;
  if (!filter || (settings.model !== 'se_max_hour' && settings.model !== 'custom')) return undefined;
  const date = new Date(start);
  if (filter.months.length > 0 && !filter.months.includes(date.getMonth() + 1))
    return `month ${date.getMonth() + 1} is not in the billed months`;
  const weekday = date.getDay();
  if (filter.weekdays_only && (weekday === 0 || weekday === 6)) return 'weekend';
  const hour = date.getHours();
  if (hour < filter.hours_from || hour >= filter.hours_to)
    return `local hour ${hour} is outside ${filter.hours_from}–${filter.hours_to}`;
  return undefined;
}

/** The step a month value falls in (a value on a bound belongs to the lower step). */
export function stepOf(steps: readonly PriceStep[], kw: number): StepView | undefined {
  if (steps.length === 0) return undefined;
  let from = 0;
  for (const [index, step] of steps.entries()) {
    if (kw <= step.to_kw) return { index, from_kw: from, to_kw: step.to_kw, price: step.price };
    from = step.to_kw;
  }
  const last = steps.at(-1)!;
  return { index: steps.length - 1, from_kw: steps.at(-2)?.to_kw ?? 0, to_kw: null, price: last.price };
}

/** The month's windows of other days than `at`'s (distinct days) or all of them, highest first. */
function others(top: readonly WindowPeak[], at: number, days: boolean): WindowPeak[] {
  return days ? top.filter((window) => dayOf(window.at) !== dayOf(at)) : [...top];
}

/**
 * The highest demand a window at `at` may reach without raising the month value (the sum of the
 * top n over n) above `bound`: p ≤ n × bound − (sum of the n − 1 highest others). With distinct
 * days only the other days' maxima compete with today's.
 */
export function highestKeeping(
  top: readonly WindowPeak[],
  at: number,
  n: number,
  days: boolean,
  bound: number,
): number {
  const kept = others(top, at, days)
    .slice(0, n - 1)
    .reduce((sum, window) => sum + window.kw, 0);
  return n * bound - kept;
}

/**
 * keep_average: the highest demand that leaves the month value where it is: today's maximum so
 * far (distinct days), or the lowest window of the mean when n others already fill it.
 */
export function averageKeepingLimit(
  top: readonly WindowPeak[],
  at: number,
  n: number,
  days: boolean,
): number {
  const today = days ? top.filter((window) => dayOf(window.at) === dayOf(at)) : [];
  const rest = others(top, at, days);
  const todayKw = today[0]?.kw ?? 0;
  const nth = rest.length >= n ? rest[n - 1]!.kw : 0;
  return Math.max(todayKw, nth);
}

/** The month value if a window at `at` closed at `kw` (today's maximum raised, or one more window). */
export function monthValueWith(
  top: readonly WindowPeak[],
  at: number,
  n: number,
  days: boolean,
  kw: number,
): number {
  const rest = others(top, at, days);
  const today = days ? Math.max(kw, top.find((window) => dayOf(window.at) === dayOf(at))?.kw ?? 0) : kw;
  const all = [...rest, { at, kw: today }].sort((a, b) => b.kw - a.kw);
  return monthValue(all, n)!;
}
