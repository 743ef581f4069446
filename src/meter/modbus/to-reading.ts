import type { MeasuredValues } from '../../modbus-protocol/profiles/quantities.js';
import { PHASES } from '../../reading/phases.js';
import {
  PHASE_APPARENT,
  PHASE_EXPORT_ENERGY,
  PHASE_IMPORT_ENERGY,
  PHASE_POWER_FACTOR,
} from '../../modbus-protocol/profiles/grid-values.js';
import type { MeterIdentity, ObisValue, Reading } from '../../reading/reading.js';

/**
 * A Modbus meter's decoded registers as a Reading, in the OBIS codes and canonical units of the
 * one quantity table (IEC 62056-61 C.D.E): signed W and var become the import / export pairs
 * (1.7.0 / 2.7.0, 3.7.0 / 4.7.0 and their per-phase 21..64.7.0) in kW and kvar; VA 9.7.0 in kVA
 * (per phase 29/49/69.7.0); power factor per phase 33/53/73.7.0;
 * V 32/52/72.7.0; A 31/51/71.7.0; power factor 13.7.0; Hz 14.7.0; kWh 1.8.0 / 2.8.0 (per phase
 * 21/41/61.8.0 / 22/42/62.8.0); kvarh 3.8.0 / 4.8.0. The meter's sign convention is the profile maps' one: + import from the grid. Pure.
 */
export function readingFromRegisters(
  measured: MeasuredValues,
  identity: MeterIdentity,
  receivedAt: number,
): Reading {
  const values = new Map<string, ObisValue>();
  const put = (obis: string, value: number | undefined, unit: string, factor = 1): void => {
    if (value !== undefined) values.set(obis, { value: Number((value * factor).toPrecision(10)), unit });
  };
  const split = (value: number | undefined, positive: string, negative: string, unit: string): void => {
    if (value === undefined) return;
    put(positive, Math.max(0, value), unit, 0.001);
    put(negative, Math.max(0, -value), unit, 0.001);
  };
  split(measured.power, '1.7.0', '2.7.0', 'kW');
  split(measured.reactive, '3.7.0', '4.7.0', 'kvar');
  PHASES.forEach((phase, k) => {
    const n = k as 0 | 1 | 2;
    split(measured[`phasePower.${n}`], phase.activeImport, phase.activeExport, 'kW');
    split(measured[`phaseReactive.${n}`], phase.reactiveImport, phase.reactiveExport, 'kvar');
    put(phase.voltage, measured[`voltage.${n}`], 'V');
    const current = measured[`current.${n}`];
    put(phase.current, current === undefined ? undefined : Math.abs(current), 'A');
    // Per-phase apparent power (a magnitude, kept as the import register) and power factor.
    put(PHASE_APPARENT[n], measured[`phaseApparent.${n}`], 'kVA', 0.001);
    put(PHASE_POWER_FACTOR[n], measured[`phasePowerFactor.${n}`], '');
    // Per-phase active energy import and export (an SDM630's 30347..30357), kWh.
    put(PHASE_IMPORT_ENERGY[n], measured[`phaseImportEnergy.${n}`], 'kWh');
    put(PHASE_EXPORT_ENERGY[n], measured[`phaseExportEnergy.${n}`], 'kWh');
  });
  put('9.7.0', measured.apparent, 'kVA', 0.001);
  put('13.7.0', measured.powerFactor, '');
  put('14.7.0', measured.frequency, 'Hz');
  put('1.8.0', measured.importEnergy, 'kWh');
  put('2.8.0', measured.exportEnergy, 'kWh');
  put('3.8.0', measured.reactiveImportEnergy, 'kvarh');
  put('4.8.0', measured.reactiveExportEnergy, 'kvarh');
  return { receivedAt, protocol: 'MODBUS', identity, values, mbus: [] };
}
