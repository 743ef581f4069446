import type { Reading } from '../reading/reading.js';
import { monthOf } from './window.js';

/**
 * What a Belgian meter says itself about demand (eMUCS P1): 1-0:1.4.0 the current average demand,
 * 1-0:1.6.0 this month's maximum with its time, 0-0:98.1.0 the monthly maxima. Shown beside the
 * computed values, never instead of them: just after a boundary 1.4.0 still shows the previous
 * quarter. A closed window whose computed demand differs from the meter's last 1.4.0 of that
 * window by more than 0.05 kW counts as a mismatch (docs/architecture.md#peak-guard).
 */

export const MISMATCH_KW = 0.05;
/** The 13 months of 0-0:98.1.0 and the current one of 1-0:1.6.0. */
const KEPT = 14;

/**
 * The month a stamp at a window's end names: a peak in a month's last window is stamped 00:00 on
 * the 1st of the next month (the meter stamps the end of the window), and a 0-0:98.1.0 period
 * stamp is the 1st of the month after the one it closes, so the month is that of the second
 * before the stamp. Undefined for a time that does not parse.
 */
export function monthBefore(stamp: string): string | undefined {
  const ms = Date.parse(stamp);
  return Number.isFinite(ms) ? monthOf(ms - 1000) : undefined;
}

export interface MeterMonth {
  month: string;
  kw: number;
  at: string;
}

export class MeterDemand {
  private averageKw: number | undefined;
  private monthPeak: { kw: number; at?: string } | undefined;
  private readonly byMonth = new Map<string, MeterMonth>();
  private mismatchCount = 0;
  private seen = false;

  /** Takes the registers of a reading; returns the 1.4.0 value it had before (for a window check). */
  update(reading: Reading): number | undefined {
    const before = this.averageKw;
    const average = reading.values.get('1.4.0')?.value;
    const peak = reading.values.get('1.6.0')?.value;
    if (average !== undefined) this.averageKw = average;
    if (peak !== undefined) {
      const at = reading.demand?.monthPeakAt;
      this.monthPeak = at === undefined ? { kw: peak } : { kw: peak, at };
      const month = at === undefined ? undefined : monthBefore(at);
      if (month !== undefined && at !== undefined) this.byMonth.set(month, { month, kw: peak, at });
    }
    for (const entry of reading.demand?.months ?? []) {
      if (entry.at === undefined || entry.kw === undefined) continue;
      // The period stamp names the month (docs/architecture.md#peak-guard); the peak's own time
      // only when the meter left the period stamp out.
      const month = monthBefore(entry.month ?? entry.at);
      if (month !== undefined && !this.monthPeakAt(month))
        this.byMonth.set(month, { month, kw: entry.kw, at: entry.at });
    }
    // A long-running daemon adds a month a month: keep the newest ones the guard keeps.
    for (const month of [...this.byMonth.keys()].sort().slice(0, -KEPT)) this.byMonth.delete(month);
    this.seen ||= average !== undefined || peak !== undefined;
    return before;
  }

  private monthPeakAt(month: string): boolean {
    const at = this.monthPeak?.at;
    return at !== undefined && monthBefore(at) === month;
  }

  /** A window closed with `computedKw`; `meterKw` is the meter's 1.4.0 at its last reading. */
  compare(computedKw: number, meterKw: number | undefined): void {
    if (meterKw !== undefined && Math.abs(computedKw - meterKw) > MISMATCH_KW) this.mismatchCount += 1;
  }

  monthOf(month: string): MeterMonth | undefined {
    return this.byMonth.get(month);
  }

  /** The months the meter gave a value for, oldest first. */
  months(): MeterMonth[] {
    return [...this.byMonth.values()].sort((a, b) => a.month.localeCompare(b.month));
  }

  /** The registers for GET /api/v1/peak; null when the meter sends none of them. */
  view(): Record<string, unknown> | null {
    if (!this.seen) return null;
    return {
      average_kw: this.averageKw ?? null,
      month_peak_kw: this.monthPeak?.kw ?? null,
      month_peak_at: this.monthPeak?.at ?? null,
      months: this.months(),
      mismatches: this.mismatchCount,
    };
  }
}
