import type { PointView } from '../../contracts/history.js';

/**
 * The periods of the energy explorer and the arithmetic on them (DOM-free, tested in node): a day
 * in hourly bars (from the 15-minute tier), a week or a month in daily bars and a year in monthly
 * bars (from the daily tier). Periods are local calendar periods; a week starts on Monday (ISO 8601).
 */
export type PeriodView = 'day' | 'week' | 'month' | 'year';

export const PERIOD_VIEWS: readonly PeriodView[] = ['day', 'week', 'month', 'year'];

export interface Period {
  view: PeriodView;
  /** Start, inclusive, and end, exclusive, ms since the epoch (local midnights, DST-aware). */
  from: number;
  to: number;
  /** The history tier the bars are summed from. */
  resolution: '15m' | '1d';
}

function day(year: number, month: number, date: number): number {
  return new Date(year, month, date).getTime();
}

/** The period of `view` that contains the instant `anchor`. */
export function periodOf(view: PeriodView, anchor: Date): Period {
  const y = anchor.getFullYear();
  const m = anchor.getMonth();
  const d = anchor.getDate();
  switch (view) {
    case 'day':
      return { view, from: day(y, m, d), to: day(y, m, d + 1), resolution: '15m' };
    case 'week': {
      const monday = d - ((anchor.getDay() + 6) % 7);
      return { view, from: day(y, m, monday), to: day(y, m, monday + 7), resolution: '1d' };
    }
    case 'month':
      return { view, from: day(y, m, 1), to: day(y, m + 1, 1), resolution: '1d' };
    case 'year':
      return { view, from: day(y, 0, 1), to: day(y + 1, 0, 1), resolution: '1d' };
  }
}

function daysInMonth(year: number, month: number): number {
  return new Date(year, month + 1, 0).getDate();
}

/**
 * The day the explorer is on, carried into `period` (just shown after a step or a view change):
 * unchanged when it lies inside; otherwise the same day of the month in the period's month (month
 * view) or the same month and day in its year (year view), clamped to the month's last day (31 Mar
 * -> 28/29 Feb) and to `today`; the same weekday in week view; the day itself in day view.
 */
export function carryDay(day: Date, period: Period, today: Date): Date {
  if (day.getTime() >= period.from && day.getTime() < period.to) return day;
  const start = new Date(period.from);
  const year = start.getFullYear();
  const month = period.view === 'year' ? day.getMonth() : start.getMonth();
  const weekday = (day.getDay() + 6) % 7;
  const date =
    period.view === 'month' || period.view === 'year'
      ? Math.min(day.getDate(), daysInMonth(year, month))
      : start.getDate() + (period.view === 'week' ? weekday : 0);
  const carried = new Date(year, month, date, 12);
  return carried.getTime() > today.getTime() ? today : carried;
}

/** The period `steps` periods after (negative: before) `period`. */
export function stepPeriod(period: Period, steps: number): Period {
  const start = new Date(period.from);
  const y = start.getFullYear();
  const m = start.getMonth();
  const d = start.getDate();
  const anchor =
    period.view === 'day'
      ? new Date(y, m, d + steps)
      : period.view === 'week'
        ? new Date(y, m, d + 7 * steps)
        : period.view === 'month'
          ? new Date(y, m + steps, 1)
          : new Date(y + steps, 0, 1);
  return periodOf(period.view, anchor);
}

/** The starts (ms) of the bars of a period: hours, days or months, the last ending at `to`. */
export function slotStarts(period: Period): number[] {
  const slots: number[] = [];
  const start = new Date(period.from);
  for (let i = 0; ; i += 1) {
    const t =
      period.view === 'day'
        ? // Hours as elapsed time, so a DST day has 23 or 25 of them.
          period.from + i * 3_600_000
        : period.view === 'year'
          ? day(start.getFullYear(), i, 1)
          : day(start.getFullYear(), start.getMonth(), start.getDate() + i);
    if (t >= period.to) return slots;
    slots.push(t);
  }
}

/** One bar: its slot's start (ms), kWh imported and exported (null: nothing recorded) and net. */
export interface EnergyBar {
  t: number;
  e_in: number | null;
  e_out: number | null;
  net: number | null;
}

function add(sum: number | null, value: number | null): number | null {
  return value === null ? sum : (sum ?? 0) + value;
}

/** The points of the period's tier that start inside the period (the API also gives overlapping ones). */
export function pointsIn(period: Period, points: readonly PointView[]): PointView[] {
  return points.filter((point) => point.t * 1000 >= period.from && point.t * 1000 < period.to);
}

/** The period's points summed into its bars (hours, days, months), every slot present. */
export function energyBars(period: Period, points: readonly PointView[]): EnergyBar[] {
  const starts = slotStarts(period);
  const bars = starts.map((t): EnergyBar => ({ t, e_in: null, e_out: null, net: null }));
  let slot = 0;
  for (const point of pointsIn(period, points)) {
    const at = point.t * 1000;
    while (slot + 1 < starts.length && starts[slot + 1]! <= at) slot += 1;
    const bar = bars[slot]!;
    bar.e_in = add(bar.e_in, point.e_in);
    bar.e_out = add(bar.e_out, point.e_out);
  }
  for (const bar of bars)
    if (bar.e_in !== null || bar.e_out !== null) bar.net = (bar.e_in ?? 0) - (bar.e_out ?? 0);
  return bars;
}

export interface PeriodTotals {
  /** kWh imported, exported and net (import minus export) over the period. */
  e_in: number;
  e_out: number;
  net: number;
  /** kW over the period's readings: lowest minimum, reading-weighted mean, highest maximum. */
  p_in: { min: number; mean: number; max: number } | null;
  p_out: { min: number; mean: number; max: number } | null;
  readings: number;
}

function powerOver(points: readonly PointView[], key: 'p_in' | 'p_out'): PeriodTotals['p_in'] {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let count = 0;
  for (const point of points) {
    const stats = point[key];
    if (!stats) continue;
    min = Math.min(min, stats.min);
    max = Math.max(max, stats.max);
    sum += stats.mean * point.n;
    count += point.n;
  }
  return count === 0 ? null : { min, mean: sum / count, max };
}

/** Totals of the points that start inside the period. */
export function periodTotals(period: Period, points: readonly PointView[]): PeriodTotals {
  const inside = pointsIn(period, points);
  const e_in = inside.reduce((sum, point) => sum + (point.e_in ?? 0), 0);
  const e_out = inside.reduce((sum, point) => sum + (point.e_out ?? 0), 0);
  return {
    e_in,
    e_out,
    net: e_in - e_out,
    p_in: powerOver(inside, 'p_in'),
    p_out: powerOver(inside, 'p_out'),
    readings: inside.reduce((sum, point) => sum + point.n, 0),
  };
}

/** yyyy-mm-dd of a local date, as an `<input type="date">` holds it. */
export function dateInputValue(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The local date of an `<input type="date">` value (noon, safely inside the day), or undefined. */
export function dateOfInput(value: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 12);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The history API query of a period: its tier, from its start to the last second before its end. */
export function historyQuery(period: Period, format?: 'csv', meter = 'main'): string {
  const from = Math.floor(period.from / 1000);
  const to = Math.floor(period.to / 1000) - 1;
  // The primary's query stays as before; another meter is named (docs/architecture.md#several-meters).
  const which = meter === 'main' ? '' : `&meter=${encodeURIComponent(meter)}`;
  return `/api/v1/history?from=${from}&to=${to}&resolution=${period.resolution}${which}${format ? `&format=${format}` : ''}`;
}
