import { QUANTITIES, type Quantity } from '../reading/quantities.js';

/**
 * The metric families of a meter (docs/architecture.md#prometheus-metrics), derived from the one quantity
 * table: every table quantity becomes a series of a family named by its place in the report, in base units
 * (Prometheus naming guidelines: watts, volts, amperes, joules; `_total` only on counters), with the phase
 * and the tariff as labels. A tariff group's total is its own series only for a meter without tariff
 * registers, so `sum()` over a family never counts a register twice.
 */

export type MetricType = 'gauge' | 'counter';

export interface FamilySpec {
  name: string;
  help: string;
  type: MetricType;
  /** Label names; `meter` first on every meter family. */
  labels: readonly string[];
}

/** A table quantity as a series: its family, the factor to the base unit and its fixed labels. */
export interface QuantitySeries {
  family: FamilySpec;
  obis: string;
  factor: number;
  phase?: string;
  /** A counter: kept at its last value while the meter is stale. */
  counter: boolean;
}

/** A tariff group (`1.8`): one series per tariff register present, or the total when there is none. */
export interface TariffGroup {
  /** OBIS C.D of the group. */
  prefix: string;
  family: FamilySpec;
  factor: number;
  counter: boolean;
}

/** Canonical unit (docs/architecture.md#units) -> base unit name and factor. */
const BASE_UNITS: Record<string, { unit: string; factor: number; symbol: string }> = {
  kW: { unit: 'watts', factor: 1e3, symbol: 'W' },
  kvar: { unit: 'vars', factor: 1e3, symbol: 'var' },
  kVA: { unit: 'volt_amperes', factor: 1e3, symbol: 'VA' },
  V: { unit: 'volts', factor: 1, symbol: 'V' },
  A: { unit: 'amperes', factor: 1, symbol: 'A' },
  '': { unit: 'ratio', factor: 1, symbol: 'ratio' },
  Hz: { unit: 'hertz', factor: 1, symbol: 'Hz' },
  // 1 kWh = 3.6e6 J; reactive energy likewise in var-seconds.
  kWh: { unit: 'joules', factor: 3.6e6, symbol: 'J' },
  kvarh: { unit: 'var_seconds', factor: 3.6e6, symbol: 'var s' },
};

const WORDS: Record<string, string> = {
  positive: 'import',
  negative: 'export',
};
const PHASES = new Set(['l1', 'l2', 'l3']);
const TARIFFS = new Set(['t1', 't2']);

const word = (part: string): string => WORDS[part] ?? part;

/** Family name of a quantity from its report path, e.g. energy/active/positive/t1 -> meter_active_energy_import_joules_total. */
function familyName(quantity: Quantity, unit: string, counter: boolean): string {
  const path = quantity.reportPath;
  const slot = path[path.length - 1]!;
  const inner = PHASES.has(slot) || TARIFFS.has(slot) || slot === 'total' ? path.slice(0, -1) : path;
  const [group, kind, ...rest] = inner;
  let stem: string[];
  if (group === 'instantaneous_power') stem = [kind!, 'power', ...rest.map(word)];
  else if (group === 'energy') stem = [kind!, 'energy', ...rest.map(word)];
  else if (group === 'max_demand') stem = ['max_demand', ...rest.map(word)];
  else stem = inner.map(word);
  const phase = PHASES.has(slot) && group === 'instantaneous_power' ? ['phase'] : [];
  return ['meter', ...phase, ...stem, unit, ...(counter ? ['total'] : [])].join('_');
}

function helpOf(quantity: Quantity, symbol: string): string {
  const name = quantity.name.replace(/ (L[123]|T[12])$/, '');
  if (PHASES.has(quantity.reportPath[quantity.reportPath.length - 1]!))
    return `${name} per phase (${symbol})`;
  return `${name} (${symbol}, OBIS 1-0:${quantity.obis})`;
}

function build(): { series: QuantitySeries[]; tariffs: TariffGroup[]; families: FamilySpec[] } {
  const families = new Map<string, FamilySpec>();
  const family = (name: string, help: string, type: MetricType, labels: readonly string[]): FamilySpec => {
    const key = `${name}/${labels.join(',')}`;
    let spec = families.get(key);
    if (!spec) {
      spec = { name, help, type, labels };
      families.set(key, spec);
    }
    return spec;
  };
  const series: QuantitySeries[] = [];
  const tariffs: TariffGroup[] = [];
  for (const quantity of QUANTITIES) {
    const base = BASE_UNITS[quantity.unit];
    if (!base) continue;
    const counter = quantity.ha.stateClass === 'total_increasing';
    const type: MetricType = counter ? 'counter' : 'gauge';
    const name = familyName(quantity, base.unit, counter);
    const slot = quantity.reportPath[quantity.reportPath.length - 1]!;
    const [c, d, e] = quantity.obis.split('.');
    if (TARIFFS.has(slot)) continue; // the group's total below stands for its tariff registers
    if (slot === 'total' && e === '0' && (d === '8' || d === '6')) {
      const help = `${quantity.name} (${base.symbol}, OBIS 1-0:${c}.${d}.x); per tariff when the meter has tariff registers`;
      tariffs.push({
        prefix: `${c}.${d}`,
        // The total of a meter without tariff registers is a series of the same family without the label.
        family: family(name, help, type, ['meter', 'tariff']),
        factor: base.factor,
        counter,
      });
      continue;
    }
    const phase = PHASES.has(slot) ? slot : undefined;
    const labels = phase ? ['meter', 'phase'] : ['meter'];
    const help = helpOf(quantity, base.symbol);
    series.push({
      family: family(name, help, type, labels),
      obis: quantity.obis,
      factor: base.factor,
      counter,
      ...(phase ? { phase } : {}),
    });
  }
  return { series, tariffs, families: [...families.values()] };
}

