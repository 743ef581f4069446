import { dayOf, monthOf } from './window.js';

/**
 * Month peaks of closed windows and the capacity charge (docs/architecture.md#peak-guard).
 * Flanders bills the highest 15-minute average of each month, at least the floor (2.5 kW), as
 * the average over the last 12 months. With fewer than 12 months recorded the average is the
 * mean of the months that exist (an assumption: the grid operator uses its own older values).
 */

export interface WindowPeak {
  /** Window start, ms since the epoch. */
  at: number;
  kw: number;
}

export interface MonthRecord {
  month: string;
  /** The highest closed windows of the month, highest first. */
  top: WindowPeak[];
}

export const MONTHS_KEPT = 13;
const TOP_KEPT = 3;

/** Which windows a month keeps: the n that make its value (+1), one per local day with `days`. */
export interface MonthRule {
  n: number;
  days: boolean;
}

export class MonthPeaks {
  private months: MonthRecord[];
  private readonly kept: number;

  constructor(
    months: readonly MonthRecord[] = [],
    private readonly rule: MonthRule = { n: 1, days: false },
  ) {
    this.months = months.map((month) => ({ month: month.month, top: [...month.top] }));
    // One more than the mean takes: keep_average and keep_step need the windows of the other days.
    this.kept = Math.max(TOP_KEPT, rule.n + 1);
  }

  /** Records a closed window; true when it is a new peak of its month. */
  record(window: WindowPeak): boolean {
    const key = monthOf(window.at);
    let month = this.months.find((entry) => entry.month === key);
    if (!month) {
      month = { month: key, top: [] };
      this.months.push(month);
      this.months.sort((a, b) => a.month.localeCompare(b.month));
      this.months = this.months.slice(-MONTHS_KEPT);
    }
    const previous = month.top[0]?.kw ?? -Infinity;
    let top = [...month.top, window];
    if (this.rule.days) {
      // Distinct days: a day keeps its highest window only.
      const day = dayOf(window.at);
      const sameDay = month.top.find((entry) => dayOf(entry.at) === day);
      if (sameDay && sameDay.kw >= window.kw) return false;
      top = top.filter((entry) => entry !== sameDay);
    }
    month.top = top.sort((a, b) => b.kw - a.kw).slice(0, this.kept);
    return window.kw > previous;
  }

  /** The kept windows of the month of `at`, highest first. */
  topOf(at: number): WindowPeak[] {
    return [...(this.months.find((entry) => entry.month === monthOf(at))?.top ?? [])];
  }

  /** The peak of the month of `at` so far (closed windows), or undefined. */
  peakOf(at: number): WindowPeak | undefined {
    return this.months.find((entry) => entry.month === monthOf(at))?.top[0];
  }

  list(): MonthRecord[] {
    return this.months.map((month) => ({ month: month.month, top: [...month.top] }));
  }

  /**
   * The mean of the floored month values (monthValue; Flanders: the month's peak) of the last 12 months up to the month of `at`.
   */
  rolling(at: number, floorKw: number): { kw: number; months: { month: string; kw: number }[] } {
    const current = monthOf(at);
    const months = this.months
      .filter((entry) => entry.month <= current && entry.top.length > 0)
      .slice(-12)
      .map((entry) => ({ month: entry.month, kw: Math.max(floorKw, monthValue(entry.top, this.rule.n)!) }));
    if (months.length === 0) return { kw: floorKw, months };
    return { kw: months.reduce((sum, entry) => sum + entry.kw, 0) / months.length, months };
  }
}

/**
 * A month value: the mean of its top n windows, a missing one counting 0 (early in a month it is
 * the least the month will cost: a further window never lowers it); undefined without any.
 */
export function monthValue(top: readonly WindowPeak[], n: number): number | undefined {
  const used = top.slice(0, n);
  if (used.length === 0) return undefined;
  return used.reduce((sum, window) => sum + window.kw, 0) / n;
}

/**
 * What the predicted window would add to this month's bill: the rise of the month's (floored)
 * peak times the yearly price per kW, for one month (1/12 of a year).
 */
export function marginalEur(
  predictedKw: number,
  monthPeakKw: number | undefined,
  floorKw: number,
  eurPerKwYear: number,
): number {
  const billed = Math.max(floorKw, monthPeakKw ?? 0);
  return (Math.max(0, predictedKw - billed) * eurPerKwYear) / 12;
}
