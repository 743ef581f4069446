/**
 * The one quantity table (docs/architecture.md#data-flow): every measured quantity with its OBIS code,
 * canonical unit, place in the report JSON, live payload key, MQTT template variable, Home Assistant classes
 * and Modbus register id. The report, live and template builders, HA discovery and the Modbus encoder
 * all iterate this table; nothing else lists quantities.
 */

export type HaStateClass = 'measurement' | 'total_increasing' | 'total';

export interface HaSensorClass {
  /** Home Assistant sensor device_class; absent for quantities HA has no class for. */
  deviceClass?: string;
  stateClass: HaStateClass;
  /** Unit HA is given (must be one HA accepts for deviceClass). */
  unit: string;
}

export interface Quantity {
  /** Stable key, used for HA unique ids and the flat MQTT state JSON. */
  key: string;
  /** OBIS C.D.E of the electricity medium (1-0:C.D.E). */
  obis: string;
  /** Canonical unit of the value in a Reading. */
  unit: string;
  /** Path of the value inside `report` (docs/architecture.md#report-shape). */
  reportPath: readonly string[];
  /** Key in the flat live payload (docs/architecture.md#live-payload), when the live stream carries it. */
  live?: string;
  /** Human name (HA entity name, docs). */
  name: string;
  ha: HaSensorClass;
  /** Energy registers may be derived as the sum of their tariff registers (DSMR sends only t1, t2). */
  tariffOf?: string;
}

/** MQTT template variable of an OBIS C.D.E key: `1.8.0` -> `1_8_0` (docs/architecture.md#mqtt-template). */
export function templateName(obis: string): string {
  return obis.replaceAll('.', '_');
}

const POWER: HaSensorClass = { deviceClass: 'power', stateClass: 'measurement', unit: 'kW' };
const REACTIVE_POWER: HaSensorClass = {
  deviceClass: 'reactive_power',
  stateClass: 'measurement',
  unit: 'kvar',
};
const ENERGY: HaSensorClass = { deviceClass: 'energy', stateClass: 'total_increasing', unit: 'kWh' };
const REACTIVE_ENERGY: HaSensorClass = {
  deviceClass: 'reactive_energy',
  stateClass: 'total_increasing',
  unit: 'kvarh',
};

const LINES = [
  { line: 'l1', offset: 20, live: 'P1' },
  { line: 'l2', offset: 40, live: 'P2' },
  { line: 'l3', offset: 60, live: 'P3' },
] as const;

/** Voltage or current of each line: OBIS C of L1 is `c`, of L2 and L3 20 and 40 more. */
function lineGroup(kind: 'voltage' | 'current', c: number): Quantity[] {
  const [unit, symbol, name] = kind === 'voltage' ? ['V', 'V', 'Voltage'] : ['A', 'I', 'Current'];
  return LINES.map(({ line, live }, i): Quantity => ({
    key: `${kind}_${line}`,
    obis: `${c + 20 * i}.7.0`,
    unit,
    reportPath: [kind, line],
    live: `${symbol}_${live}`,
    name: `${name} ${line.toUpperCase()}`,
    ha: { deviceClass: kind, stateClass: 'measurement', unit },
  }));
}

function powerGroup(c: number, kind: 'active' | 'reactive', direction: 'positive' | 'negative'): Quantity[] {
  const unit = kind === 'active' ? 'kW' : 'kvar';
  const ha = kind === 'active' ? POWER : REACTIVE_POWER;
  const prefix = kind === 'active' ? 'P' : 'rP';
  const dir = direction === 'positive' ? 'In' : 'Out';
  const label = `${kind === 'active' ? 'Active' : 'Reactive'} power ${direction === 'positive' ? 'import' : 'export'}`;
  const total: Quantity = {
    key: `power_${kind}_${direction}`,
    obis: `${c}.7.0`,
    unit,
    reportPath: ['instantaneous_power', kind, direction, 'total'],
    live: `${prefix}_${dir}`,
    name: label,
    ha,
  };
  const lines = LINES.map(({ line, offset, live }): Quantity => ({
    key: `power_${kind}_${direction}_${line}`,
    obis: `${c + offset}.7.0`,
    unit,
    reportPath: ['instantaneous_power', kind, direction, line],
    live: `${prefix}_${live}_${dir}`,
    name: `${label} ${line.toUpperCase()}`,
    ha,
  }));
  return [total, ...lines];
}

function tariffGroup(
  c: number,
  d: 8 | 6,
  reportBase: readonly string[],
  keyBase: string,
  name: string,
  ha: HaSensorClass,
  unit: string,
  live?: string,
): Quantity[] {
  return (['total', 't1', 't2'] as const).map((slot, e): Quantity => {
    const obis = `${c}.${d}.${e}`;
    const quantity: Quantity = {
      key: slot === 'total' ? keyBase : `${keyBase}_${slot}`,
      obis,
      unit,
      reportPath: [...reportBase, slot],
      name: slot === 'total' ? name : `${name} ${slot.toUpperCase()}`,
      ha,
    };
    if (live) quantity.live = slot === 'total' ? live : `${live}_${slot.toUpperCase()}`;
    if (slot === 'total' && d === 8) quantity.tariffOf = `${c}.${d}`;
    return quantity;
  });
}

