import type { VariableSource } from '../actions/variables.js';
import type { CapacityChargeContributor } from '../history/costs.js';
import type { MetricsContributor } from '../metrics/gateway-samples.js';
import type { FamilySpec } from '../metrics/families.js';
import type { TemplateValue } from '../reading/template-variables.js';
import type { PeakSettings, PeakSnapshot } from './engine-types.js';
import { MonthPeaks, type MonthRecord } from './months.js';

/**
 * What the peak guard gives other modules (docs/architecture.md#peak-guard): the `peak.*`
 * template variables of actions, its series on /metrics and the capacity charge of the costs.
 */
export interface PeakSource {
  snapshot(): PeakSnapshot | { state: 'off' };
  months(): MonthRecord[];
  readonly settings: PeakSettings | undefined;
  /** Whether the guard runs. */
  readonly guarding: boolean;
  /** The guarded meter's id (the `meter` label of the series). */
  readonly meterId?: string;
  /** State files found invalid and set aside since the start. */
  readonly stateRejections?: number;
}

const round = (value: number | null | undefined): TemplateValue =>
  value === null || value === undefined ? null : Math.round(value * 1000) / 1000;

export const PEAK_VARIABLES = [
  'peak.running_kw',
  'peak.predicted_kw',
  'peak.allowed_kw',
  'peak.headroom_kw',
  'peak.month_kw',
  'peak.state',
] as const;

/**
 * A stage's budget (budget.ts) as a `when` quantity and a template variable: `peak.budget.<stage>.w`
 * in watts, `peak.budget.<stage>.a` in amperes on its phases (stage ids as stages.ts allows them).
 */
export const PEAK_BUDGET_VARIABLE = /^peak\.budget\.[A-Za-z0-9_-]{1,15}\.(w|a)$/;

/** `peak.running_kw` ... `peak.state` for an action's url, headers, payload (null while unknown). */
export function peakVariables(source: () => PeakSource | undefined): VariableSource {
  return {
    names: PEAK_VARIABLES,
    values() {
      const snapshot = source()?.snapshot() ?? { state: 'off' as const };
      const q = 'quantities' in snapshot ? snapshot.quantities : null;
      const month = 'month_peak' in snapshot ? snapshot.month_peak?.kw : null;
      return new Map<string, TemplateValue>([
        ['peak.running_kw', round(q?.running_kw)],
        ['peak.predicted_kw', round(q?.predicted_kw)],
        ['peak.allowed_kw', round(q?.allowed_kw)],
        ['peak.headroom_kw', round(q?.headroom_kw)],
        ['peak.month_kw', round(month)],
        ['peak.state', snapshot.state],
        ...('stages' in snapshot ? (snapshot.stages ?? []) : []).flatMap(
          (stage): [string, TemplateValue][] => [
            [`peak.budget.${stage.id}.w`, stage.budget_w],
            [`peak.budget.${stage.id}.a`, stage.budget_a],
          ],
        ),
      ]);
    },
  };
}

const gauge = (name: string, help: string, labels: string[] = []): FamilySpec => ({
  name,
  help,
  type: 'gauge',
  labels,
});

