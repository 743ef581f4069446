import { MeterDataError } from '../decoder.js';
import type { ObisValue, Reading } from '../../reading/reading.js';

/**
 * A Shelly Pro 3EM's `EM.GetStatus?id=0` and `EMData.GetStatus?id=0` -> Reading
 * (docs/architecture.md#dongle-sources). Field names from Shelly's Gen2 API documentation
 * (ComponentsAndServices/EM and EMData, status sections): per phase a_/b_/c_ current (A), voltage
 * (V), act_power (W, signed: positive is import), aprt_power (VA), pf, freq (Hz); total_act_power;
 * energies a_/b_/c_total_act_energy, a_/b_/c_total_act_ret_energy, total_act and total_act_ret in Wh.
 * A field that is null or absent (a phase the device does not measure) stays absent.
 */

type Json = Record<string, unknown>;

function num(data: Json, field: string): number | undefined {
  const value = data[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function objectOf(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MeterDataError('parse', `${what} answer is not a JSON object`);
  return value as Json;
}

const PHASES = [
  ['a', 20],
  ['b', 40],
  ['c', 60],
] as const;

function split(values: Map<string, ObisValue>, watts: number | undefined, plus: string, minus: string): void {
  if (watts === undefined) return;
  values.set(plus, { value: watts > 0 ? watts / 1000 : 0, unit: 'kW' });
  values.set(minus, { value: watts < 0 ? -watts / 1000 : 0, unit: 'kW' });
}

export function readingOfShellyStatus(em: unknown, emData: unknown, receivedAt: number): Reading {
  const status = objectOf(em, 'EM.GetStatus');
  const energy = objectOf(emData, 'EMData.GetStatus');
  const values = new Map<string, ObisValue>();
  const put = (key: string, value: number | undefined, unit: string) => {
    if (value !== undefined) values.set(key, { value, unit });
  };
  split(values, num(status, 'total_act_power'), '1.7.0', '2.7.0');
  put('9.7.0', kilo(num(status, 'total_aprt_power')), 'kVA');
  for (const [p, c] of PHASES) {
    split(values, num(status, `${p}_act_power`), `${c + 1}.7.0`, `${c + 2}.7.0`);
    put(`${c + 9}.7.0`, kilo(num(status, `${p}_aprt_power`)), 'kVA');
    put(`${c + 11}.7.0`, num(status, `${p}_current`), 'A');
    put(`${c + 12}.7.0`, num(status, `${p}_voltage`), 'V');
    put(`${c + 13}.7.0`, num(status, `${p}_pf`), '');
    put(`${c + 1}.8.0`, kilo(num(energy, `${p}_total_act_energy`)), 'kWh');
    put(`${c + 2}.8.0`, kilo(num(energy, `${p}_total_act_ret_energy`)), 'kWh');
  }
  put('14.7.0', num(status, 'a_freq'), 'Hz');
  put('1.8.0', kilo(num(energy, 'total_act')), 'kWh');
  put('2.8.0', kilo(num(energy, 'total_act_ret')), 'kWh');
  if (!values.has('1.7.0')) throw new MeterDataError('parse', 'EM.GetStatus without total_act_power');
  return {
    receivedAt,
    protocol: 'MODBUS',
    identity: { vendor: 'Shelly', model: 'Pro 3EM' },
    values,
    mbus: [],
  };
}

function kilo(value: number | undefined): number | undefined {
  return value === undefined ? undefined : value / 1000;
}
