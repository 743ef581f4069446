import type { HistoryPoint } from '../history/point.js';
import { micro, QUARTER_S, quarterExtras } from '../history/quarter-extras.js';
import type { QuarterRecord } from '../history/recorder.js';
import type { PriceSignal } from '../price-signal.js';

/**
 * The samples of one quarter hour of one meter (docs/architecture.md#push). Names and units follow
 * `/metrics` (docs/architecture.md#prometheus-metrics): energy registers as joules counters, per
 * tariff (`tariff` label "1", "2") when the meter has tariff registers, else the total without the
 * label, so `sum()` never counts a register twice; the quarter's mean power in watts; price and cost
 * only when the price series knows the quarter; the peak guard's quarter value for its meter. Every sample is stamped at the quarter's end (ms),
 * so a quarter sent twice is the same (series, timestamp) and a deduplicating receiver keeps one.
 */

export interface PushSample {
  name: string;
  /** Without `__name__`. */
  labels: Record<string, string>;
  value: number;
  /** ms since the epoch. */
  timestamp: number;
}

export interface MeterLabels {
  meter: string;
  role: string;
}

/** Labels every sample of a target carries besides the meter's. */
export interface TargetLabels {
  site: string;
  gateway: string;
  extra: Record<string, string>;
}

export const SERIES = {
  import: 'meter_active_energy_import_joules_total',
  export: 'meter_active_energy_export_joules_total',
  powerImport: 'meter_quarter_active_power_import_watts',
  powerExport: 'meter_quarter_active_power_export_watts',
  priceImport: 'meter_quarter_import_price_per_kwh',
  priceExport: 'meter_quarter_export_price_per_kwh',
  cost: 'meter_quarter_import_cost',
  credit: 'meter_quarter_export_credit',
  demand: 'meter_quarter_average_demand_import_watts',
  minutePowerImport: 'meter_minute_active_power_import_watts',
  minutePowerExport: 'meter_minute_active_power_export_watts',
} as const;

const JOULES_PER_KWH = 3.6e6;

/**
 * One labels object per series of a target, kept as long as the target's labels object: the samples
 * of every quarter of a series share it, and its series key is computed once (a year of backlog
 * would otherwise build both for every sample; docs/guide/fleet-push.md#sizing).
 */
const labelCache = new WeakMap<
  TargetLabels,
  Map<string, Map<string, Record<string, Record<string, string>>>>
>();
const keyCache = new WeakMap<Record<string, string>, string>();
/** Bound of one target's cache (meters and roles): far above the meters a gateway has. */
const LABEL_CACHE_MAX = 256;
const NO_TARIFF = '';

function labelsOf(target: TargetLabels, meter: MeterLabels, name: string, tariff: string | undefined) {
  let byMeter = labelCache.get(target);
  if (!byMeter) {
    byMeter = new Map();
    labelCache.set(target, byMeter);
  }
  // By meter id; a meter whose role changed starts a new map.
  let bySeries = byMeter.get(meter.meter);
  const first = bySeries?.values().next().value;
  if (!bySeries || (first !== undefined && Object.values(first)[0]?.role !== meter.role)) {
    if (byMeter.size >= LABEL_CACHE_MAX) byMeter.clear();
    bySeries = new Map();
    byMeter.set(meter.meter, bySeries);
  }
  const tariffOf = tariff ?? NO_TARIFF;
  let byTariff = bySeries.get(name);
  let labels = byTariff?.[tariffOf];
  if (!labels) {
    labels = {
      ...target.extra,
      site: target.site,
      gateway: target.gateway,
      meter: meter.meter,
      role: meter.role,
      ...(tariff === undefined ? {} : { tariff }),
    };
    byTariff ??= {};
    byTariff[tariffOf] = labels;
    bySeries.set(name, byTariff);
  }
  return labels;
}

