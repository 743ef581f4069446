import type { MeterState } from '../reading/meter-state.js';
import type { MbusReading, Reading } from '../reading/reading.js';
import { meterView } from '../reading/meter-view.js';
import type { MeterCounters } from '../reading/store.js';
import { METER_FAMILIES as F, QUANTITY_SERIES, TARIFF_GROUPS, type FamilySpec } from './families.js';

/** One sample: labels (label name -> value) and value. No timestamp: Prometheus stamps a scrape itself. */
export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** Samples of one scrape by family name. */
export type Samples = Map<string, Sample[]>;

export function addSample(
  samples: Samples,
  family: FamilySpec,
  labels: Record<string, string>,
  value: number,
): void {
  if (!Number.isFinite(value)) return;
  let list = samples.get(family.name);
  if (!list) samples.set(family.name, (list = []));
  list.push({ labels, value });
}

/** What the collector reads of one meter; the reading store has all of it. */
export interface MeterStoreView {
  latestAt(now: number): Reading | undefined;
  meterAt(now: number): MeterState;
  readonly lastReading: Reading | undefined;
  readonly counters: MeterCounters;
}

/** A meter as the wiring hands it to the collector: its id (the `meter` label), name, role and store. */
export interface MeteredSource {
  id: string;
  name?: string;
  role?: string;
  /** A virtual meter is computed from others: it has no frames or bytes of its own. */
  kind?: string;
  store: MeterStoreView;
}

/**
 * Samples of one meter at `now` (docs/architecture.md#staleness): `meter_up` 0 and no instantaneous series
 * while stale; counters (energy, M-Bus readings, frame counts) keep the value of the last valid reading.
 */
export function meterSamples(samples: Samples, source: MeteredSource, now: number): void {
  const { store } = source;
  const meter = source.id;
  const fresh = store.latestAt(now);
  const last = store.lastReading;
  const state = store.meterAt(now);
  addSample(samples, F.info, infoLabels(source, state), 1);
  addSample(samples, F.up, { meter }, fresh ? 1 : 0);
  if (last) addSample(samples, F.lastReading, { meter }, last.receivedAt / 1000);
  if (source.kind !== 'virtual') counterSamples(samples, meter, store.counters);
  if (fresh) instantaneousSamples(samples, meter, fresh);
  if (last) totalSamples(samples, meter, last, fresh !== undefined);
}

function infoLabels(source: MeteredSource, state: MeterState): Record<string, string> {
  const { identity } = state;
  return {
    meter: source.id,
    name: source.name ?? '',
    role: source.role ?? '',
    protocol: state.protocol ?? '',
    interface: state.interface,
    vendor: identity.vendor ?? identity.prefix ?? '',
    model: identity.model ?? '',
    serial: identity.id ?? '',
  };
}

function counterSamples(samples: Samples, meter: string, counters: MeterCounters): void {
  addSample(samples, F.frames, { meter }, counters.framesOk);
  addSample(samples, F.frameErrors, { meter, reason: 'crc' }, counters.crcErrors);
  addSample(samples, F.frameErrors, { meter, reason: 'parse' }, counters.parseErrors);
  addSample(samples, F.frameErrors, { meter, reason: 'overflow' }, counters.overflows);
  addSample(samples, F.frameErrors, { meter, reason: 'encryption' }, counters.encryptionErrors);
  addSample(samples, F.bytes, { meter }, counters.bytes);
}

/** Base unit value, rounded to 15 significant digits so 0.1 kW reads 100, not 100.00000000000001. */
function scaled(value: number, factor: number): number {
  return factor === 1 ? value : significant(value * factor);
}

/** 15 significant digits: the binary noise of a unit conversion dropped. */
function significant(value: number): number {
  return Number.parseFloat(value.toPrecision(15));
}

