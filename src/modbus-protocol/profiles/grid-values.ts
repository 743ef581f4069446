import { meterView, type Measured } from '../../reading/meter-view.js';
import type { MeterIdentity, Reading } from '../../reading/reading.js';
import type { SystemFacts } from '../../reading/meter-state.js';

/**
 * The grid connection point as an inverter's meter sees it, in the units meter register maps use
 * (W, var, VA, V, A, kWh, kvarh), computed once per reading from the one quantity table's OBIS
 * values and the reading's meter view (src/reading/meter-view.ts, one sign rule for every consumer).
 * Every profile encodes these; none reads the Reading itself.
 *
 * Direction: `import_positive` (the default) gives power drawn from the grid as positive and
 * power fed into it as negative, which is how an Eastron or Chint meter reads when its input side
 * faces the grid; `export_positive` flips every signed power (a meter wired the other way round).
 * Energy counters never change sign: import stays 1.8.0, export 2.8.0.
 *
 * A quantity the meter does not send, and every measurement while the reading is stale
 * (docs/architecture.md#staleness: no old number passed off as current), is undefined; each
 * profile encodes that as its meter's "no data" value. The energy counters are the exception: a
 * counter is monotonic and still true while the meter is silent, so a stale reading keeps the last
 * valid counters (a client that integrates them would otherwise see a reset to 0 and then a jump
 * of the whole reading).
 *
 * Frequency: the meter's own 14.7.0 when it sends one (some IEC 62056-21 meters do; DSMR and
 * most SML meters do not), otherwise the grid's nominal frequency from the setting
 * `modbus.nominal_frequency` (default 50 Hz, 0 = not served): a constant, not a measurement.
 * Inverters read it in the same request as the energies and some reject a NaN there.
 */
export interface GridValues {
  /** A fresh reading is present. */
  fresh: boolean;
  /** Active power, total and per phase (W). */
  power: number | undefined;
  phasePower: Array<number | undefined>;
  /** Reactive power, total and per phase (var). */
  reactive: number | undefined;
  phaseReactive: Array<number | undefined>;
  /** Apparent power total (VA). */
  apparent: number | undefined;
  /** Apparent power (VA) and power factor per phase: OBIS 29/49/69.7.0 and 33/53/73.7.0. */
  phaseApparent: Array<number | undefined>;
  phasePowerFactor: Array<number | undefined>;
  /** Phase-to-neutral voltages (V). */
  voltage: Array<number | undefined>;
  /** Phase currents, magnitude (A). */
  current: Array<number | undefined>;
  powerFactor: number | undefined;
  /** Grid frequency (Hz): measured by the meter, or the configured nominal one (see above). */
  frequency: number | undefined;
  /** Active energy import (1.8.0) and export (2.8.0), kWh. */
  importEnergy: number | undefined;
  exportEnergy: number | undefined;
  /** Reactive energy import (3.8.0) and export (4.8.0), kvarh. */
  reactiveImportEnergy: number | undefined;
  reactiveExportEnergy: number | undefined;
  /** Active energy import and export per phase, kWh: OBIS 21/41/61.8.0 and 22/42/62.8.0. */
  phaseImportEnergy: Array<number | undefined>;
  phaseExportEnergy: Array<number | undefined>;
  identity: MeterIdentity;
  system: SystemFacts;
  /** The serial line of the slave (RTU) for the identity registers that mirror it; TCP: undefined. */
  line: SlaveLine | undefined;
}

/** Sign conventions of power (services.modbus.direction, services.modbus_rtu.direction). */
export const POWER_DIRECTIONS = ['import_positive', 'export_positive'] as const;
export type PowerDirection = (typeof POWER_DIRECTIONS)[number];

export interface SlaveLine {
  unitId: number;
  baudRate: number;
  parity: 'none' | 'even' | 'odd';
  stopBits: 1 | 2;
}