const BUILT = build();

/** Table quantities outside tariff groups (power, voltage, current, power factor, frequency). */
export const QUANTITY_SERIES: readonly QuantitySeries[] = BUILT.series;
/** Tariff groups of the table (energy x.8, max demand x.6). */
export const TARIFF_GROUPS: readonly TariffGroup[] = BUILT.tariffs;

const meter = ['meter'] as const;
const meterPhase = ['meter', 'phase'] as const;

/** Meter families that are not a table quantity (signed power, identity, freshness, counters). */
export const METER_FAMILIES = {
  activePower: {
    name: 'meter_active_power_watts',
    help: 'Active power, signed: import positive, export negative (W, OBIS 1-0:16.7.0 or 1.7.0 - 2.7.0)',
    type: 'gauge',
    labels: meter,
  },
  phaseActivePower: {
    name: 'meter_phase_active_power_watts',
    help: 'Active power per phase, signed: import positive, export negative (W)',
    type: 'gauge',
    labels: meterPhase,
  },
  averageDemand: {
    name: 'meter_average_demand_import_watts',
    help: "Current average demand of the meter's demand window, import (W, OBIS 1-0:1.4.0, Belgian P1)",
    type: 'gauge',
    labels: meter,
  },
  tariff: {
    name: 'meter_tariff',
    help: 'Active tariff register, 1-based (OBIS 0-0:96.14.0)',
    type: 'gauge',
    labels: meter,
  },
  info: {
    name: 'meter_info',
    help: 'Meter identity; always 1',
    type: 'gauge',
    labels: ['meter', 'name', 'role', 'protocol', 'interface', 'vendor', 'model', 'serial'],
  },
  up: {
    name: 'meter_up',
    help: '1 while the meter sends valid readings, 0 when it is silent or not connected',
    type: 'gauge',
    labels: meter,
  },
  lastReading: {
    name: 'meter_last_reading_timestamp_seconds',
    help: 'Unix time of the last valid reading',
    type: 'gauge',
    labels: meter,
  },
  frames: {
    name: 'meter_frames_total',
    help: 'Frames (telegrams) that produced a reading',
    type: 'counter',
    labels: meter,
  },
  frameErrors: {
    name: 'meter_frame_errors_total',
    help: 'Rejected frames by reason: crc, parse, overflow, encryption',
    type: 'counter',
    labels: ['meter', 'reason'],
  },
  bytes: {
    name: 'meter_received_bytes_total',
    help: 'Bytes received from the meter transport',
    type: 'counter',
    labels: meter,
  },
  gas: {
    name: 'meter_gas_volume_cubic_meters_total',
    help: 'Gas meter reading from an M-Bus channel (m3)',
    type: 'counter',
    labels: ['meter', 'channel'],
  },
  water: {
    name: 'meter_water_volume_cubic_meters_total',
    help: 'Water meter reading from an M-Bus channel (m3)',
    type: 'counter',
    labels: ['meter', 'channel'],
  },
  heat: {
    name: 'meter_heat_energy_joules_total',
    help: 'Heat meter reading from an M-Bus channel (J)',
    type: 'counter',
    labels: ['meter', 'channel'],
  },
  mbusInfo: {
    name: 'meter_mbus_info',
    help: 'M-Bus device on a channel of the meter; always 1',
    type: 'gauge',
    labels: ['meter', 'channel', 'device_type', 'device_id'],
  },
} as const satisfies Record<string, FamilySpec>;

/** Every meter family, each once (table-derived first). */
export function meterFamilies(): FamilySpec[] {
  const seen = new Map<string, FamilySpec>();
  const add = (spec: FamilySpec) => {
    if (seen.has(spec.name)) throw new Error(`metric family ${spec.name} defined twice`);
    seen.set(spec.name, spec);
  };
  for (const spec of new Set(QUANTITY_SERIES.map((series) => series.family))) add(spec);
  for (const group of TARIFF_GROUPS) add(group.family);
  for (const spec of Object.values(METER_FAMILIES)) add(spec);
  return [...seen.values()];
}