function instantaneousSamples(samples: Samples, meter: string, reading: Reading): void {
  const values = reading.values;
  for (const series of QUANTITY_SERIES) {
    if (series.counter) continue;
    const value = values.get(series.obis);
    if (!value) continue;
    addSample(
      samples,
      series.family,
      series.phase ? { meter, phase: series.phase } : { meter },
      scaled(value.value, series.factor),
    );
  }
  // Signed active power in W from the reading's meter view (src/reading/meter-view.ts): the meter's
  // own signed value, else import - export.
  const view = meterView(reading);
  if (view.total.w !== null) addSample(samples, F.activePower, { meter }, significant(view.total.w));
  for (const phase of view.phases)
    if (phase.w !== null)
      addSample(samples, F.phaseActivePower, { meter, phase: phase.line }, significant(phase.w));
  const average = values.get('1.4.0');
  if (average) addSample(samples, F.averageDemand, { meter }, scaled(average.value, 1e3));
  if (reading.tariff !== undefined) addSample(samples, F.tariff, { meter }, reading.tariff);
  for (const group of TARIFF_GROUPS) if (!group.counter) tariffSamples(samples, meter, reading, group);
}

/** Counters of the last valid reading (fresh or not) and the M-Bus channels. */
function totalSamples(samples: Samples, meter: string, reading: Reading, fresh: boolean): void {
  for (const series of QUANTITY_SERIES) {
    if (!series.counter) continue;
    const value = reading.values.get(series.obis);
    if (value) addSample(samples, series.family, { meter }, scaled(value.value, series.factor));
  }
  for (const group of TARIFF_GROUPS) if (group.counter) tariffSamples(samples, meter, reading, group);
  for (const channel of reading.mbus) mbusSamples(samples, meter, channel, fresh);
}

/** Tariff registers x.y.1 .. x.y.9 as `tariff` labels; the x.y.0 total only when there is none. */
function tariffSamples(
  samples: Samples,
  meter: string,
  reading: Reading,
  group: (typeof TARIFF_GROUPS)[number],
): void {
  let tariffs = 0;
  for (let e = 1; e <= 9; e++) {
    const value = reading.values.get(`${group.prefix}.${e}`);
    if (!value) continue;
    tariffs += 1;
    addSample(samples, group.family, { meter, tariff: String(e) }, scaled(value.value, group.factor));
  }
  if (tariffs > 0) return;
  const total = reading.values.get(`${group.prefix}.0`);
  if (total) addSample(samples, group.family, { meter }, scaled(total.value, group.factor));
}

/** M-Bus device types (EN 13757-3 table 3): 3 gas; 6, 7, 0x15, 0x16 water; 4, 0x0C heat. */
const GAS = new Set([3]);
const WATER = new Set([6, 7, 0x15, 0x16]);
const HEAT = new Set([4, 0x0c]);
/** Heat in joules: 1 GJ = 1e9 J, 1 kWh = 3.6e6 J, 1 MWh = 3.6e9 J. */
const HEAT_FACTORS: Record<string, number> = { GJ: 1e9, kWh: 3.6e6, MWh: 3.6e9 };

function mbusSamples(samples: Samples, meter: string, channel: MbusReading, fresh: boolean): void {
  const labels = { meter, channel: String(channel.bus) };
  if (fresh)
    addSample(
      samples,
      F.mbusInfo,
      { ...labels, device_type: String(channel.deviceType ?? ''), device_id: channel.meterId ?? '' },
      1,
    );
  const { cumulative, unit, deviceType } = channel;
  if (cumulative === undefined || deviceType === undefined) return;
  if (GAS.has(deviceType) && unit === 'm3') addSample(samples, F.gas, labels, cumulative);
  else if (WATER.has(deviceType) && unit === 'm3') addSample(samples, F.water, labels, cumulative);
  else if (HEAT.has(deviceType) && unit !== undefined && HEAT_FACTORS[unit] !== undefined)
    addSample(samples, F.heat, labels, scaled(cumulative, HEAT_FACTORS[unit]!));
}