const FAMILIES = {
  running: gauge('meter_gateway_peak_running_watts', 'Demand of the current window so far (running value)', [
    'meter',
  ]),
  predicted: gauge('meter_gateway_peak_predicted_watts', 'Predicted demand of the current window', ['meter']),
  allowed: gauge(
    'meter_gateway_peak_allowed_watts',
    'Mean import the rest of the window may have without ending above the limit (absent in its last 10 s)',
    ['meter'],
  ),
  headroom: gauge('meter_gateway_peak_headroom_watts', 'Allowed minus the current import (30 s mean)', [
    'meter',
  ]),
  limit: gauge('meter_gateway_peak_limit_watts', 'The limit in force for the mode (effective limit)', [
    'meter',
  ]),
  month: gauge(
    'meter_gateway_peak_month_watts',
    "This month's peak: the meter's own (1-0:1.6.0) when it sends it, else the highest closed window",
    ['meter'],
  ),
  monthAt: gauge(
    'meter_gateway_peak_month_peak_timestamp_seconds',
    "Unix time of this month's peak: the end of its window, as the meter stamps 1-0:1.6.0",
    ['meter'],
  ),
  rolling: gauge(
    'meter_gateway_peak_rolling_watts',
    'Mean of the floored monthly peaks of the last 12 months',
    ['meter'],
  ),
  shed: gauge('meter_gateway_peak_shed_stages', 'Stages the peak guard holds shed', ['meter']),
  state: gauge('meter_gateway_peak_state', 'The peak guard state: 1 for the current one', ['meter', 'state']),
  rejected: {
    name: 'meter_gateway_peak_state_file_rejected_total',
    help: 'Peak guard state files found invalid and moved aside (.corrupt-<time>) since the start',
    type: 'counter',
    labels: [],
  } satisfies FamilySpec,
};

/** The guard's series on /metrics, in watts, labelled with the guarded meter; nothing while it is off. */
export function peakMetrics(source: () => PeakSource | undefined): MetricsContributor {
  return {
    families: Object.values(FAMILIES),
    collect(add) {
      const guard = source();
      if (guard?.stateRejections !== undefined) add(FAMILIES.rejected, {}, guard.stateRejections);
      const snapshot = guard?.snapshot();
      if (!snapshot || !('window' in snapshot)) return;
      const meter = { meter: guard?.meterId ?? 'main' };
      const q = snapshot.quantities;
      if (q) {
        add(FAMILIES.running, meter, q.running_kw * 1000);
        add(FAMILIES.predicted, meter, q.predicted_kw * 1000);
        if (q.allowed_kw !== null) add(FAMILIES.allowed, meter, q.allowed_kw * 1000);
        if (q.headroom_kw !== null) add(FAMILIES.headroom, meter, q.headroom_kw * 1000);
      }
      if (Number.isFinite(snapshot.effective_limit_kw))
        add(FAMILIES.limit, meter, snapshot.effective_limit_kw * 1000);
      if (snapshot.month_peak) {
        add(FAMILIES.month, meter, snapshot.month_peak.kw * 1000);
        add(FAMILIES.monthAt, meter, snapshot.month_peak.at / 1000);
      }
      add(FAMILIES.rolling, meter, snapshot.rolling.kw * 1000);
      add(FAMILIES.shed, meter, snapshot.shed.length);
      add(FAMILIES.state, { ...meter, state: snapshot.state }, 1);
    },
  };
}

/** Start of the local month after `ms`. */
function nextMonth(ms: number): number {
  const date = new Date(ms);
  return new Date(date.getFullYear(), date.getMonth() + 1, 1).getTime();
}

function monthStart(ms: number): number {
  const date = new Date(ms);
  return new Date(date.getFullYear(), date.getMonth(), 1).getTime();
}

/**
 * The capacity charge of [from, to): for each local month it overlaps, the rolling average at
 * that month × eur_per_kw_year / 12 × the share of the month covered. Null while the guard is off
 * or has no month recorded.
 */
export function peakCapacityCharge(source: () => PeakSource | undefined): CapacityChargeContributor {
  return {
    chargeFor(fromMs, toMs) {
      const guard = source();
      const settings = guard?.settings;
      if (!guard?.guarding || !settings) return null;
      const records = guard.months();
      if (records.length === 0) return null;
      const peaks = new MonthPeaks(records);
      let charge = 0;
      for (let start = monthStart(fromMs); start < toMs; start = nextMonth(start)) {
        const end = nextMonth(start);
        const covered = Math.min(end, toMs) - Math.max(start, fromMs);
        if (covered <= 0) continue;
        const rolling = peaks.rolling(start, settings.floor_kw).kw;
        charge += ((rolling * settings.eur_per_kw_year) / 12) * (covered / (end - start));
      }
      return charge;
    },
  };
}