export interface GridSource {
  reading: Reading | undefined;
  identity: MeterIdentity;
  system: SystemFacts;
  direction: PowerDirection;
  line?: SlaveLine;
  /** Hz served when the meter sends no frequency; 0 or undefined: none. */
  nominalFrequency?: number;
  /** The values of the previous rebuild: their counters stand in while the reading is stale. */
  previous?: GridValues;
}

function defined(value: Measured): number | undefined {
  return value === null ? undefined : value;
}

function magnitude(value: Measured): number | undefined {
  return value === null ? undefined : Math.abs(value);
}

/** A signed power of the view (W, var) in the direction's sign, 15 significant digits. */
function directed(value: Measured, sign: number): number | undefined {
  return value === null ? undefined : Number((value * sign).toPrecision(15)) + 0;
}

/** Per-phase apparent power (import, kVA) and power factor, IEC 62056-61 C = 29/49/69 and 33/53/73. */
export const PHASE_APPARENT = ['29.7.0', '49.7.0', '69.7.0'] as const;
export const PHASE_POWER_FACTOR = ['33.7.0', '53.7.0', '73.7.0'] as const;
/** Per-phase active energy import and export (kWh), IEC 62056-61 C = 21/41/61 and 22/42/62, D = 8. */
export const PHASE_IMPORT_ENERGY = ['21.8.0', '41.8.0', '61.8.0'] as const;
export const PHASE_EXPORT_ENERGY = ['22.8.0', '42.8.0', '62.8.0'] as const;

export function gridValues(source: GridSource): GridValues {
  const { reading, identity, system, line } = source;
  const sign = source.direction === 'export_positive' ? -1 : 1;
  const nominal = source.nominalFrequency ? source.nominalFrequency : undefined;
  if (reading === undefined) {
    const none = [undefined, undefined, undefined];
    const last = source.previous;
    return {
      fresh: false,
      power: undefined,
      phasePower: none,
      reactive: undefined,
      phaseReactive: none,
      apparent: undefined,
      phaseApparent: none,
      phasePowerFactor: none,
      voltage: none,
      current: none,
      powerFactor: undefined,
      frequency: undefined,
      importEnergy: last?.importEnergy,
      exportEnergy: last?.exportEnergy,
      reactiveImportEnergy: last?.reactiveImportEnergy,
      reactiveExportEnergy: last?.reactiveExportEnergy,
      phaseImportEnergy: last?.phaseImportEnergy ?? none,
      phaseExportEnergy: last?.phaseExportEnergy ?? none,
      identity,
      system,
      line,
    };
  }
  const value = (obis: string): number | undefined => reading.values.get(obis)?.value;
  const { total, phases } = meterView(reading);
  return {
    fresh: true,
    power: directed(total.w, sign),
    phasePower: phases.map((phase) => directed(phase.w, sign)),
    reactive: directed(total.var, sign),
    phaseReactive: phases.map((phase) => directed(phase.var, sign)),
    apparent: defined(total.va),
    phaseApparent: phases.map((phase) => defined(phase.va)),
    phasePowerFactor: phases.map((phase) => defined(phase.pf)),
    voltage: phases.map((phase) => defined(phase.v)),
    current: phases.map((phase) => magnitude(phase.a)),
    powerFactor: defined(total.pf),
    frequency: defined(total.hz) ?? nominal,
    importEnergy: value('1.8.0'),
    exportEnergy: value('2.8.0'),
    reactiveImportEnergy: value('3.8.0'),
    reactiveExportEnergy: value('4.8.0'),
    phaseImportEnergy: PHASE_IMPORT_ENERGY.map((obis) => value(obis)),
    phaseExportEnergy: PHASE_EXPORT_ENERGY.map((obis) => value(obis)),
    identity,
    system,
    line,
  };
}

/** Mean of the values present; undefined when none is. */
export function meanOf(values: ReadonlyArray<number | undefined>): number | undefined {
  const present = values.filter((v): v is number => v !== undefined);
  return present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0) / present.length;
}

/** Sum of the values present; undefined when none is. */
export function sumOf(values: ReadonlyArray<number | undefined>): number | undefined {
  const present = values.filter((v): v is number => v !== undefined);
  return present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0);
}
