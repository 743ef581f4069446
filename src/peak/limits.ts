import type { PeakSettings, StepView } from './engine-types.js';
import { marginalEur, monthValue, type MonthPeaks, type MonthRule } from './months.js';
import {
  averageKeepingLimit,
  distinctDays,
  highestKeeping,
  monthValueWith,
  stepOf,
  topN,
} from './tariff-model.js';

/**
 * The limit in force and the cost of a predicted window, by mode and model
 * (docs/architecture.md#peak-guard-models):
 * - `fixed`: L.
 * - `follow_month_peak`: never below the month's peak (the meter's 1-0:1.6.0 when it sends it, else
 *   the highest window; at least the floor).
 * - `keep_average`: never below what leaves the month value where it is (today's maximum so far
 *   with distinct days, else the n-th highest window once n windows exist).
 * - `keep_step`: never below the highest window that keeps the month value within the upper
 *   bound of the step it reached: shedding only pays to avoid the next step. Above the last
 *   bound there is no next step: as keep_average.
 */
export class PeakLimits {
  readonly rule: MonthRule;

  constructor(private readonly settings: PeakSettings) {
    this.rule = { n: topN(settings), days: distinctDays(settings) };
  }

  value(months: MonthPeaks, at: number): number | undefined {
    return months.valueAt(at);
  }

  effective(months: MonthPeaks, at: number): number {
    const { limit_kw: limit, mode, floor_kw: floor } = this.settings;
    const { n, days } = this.rule;
    const top = months.topOf(at);
    switch (mode) {
      case 'fixed':
        return limit;
      case 'follow_month_peak':
        return Math.max(limit, floor, months.peakOf(at)?.kw ?? 0);
      case 'keep_average':
        return Math.max(limit, averageKeepingLimit(top, at, n, days));
      case 'keep_step': {
        const bound = stepOf(this.settings.steps ?? [], monthValue(top, n) ?? 0)?.to_kw ?? null;
        if (bound === null) return Math.max(limit, averageKeepingLimit(top, at, n, days));
        return Math.max(limit, highestKeeping(top, at, n, days, bound));
      }
    }
  }

  /** no_top3_days: the step of the month value (0 before any window closed); else null. */
  step(months: MonthPeaks, at: number): StepView | null {
    if (this.settings.model !== 'no_top3_days') return null;
    return stepOf(this.settings.steps ?? [], this.value(months, at) ?? 0) ?? null;
  }

  /**
   * The demand the month is billed at so far: its value, at least the floor; a window above it
   * raises the capacity charge, and the energy above it is what a shed avoids.
   */
  billed(months: MonthPeaks, at: number): number {
    return Math.max(this.settings.floor_kw, months.valueAt(at) ?? 0);
  }

  /**
   * What the predicted window would add to this month's bill: Norway, the price difference of the
   * steps; otherwise the rise of the floored month value × eur_per_kw_year / 12.
   */
  marginal(months: MonthPeaks, at: number, predictedKw: number): number {
    const { n, days } = this.rule;
    const top = months.topOf(at);
    const now = months.valueAt(at);
    const next = monthValueWith(top, at, n, days, predictedKw);
    if (this.settings.model === 'no_top3_days') {
      const steps = this.settings.steps ?? [];
      return Math.max(0, (stepOf(steps, next)?.price ?? 0) - (stepOf(steps, now ?? 0)?.price ?? 0));
    }
    const { floor_kw: floor, eur_per_kw_year: price } = this.settings;
    if (n === 1) return marginalEur(predictedKw, now, floor, price);
    return (Math.max(0, Math.max(floor, next) - Math.max(floor, now ?? 0)) * price) / 12;
  }
}
