import { PHASES } from '../../reading/phases.js';
import type { MeterIdentity, Reading } from '../../reading/reading.js';
import type { SystemFacts } from '../../reading/meter-state.js';

/**
 * The grid connection point as an inverter's meter sees it, in the units meter register maps use
 * (W, var, VA, V, A, kWh, kvarh), computed once per reading from the one quantity table's OBIS
 * values. Every profile encodes these; none reads the Reading itself.
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

function scaled(value: number | undefined, factor: number): number | undefined {
  return value === undefined ? undefined : value * factor;
}

function magnitude(value: number | undefined): number | undefined {
  return value === undefined ? undefined : Math.abs(value);
}

/** import - export of two OBIS values in kW/kvar, times 1000 and the direction's sign. */
function signedPower(reading: Reading, positive: string, negative: string, sign: number): number | undefined {
  const plus = reading.values.get(positive)?.value;
  const minus = reading.values.get(negative)?.value;
  if (plus === undefined && minus === undefined) return undefined;
  return Number((((plus ?? 0) - (minus ?? 0)) * 1000 * sign).toPrecision(15)) + 0;
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
  return {
    fresh: true,
    power: signedPower(reading, '1.7.0', '2.7.0', sign),
    phasePower: PHASES.map((phase) => signedPower(reading, phase.activeImport, phase.activeExport, sign)),
    reactive: signedPower(reading, '3.7.0', '4.7.0', sign),
    phaseReactive: PHASES.map((phase) =>
      signedPower(reading, phase.reactiveImport, phase.reactiveExport, sign),
    ),
    apparent: scaled(value('9.7.0'), 1000),
    phaseApparent: PHASE_APPARENT.map((obis) => scaled(value(obis), 1000)),
    phasePowerFactor: PHASE_POWER_FACTOR.map((obis) => value(obis)),
    voltage: PHASES.map((phase) => value(phase.voltage)),
    current: PHASES.map((phase) => magnitude(value(phase.current))),
    powerFactor: value('13.7.0'),
    frequency: value('14.7.0') ?? nominal,
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