export function quarterSamples(
  record: QuarterRecord,
  meter: MeterLabels,
  target: TargetLabels,
  prices?: PriceSignal,
  guarded = false,
): PushSample[] {
  const { counters, point } = record;
  const timestamp = (counters.t + QUARTER_S) * 1000;
  const samples: PushSample[] = [];
  const add = (name: string, value: number | null | undefined, tariff?: string) => {
    if (value === null || value === undefined || !Number.isFinite(value)) return;
    samples.push({ name, labels: labelsOf(target, meter, name, tariff), value, timestamp });
  };
  const registers = (name: string, total: number | null, t1: number | null, t2: number | null) => {
    if (t1 === null && t2 === null) add(name, total === null ? null : micro(total * JOULES_PER_KWH));
    else {
      if (t1 !== null) add(name, micro(t1 * JOULES_PER_KWH), '1');
      if (t2 !== null) add(name, micro(t2 * JOULES_PER_KWH), '2');
    }
  };
  registers(SERIES.import, counters.eIn, counters.eInT1, counters.eInT2);
  registers(SERIES.export, counters.eOut, counters.eOutT1, counters.eOutT2);
  if (point?.pIn) add(SERIES.powerImport, micro((point.pIn.sum / point.pIn.n) * 1000));
  if (point?.pOut) add(SERIES.powerExport, micro((point.pOut.sum / point.pOut.n) * 1000));
  const extras = quarterExtras(record, prices, guarded);
  add(SERIES.priceImport, extras.priceImport);
  add(SERIES.priceExport, extras.priceExport);
  add(SERIES.cost, extras.cost);
  add(SERIES.credit, extras.credit);
  add(SERIES.demand, extras.demandW);
  return samples;
}

/** power_1s: the signed active power of a reading, the /metrics series (import positive, W). */
export const LIVE_SERIES = 'meter_active_power_watts';

/** The labels of a live power sample: the meter's series labels of the target. */
export function liveLabels(
  target: TargetLabels,
  sample: { meter: string; role: string },
): Record<string, string> {
  return labelsOf(target, { meter: sample.meter, role: sample.role }, LIVE_SERIES, undefined);
}

/** The samples of one closed minute of a meter: its mean powers (W), stamped at the minute's end. */
export function minuteSamples(point: HistoryPoint, meter: MeterLabels, target: TargetLabels): PushSample[] {
  const timestamp = (point.t + 60) * 1000;
  const samples: PushSample[] = [];
  const add = (name: string, stats: HistoryPoint['pIn']) => {
    if (!stats || stats.n === 0) return;
    const value = micro((stats.sum / stats.n) * 1000);
    if (Number.isFinite(value))
      samples.push({ name, labels: labelsOf(target, meter, name, undefined), value, timestamp });
  };
  add(SERIES.minutePowerImport, point.pIn);
  add(SERIES.minutePowerExport, point.pOut);
  return samples;
}

/**
 * The label names in code unit order. An insertion sort in place: a series has a handful of labels,
 * and Array.prototype.sort allocates a work area of its own on every call (about 1 kB, measured),
 * which over a year of backlog is most of a batch's garbage (docs/guide/fleet-push.md#sizing).
 */
export function sortedNames(labels: Record<string, string>): string[] {
  const names = Object.keys(labels);
  for (let i = 1; i < names.length; i++) {
    const name = names[i]!;
    let j = i - 1;
    while (j >= 0 && names[j]! > name) {
      names[j + 1] = names[j]!;
      j -= 1;
    }
    names[j + 1] = name;
  }
  return names;
}

/**
 * A series' identity: its name and labels sorted by name. Built in one string without intermediate
 * arrays of pairs: it is computed for every sample of a batch (docs/guide/fleet-push.md#sizing).
 */
export function seriesKey(sample: PushSample): string {
  let key = keyCache.get(sample.labels);
  if (key === undefined) {
    key = '';
    for (const name of sortedNames(sample.labels)) key += `\u0000${name}=${sample.labels[name]}`;
    keyCache.set(sample.labels, key);
  }
  return `${sample.name}${key}`;
}

/** Samples grouped by series, each series' samples oldest first, series in first-seen order. */
export function groupSeries(samples: readonly PushSample[]): Array<{
  name: string;
  labels: Record<string, string>;
  points: Array<{ value: number; timestamp: number }>;
}> {
  const bySeries = new Map<
    string,
    { name: string; labels: Record<string, string>; points: Array<{ value: number; timestamp: number }> }
  >();
  for (const sample of samples) {
    const key = seriesKey(sample);
    let series = bySeries.get(key);
    if (!series) {
      series = { name: sample.name, labels: sample.labels, points: [] };
      bySeries.set(key, series);
    }
    series.points.push({ value: sample.value, timestamp: sample.timestamp });
  }
  for (const series of bySeries.values()) {
    // Records come oldest first: a sort is needed (and allocates) only when they do not.
    const points = series.points;
    if (points.some((point, i) => i > 0 && points[i - 1]!.timestamp > point.timestamp))
      points.sort((a, b) => a.timestamp - b.timestamp);
  }
  return [...bySeries.values()];
}
