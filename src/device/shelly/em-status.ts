import type { ObisValue, Reading } from '../../reading/reading.js';
import { meterView, type MeterView } from '../../reading/meter-view.js';

/**
 * The Shelly Pro 3EM's `EM.GetStatus` and `EMData.GetStatus` (component `em:0` / `emdata:0` of the
 * triphase profile) from a Reading, docs/architecture.md#shelly-pro-3em.
 *
 * Field names and units follow the Gen2 API documentation (shelly-api-docs.shelly.cloud, gen2
 * ComponentsAndServices/EM and EMData) and a device capture posted in
 * bieniu/ha-shellies-discovery-gen2#333: per phase `a_current` A, `a_voltage` V, `a_act_power` W
 * (signed, import positive), `a_aprt_power` VA, `a_pf`, `a_freq` Hz; `n_current` null without a
 * neutral CT; `total_current`, `total_act_power`, `total_aprt_power`; `user_calibrated_phase` [];
 * energies in Wh (`a_total_act_energy`, `a_total_act_ret_energy`, `total_act`, `total_act_ret`,
 * evcc-io/evcc#7335 confirms Wh). The device rounds current to 3, voltage, power and frequency to
 * 1, power factor to 2 decimals, the total powers to 3 and energies to 2.
 *
 * Never invented: a quantity the source meter does not send is `null` (the way the device gives
 * `n_current` it does not measure). A stale or absent reading answers as a Pro 3EM whose metering
 * chip is lost: every measurement null and the component error `power_meter_failure` (one of the
 * EM component's documented errors beside `phase_sequence` and `ct_type_not_set`).
 *
 * The measurements come from the reading's meter view (src/reading/meter-view.ts): its active
 * power is signed import positive, its apparent power a magnitude, as the device gives them.
 */

type Num = number | null;

const PHASE_LETTERS = ['a', 'b', 'c'] as const;

/** OBIS C.D.E of the per-phase active energy import and export (IEC 62056-61). */
const PHASE_ENERGY = [
  { energyImport: '21.8.0', energyExport: '22.8.0' },
  { energyImport: '41.8.0', energyExport: '42.8.0' },
  { energyImport: '61.8.0', energyExport: '62.8.0' },
] as const;

function round(value: number | undefined, digits: number): Num {
  if (value === undefined || !Number.isFinite(value)) return null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function sumOf(parts: readonly (number | undefined)[]): number | undefined {
  const present = parts.filter((part): part is number => part !== undefined);
  return present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0);
}

interface PhaseValues {
  current?: number;
  voltage?: number;
  act?: number;
  aprt?: number;
  pf?: number;
  freq?: number;
}

function phaseValues(view: MeterView, index: number): PhaseValues {
  const phase = view.phases[index]!;
  const defined = (value: number | null): number | undefined => (value === null ? undefined : value);
  const measured = phase.a !== null || phase.v !== null || phase.w !== null;
  return {
    // Current is a magnitude on the device; the direction is in the sign of act_power.
    current: phase.a === null ? undefined : Math.abs(phase.a),
    voltage: defined(phase.v),
    act: defined(phase.w),
    aprt: defined(phase.va),
    pf: defined(phase.pf),
    // One grid frequency (14.7.0) for every phase the meter measures.
    freq: measured ? defined(view.total.hz) : undefined,
  };
}

export type EmStatus = Record<string, Num | number[] | string[]>;

/** `EM.GetStatus` (id 0). */
export function emStatus(reading: Reading | undefined): EmStatus {
  const status: EmStatus = { id: 0 };
  const view = reading ? meterView(reading) : undefined;
  const phases = PHASE_LETTERS.map((_, index) => (view ? phaseValues(view, index) : {}));
  PHASE_LETTERS.forEach((letter, index) => {
    const phase = phases[index]!;
    status[`${letter}_current`] = round(phase.current, 3);
    status[`${letter}_voltage`] = round(phase.voltage, 1);
    status[`${letter}_act_power`] = round(phase.act, 1);
    status[`${letter}_aprt_power`] = round(phase.aprt, 1);
    status[`${letter}_pf`] = round(phase.pf, 2);
    status[`${letter}_freq`] = round(phase.freq, 1);
  });
  status.n_current = null;
  const totalAct = view ? (view.total.w ?? sumOf(phases.map((p) => p.act))) : undefined;
  const totalAprt = view ? (view.total.va ?? sumOf(phases.map((p) => p.aprt))) : undefined;
  status.total_current = round(sumOf(phases.map((p) => p.current)), 3);
  status.total_act_power = round(totalAct, 3);
  status.total_aprt_power = round(totalAprt, 3);
  status.user_calibrated_phase = [];
  if (!reading) status.errors = ['power_meter_failure'];
  return status;
}

/** Energy of a kWh register in Wh, 2 decimals. */
function wh(values: ReadonlyMap<string, ObisValue> | undefined, key: string): Num {
  const kwh = values?.get(key)?.value;
  return kwh === undefined ? null : round(kwh * 1000, 2);
}

/** `EMData.GetStatus` (id 0): the per-phase and total counters. */
export function emDataStatus(reading: Reading | undefined): EmStatus {
  const values = reading?.values;
  const status: EmStatus = { id: 0 };
  PHASE_LETTERS.forEach((letter, index) => {
    const extra = PHASE_ENERGY[index]!;
    status[`${letter}_total_act_energy`] = wh(values, extra.energyImport);
    status[`${letter}_total_act_ret_energy`] = wh(values, extra.energyExport);
  });
  status.total_act = wh(values, '1.8.0');
  status.total_act_ret = wh(values, '2.8.0');
  if (!reading) status.errors = ['power_meter_failure'];
  return status;
}
