import { MeterDataError } from '../decoder.js';
import type { MbusReading, ObisValue, Reading } from '../../reading/reading.js';

/**
 * A HomeWizard P1 meter's `GET /api/v1/data` answer -> Reading (docs/architecture.md#dongle-sources).
 * Field names and units from HomeWizard's API documentation (api-documentation, docs/v1/measurement.mdx):
 * energies in kWh, power in W signed (import positive), voltage in V, current in A, gas in m3,
 * timestamps YYMMDDhhmmss. Every point is optional; a point the dongle does not send stays absent.
 */

type Json = Record<string, unknown>;

function num(data: Json, field: string): number | undefined {
  const value = data[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** YYMMDDhhmmss (meter local time, offset unknown) -> ISO 8601 without offset. */
function isoOf(stamp: number | undefined): string | undefined {
  if (stamp === undefined) return undefined;
  const digits = String(stamp).padStart(12, '0');
  if (!/^\d{12}$/.test(digits)) return undefined;
  const [yy, mo, dd, hh, mi, ss] = digits.match(/\d\d/g)!;
  return `20${yy}-${mo}-${dd}T${hh}:${mi}:${ss}`;
}

/** Hex digits of an identifier -> its text (DSMR sends equipment ids as hex ASCII). */
function textOfHex(hex: unknown): string | undefined {
  if (typeof hex !== 'string' || !/^([0-9a-f]{2})+$/i.test(hex)) return undefined;
  return Buffer.from(hex, 'hex').toString('latin1');
}

/** `external[].type` -> M-Bus device type (EN 13757-7). */
const DEVICE_TYPES: Readonly<Record<string, number>> = {
  gas_meter: 3,
  heat_meter: 4,
  warm_water_meter: 6,
  water_meter: 7,
  inlet_heat_meter: 12,
};

function mbusOf(data: Json): MbusReading[] {
  const external = Array.isArray(data.external) ? (data.external as Json[]) : [];
  const out: MbusReading[] = [];
  external.forEach((entry, index) => {
    if (typeof entry !== 'object' || entry === null) return;
    const value = num(entry, 'value');
    const deviceType = typeof entry.type === 'string' ? DEVICE_TYPES[entry.type] : undefined;
    if (value === undefined || deviceType === undefined) return;
    const channel: MbusReading = { bus: index + 1, deviceType, cumulative: value };
    const meterId = textOfHex(entry.unique_id);
    if (meterId !== undefined) channel.meterId = meterId;
    const dateTime = isoOf(num(entry, 'timestamp'));
    if (dateTime !== undefined) channel.dateTime = dateTime;
    if (typeof entry.unit === 'string') channel.unit = entry.unit;
    out.push(channel);
  });
  if (out.length === 0 && num(data, 'total_gas_m3') !== undefined) {
    const gas: MbusReading = { bus: 1, deviceType: 3, cumulative: num(data, 'total_gas_m3')!, unit: 'm3' };
    const dateTime = isoOf(num(data, 'gas_timestamp'));
    if (dateTime !== undefined) gas.dateTime = dateTime;
    out.push(gas);
  }
  return out;
}

/** Import and export power in kW from a signed W value. */
function split(values: Map<string, ObisValue>, watts: number | undefined, plus: string, minus: string): void {
  if (watts === undefined) return;
  values.set(plus, { value: watts > 0 ? watts / 1000 : 0, unit: 'kW' });
  values.set(minus, { value: watts < 0 ? -watts / 1000 : 0, unit: 'kW' });
}

export function readingOfHomewizardData(data: unknown, receivedAt: number): Reading {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new MeterDataError('parse', 'HomeWizard data answer is not a JSON object');
  const json = data as Json;
  const values = new Map<string, ObisValue>();
  const put = (key: string, value: number | undefined, unit: string) => {
    if (value !== undefined) values.set(key, { value, unit });
  };
  for (const [c, direction] of [
    [1, 'import'],
    [2, 'export'],
  ] as const) {
    put(`${c}.8.0`, num(json, `total_power_${direction}_kwh`), 'kWh');
    for (let t = 1; t <= 4; t++) put(`${c}.8.${t}`, num(json, `total_power_${direction}_t${t}_kwh`), 'kWh');
  }
  split(values, num(json, 'active_power_w'), '1.7.0', '2.7.0');
  for (const [n, c] of [
    [1, 20],
    [2, 40],
    [3, 60],
  ] as const) {
    split(values, num(json, `active_power_l${n}_w`), `${c + 1}.7.0`, `${c + 2}.7.0`);
    put(`${c + 12}.7.0`, num(json, `active_voltage_l${n}_v`), 'V');
    const amps = num(json, `active_current_l${n}_a`);
    // The documented examples sign the current with the power; OBIS x1.7.0 is a magnitude.
    put(`${c + 11}.7.0`, amps === undefined ? undefined : Math.abs(amps), 'A');
    put(`${c + 12}.32.0`, num(json, `voltage_sag_l${n}_count`), '');
    put(`${c + 12}.36.0`, num(json, `voltage_swell_l${n}_count`), '');
  }
  put('14.7.0', num(json, 'active_frequency_hz'), 'Hz');
  if (!values.has('1.7.0') && !values.has('1.8.0'))
    throw new MeterDataError('parse', 'HomeWizard data answer without power or energy');
  const reading: Reading = { receivedAt, protocol: 'DSMR', identity: {}, values, mbus: mbusOf(json) };
  const smr = num(json, 'smr_version');
  if (smr !== undefined) reading.identity.protocolVersion = String(smr);
  if (typeof json.meter_model === 'string') reading.identity.model = json.meter_model;
  const id = textOfHex(json.unique_id);
  if (id !== undefined) reading.identity.id = id;
  const tariff = num(json, 'active_tariff');
  if (tariff !== undefined) reading.tariff = tariff;
  return reading;
}
