import type { PeakSnapshot } from './engine-types.js';
import type { MonthRecord, MonthSource } from './months.js';
import { localIso } from './window.js';
import type { PeakHistory, PeakView } from '../contracts/peak.js';

/**
 * The guard's API views (GET /api/v1/peak, /api/v1/peak/stream, /api/v1/peak/history), as their
 * contracts declare them (src/contracts/peak.ts): times as ISO 8601 with the local offset, powers in
 * kW rounded to 3 decimals, money to 2.
 */

const kw = (value: number | null | undefined): number | null =>
  value === null || value === undefined ? null : Math.round(value * 1000) / 1000;

export function peakView(
  snapshot: PeakSnapshot | { state: 'off' },
  model: string,
  meter: Record<string, unknown> | null = null,
  currency?: string,
): PeakView {
  if (!('window' in snapshot)) return { state: 'off', model, meter };
  const q = snapshot.quantities;
  const window = snapshot.window;
  return {
    state: snapshot.state,
    model,
    window: window && {
      start: localIso(window.start),
      end: localIso(window.end),
      seconds: window.seconds,
      elapsed_s: q ? Math.round(q.elapsed_s) : null,
      remaining_s: q ? Math.round(q.remaining_s) : null,
    },
    running_kw: kw(q?.running_kw),
    average_kw: kw(q?.average_kw),
    p_now_kw: kw(q?.p_now_kw),
    predicted_kw: kw(q?.predicted_kw),
    allowed_kw: kw(q?.allowed_kw),
    headroom_kw: kw(q?.headroom_kw),
    limit_kw: snapshot.limit_kw,
    effective_limit_kw: kw(snapshot.effective_limit_kw),
    month_peak: snapshot.month_peak && {
      kw: kw(snapshot.month_peak.kw),
      at: localIso(snapshot.month_peak.at),
      source: snapshot.month_peak.source,
    },
    rolling: {
      kw: kw(snapshot.rolling.kw),
      months: snapshot.rolling.months.map((month) => ({
        month: month.month,
        kw: kw(month.kw),
        source: month.source,
      })),
    },
    marginal_eur: Math.round(snapshot.marginal_eur * 100) / 100,
    ...(currency === undefined ? {} : { currency }),
    marginal_price: snapshot.marginal_price,
    marginal_estimated: snapshot.marginal_estimated,
    shed: snapshot.shed.map((stage) => ({
      id: stage.id,
      since: localIso(stage.since),
      ineffective: stage.ineffective,
    })),
    stages: (snapshot.stages ?? []).map((stage) => ({
      ...stage,
      last_shed: stage.last_shed === null ? null : localIso(stage.last_shed),
      last_restore: stage.last_restore === null ? null : localIso(stage.last_restore),
    })),
    last_window: snapshot.last_window && {
      start: localIso(snapshot.last_window.start),
      kw: kw(snapshot.last_window.kw),
    },
    last_reading: snapshot.last_reading_at === null ? null : localIso(snapshot.last_reading_at),
    meter,
    month_value_kw: kw(snapshot.month_value_kw),
    step: snapshot.step,
    not_counted: snapshot.not_counted,
  };
}

/** A month record with the value the guard bills it at and where that comes from. */
export interface MonthEntry {
  record: MonthRecord;
  source: MonthSource;
  kw: number | undefined;
}

/**
 * The month list: `peak_kw` the month's value (the meter's when it sent one, else computed) with
 * `source`, the computed value beside it; peak times are the end of their window (as the meter
 * stamps them), `top` lists the windows by their start.
 */
export function peakHistoryView(
  months: readonly MonthEntry[],
  count: number,
  seconds: number,
  meterMonth: (month: string) => { kw: number; at: string } | undefined = () => undefined,
): PeakHistory {
  const end = (start: number) => localIso(start + seconds * 1000);
  return {
    months: months.slice(-count).map(({ record, source, kw: value }) => {
      const computed = record.top[0];
      const peak = source === 'meter' ? record.meter : computed;
      return {
        month: record.month,
        meter_kw: meterMonth(record.month)?.kw ?? record.meter?.kw ?? null,
        meter_at: meterMonth(record.month)?.at ?? (record.meter ? end(record.meter.at) : null),
        peak_kw: kw(value),
        peak_at: peak ? end(peak.at) : null,
        source,
        computed_kw: kw(computed?.kw),
        computed_at: computed ? end(computed.at) : null,
        top: record.top.map((window) => ({ start: localIso(window.at), kw: kw(window.kw) })),
      };
    }),
  };
}
