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
  /**
   * The meter's own value of the month (Belgian P1: 1-0:1.6.0 for the current month, 0-0:98.1.0
   * for the months before), with its window's start; it is the month's peak when present.
   */
  meter?: WindowPeak;
}

/** Where a month's value comes from: the meter's registers, else the closed windows. */
export type MonthSource = 'meter' | 'computed';

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
    this.months = months.map(copyRecord);
    // One more than the mean takes: keep_average and keep_step need the windows of the other days.
    this.kept = Math.max(TOP_KEPT, rule.n + 1);
  }

  /** Records a closed window; true when it is a new peak of its month. */
  record(window: WindowPeak): boolean {
    const month = this.monthEntry(monthOf(window.at));
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

  private monthEntry(key: string): MonthRecord {
    let month = this.months.find((entry) => entry.month === key);
    if (!month) {
      month = { month: key, top: [] };
      this.months.push(month);
      this.months.sort((a, b) => a.month.localeCompare(b.month));
      this.months = this.months.slice(-MONTHS_KEPT);
    }
    return month;
  }

  /**
   * The meter's value of a month ("YYYY-MM"; `at` the start of its window). A month older than
   * the kept ones is left out; true when something changed.
   */
  setMeter(month: string, peak: WindowPeak): boolean {
    const oldest = this.months[0]?.month;
    if (this.months.length >= MONTHS_KEPT && oldest !== undefined && month < oldest) return false;
    const entry = this.monthEntry(month);
    if (entry.meter?.kw === peak.kw && entry.meter.at === peak.at) return false;
    entry.meter = { at: peak.at, kw: peak.kw };
    return true;
  }

  /** The kept windows of the month of `at`, highest first. */
  topOf(at: number): WindowPeak[] {
    return [...(this.months.find((entry) => entry.month === monthOf(at))?.top ?? [])];
  }

  /** The peak of the month of `at` so far: the meter's value when it sent one, else the closed windows'. */
  peakOf(at: number): WindowPeak | undefined {
    const entry = this.months.find((month) => month.month === monthOf(at));
    return entry?.meter ?? entry?.top[0];
  }

  /** The month value of the month of `at` (valueOf), or undefined without any. */
  valueAt(at: number): number | undefined {
    const entry = this.months.find((month) => month.month === monthOf(at));
    return entry && this.valueOf(entry);
  }

  /**
   * A month's value: with top 1 (Flanders) the meter's own value when it sent one, else the mean
   * of the top n closed windows (monthValue).
   */
  valueOf(entry: MonthRecord): number | undefined {
    if (this.rule.n === 1 && entry.meter) return entry.meter.kw;
    return monthValue(entry.top, this.rule.n);
  }

  /** Which value valueOf takes for a month. */
  sourceOf(entry: MonthRecord): MonthSource {
    return this.rule.n === 1 && entry.meter ? 'meter' : 'computed';
  }

  list(): MonthRecord[] {
    return this.months.map(copyRecord);
  }

  /**
   * The mean of the floored month values (monthValue; Flanders: the month's peak) of the last 12 months up to the month of `at`.
   */
  rolling(
    at: number,
    floorKw: number,
  ): { kw: number; months: { month: string; kw: number; source: MonthSource }[] } {
    const current = monthOf(at);
    const months = this.months
      .filter((entry) => entry.month <= current && this.valueOf(entry) !== undefined)
      .slice(-12)
      .map((entry) => ({
        month: entry.month,
        kw: Math.max(floorKw, this.valueOf(entry)!),
        source: this.sourceOf(entry),
      }));
    if (months.length === 0) return { kw: floorKw, months };
    return { kw: months.reduce((sum, entry) => sum + entry.kw, 0) / months.length, months };
  }
}

function copyRecord(month: MonthRecord): MonthRecord {
  const copy: MonthRecord = { month: month.month, top: [...month.top] };
  if (month.meter) copy.meter = { ...month.meter };
  return copy;
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