export const QUANTITIES: readonly Quantity[] = [
  ...powerGroup(1, 'active', 'positive'),
  ...powerGroup(2, 'active', 'negative'),
  ...powerGroup(3, 'reactive', 'positive'),
  ...powerGroup(4, 'reactive', 'negative'),
  {
    key: 'power_apparent',
    obis: '9.7.0',
    unit: 'kVA',
    reportPath: ['instantaneous_power', 'apparent', 'total'],
    name: 'Apparent power',
    ha: { deviceClass: 'apparent_power', stateClass: 'measurement', unit: 'kVA' },
  },
  ...lineGroup('voltage', 32),
  ...lineGroup('current', 31),
  {
    key: 'power_factor',
    obis: '13.7.0',
    unit: '',
    reportPath: ['power_factor'],
    live: 'PF',
    name: 'Power factor',
    ha: { deviceClass: 'power_factor', stateClass: 'measurement', unit: '' },
  },
  {
    // Grid frequency, IEC 62056-61 C = 14 (an SDM630's 30071, IEC 62056-21 and SML meters that send
    // 1-0:14.7.0; DSMR has none). In the report only when the meter measures it; no live key (the
    // device's live payload has none, docs/architecture.md#live-payload).
    key: 'frequency',
    obis: '14.7.0',
    unit: 'Hz',
    reportPath: ['frequency'],
    name: 'Grid frequency',
    ha: { deviceClass: 'frequency', stateClass: 'measurement', unit: 'Hz' },
  },
  ...tariffGroup(
    1,
    8,
    ['energy', 'active', 'positive'],
    'energy_active_positive',
    'Energy import',
    ENERGY,
    'kWh',
    'E_In',
  ),
  ...tariffGroup(
    2,
    8,
    ['energy', 'active', 'negative'],
    'energy_active_negative',
    'Energy export',
    ENERGY,
    'kWh',
    'E_Out',
  ),
  ...tariffGroup(
    3,
    8,
    ['energy', 'reactive', 'positive'],
    'energy_reactive_positive',
    'Reactive energy import',
    REACTIVE_ENERGY,
    'kvarh',
  ),
  ...tariffGroup(
    4,
    8,
    ['energy', 'reactive', 'negative'],
    'energy_reactive_negative',
    'Reactive energy export',
    REACTIVE_ENERGY,
    'kvarh',
  ),
  ...tariffGroup(
    5,
    8,
    ['energy', 'reactive', 'imported', 'inductive'],
    'energy_reactive_imported_inductive',
    'Reactive energy imported inductive',
    REACTIVE_ENERGY,
    'kvarh',
  ),
  ...tariffGroup(
    6,
    8,
    ['energy', 'reactive', 'imported', 'capacitive'],
    'energy_reactive_imported_capacitive',
    'Reactive energy imported capacitive',
    REACTIVE_ENERGY,
    'kvarh',
  ),
  ...tariffGroup(
    7,
    8,
    ['energy', 'reactive', 'exported', 'inductive'],
    'energy_reactive_exported_inductive',
    'Reactive energy exported inductive',
    REACTIVE_ENERGY,
    'kvarh',
  ),
  ...tariffGroup(
    8,
    8,
    ['energy', 'reactive', 'exported', 'capacitive'],
    'energy_reactive_exported_capacitive',
    'Reactive energy exported capacitive',
    REACTIVE_ENERGY,
    'kvarh',
  ),
  ...tariffGroup(
    1,
    6,
    ['max_demand', 'active', 'positive'],
    'max_demand_active_positive',
    'Max demand import',
    POWER,
    'kW',
    'P_P_In',
  ),
  ...tariffGroup(
    2,
    6,
    ['max_demand', 'active', 'negative'],
    'max_demand_active_negative',
    'Max demand export',
    POWER,
    'kW',
  ),
];

/** Live keys of the reactive energy totals in the order of docs/architecture.md#live-payload. */
const REACTIVE_ENERGY_LIVE: Record<string, string> = {
  '3.8.0': 'rE_In',
  '4.8.0': 'rE_Out',
  '5.8.0': 'rEii',
  '6.8.0': 'rEic',
  '7.8.0': 'rEei',
  '8.8.0': 'rEec',
};
for (const quantity of QUANTITIES) {
  const live = REACTIVE_ENERGY_LIVE[quantity.obis];
  if (live) quantity.live = live;
}

export const QUANTITY_BY_OBIS: ReadonlyMap<string, Quantity> = new Map(QUANTITIES.map((q) => [q.obis, q]));
