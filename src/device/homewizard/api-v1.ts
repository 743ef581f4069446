import { createHash } from 'node:crypto';
import { meterView, type Measured, type MeterView } from '../../reading/meter-view.js';
import type { MbusReading, Reading } from '../../reading/reading.js';

/**
 * The HomeWizard P1 meter's local API v1 as pure functions of a Reading
 * (docs/architecture.md#homewizard-personality). Field names, units and shapes follow HomeWizard's
 * published API documentation (api-documentation, docs/v1/api.mdx, measurement.mdx,
 * error-handling.mdx):
 * - `GET /api`: product_type, product_name, serial (12 hex digits, the device's MAC),
 *   firmware_version, api_version "v1".
 * - `GET /api/v1/data`: every data point is optional, "the API does not send data points that are
 *   null or not available", so a value the meter does not send is left out, never invented.
 *   Energies in kWh, power in W (signed: import positive, export negative, as the documented
 *   examples show `active_power_w: -543` while feeding in), voltage in V, current in A, timestamps
 *   as the number YYMMDDhhmmss, `external[]` with unique_id, type, timestamp, value, unit.
 * - Errors: `{"error": {"id", "description"}}`.
 */

export const PRODUCT_TYPE = 'HWE-P1';
export const PRODUCT_NAME = 'P1 Meter';
export const API_VERSION = 'v1';

export interface DeviceInfo {
  product_type: string;
  product_name: string;
  serial: string;
  firmware_version: string;
  api_version: string;
}

/**
 * Wi-Fi facts of the data answer: wifi_ssid, and wifi_strength (%) only when known. python-homewizard-
 * energy (the library behind Home Assistant's integration, models.py `Measurement.__pre_deserialize__`)
 * takes an answer without `wifi_ssid` for an API v2 answer and then maps none of the v1 field names, so
 * `wifi_ssid` is always sent: the station's SSID, empty when the gateway is not on Wi-Fi.
 */
export interface WifiFacts {
  ssid: string;
  strength?: number;
}

/**
 * The documented serial is 12 hexadecimal digits (the MAC address). A system id of that form is used
 * as it is (lower case, as in the documented example "3c39e7aabbcc"); any other id is hashed to 12
 * stable hex digits so the consumer still sees the documented form.
 */
export function serialOf(systemId: string): string {
  if (/^[0-9a-f]{12}$/i.test(systemId)) return systemId.toLowerCase();
  return createHash('sha256').update(systemId).digest('hex').slice(0, 12);
}

export function deviceInfo(systemId: string, firmwareVersion: string): DeviceInfo {
  return {
    product_type: PRODUCT_TYPE,
    product_name: PRODUCT_NAME,
    serial: serialOf(systemId),
    firmware_version: firmwareVersion,
    api_version: API_VERSION,
  };
}

/** The documented error body (error-handling.mdx). */
export function errorBody(id: number, description: string): { error: { id: number; description: string } } {
  return { error: { id, description } };
}

/** 3 decimals, the resolution of the documented examples, without binary noise (0.676 kW -> 676 W). */
function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The identifier as the documented examples give it: the hex digits of its bytes, upper case. */
function hexId(text: string): string {
  return Buffer.from(text, 'latin1').toString('hex').toUpperCase();
}

/**
 * ISO 8601 with offset -> YYMMDDhhmmss as a number, in the meter's local time (the digits the
 * meter sent in its 0-n:24.2.1 timestamp, e.g. 210606140010).
 */
export function compactTimestamp(iso: string | undefined): number | undefined {
  const match = iso?.match(/^\d\d(\d\d)-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)/);
  return match ? Number(match.slice(1, 7).join('')) : undefined;
}

/** M-Bus device type (EN 13757-7 / DSMR 0-n:24.1.0) -> the documented `external[].type`. */
const EXTERNAL_TYPES: ReadonlyMap<number, string> = new Map([
  [3, 'gas_meter'],
  [4, 'heat_meter'],
  [6, 'warm_water_meter'],
  [7, 'water_meter'],
  [12, 'inlet_heat_meter'],
]);

interface External {
  unique_id?: string;
  type: string;
  timestamp?: number;
  value: number;
  unit?: string;
}

/**
 * A detected M-Bus meter: one with an equipment identifier (0-n:96.1.0) and a value. Meters send an
 * empty identifier and a 1970 zero value for an unused channel; that is no meter.
 */
function detected(channel: MbusReading): channel is MbusReading & { meterId: string; cumulative: number } {
  return Boolean(channel.meterId) && channel.cumulative !== undefined;
}

/**
 * python-homewizard-energy's ExternalDevice requires unique_id, value, unit and timestamp: an entry
 * missing one of them is left out rather than breaking the consumer's parse of the whole answer.
 */
function externalOf(channel: MbusReading): External | undefined {
  const type = channel.deviceType === undefined ? undefined : EXTERNAL_TYPES.get(channel.deviceType);
  if (type === undefined || !detected(channel)) return undefined;
  if (channel.unit === undefined || compactTimestamp(channel.dateTime) === undefined) return undefined;
  return {
    unique_id: hexId(channel.meterId),
    type,
    ...(channel.dateTime !== undefined && { timestamp: compactTimestamp(channel.dateTime) }),
    value: channel.cumulative,
    ...(channel.unit !== undefined && { unit: channel.unit }),
  };
}

/** Builds the data answer in the documented field order, leaving out what the reading lacks. */
class DataBuilder {
  readonly out: Record<string, unknown> = {};
  /** The reading's meter view (src/reading/meter-view.ts): powers in W, signed currents. */
  readonly view: MeterView;
  constructor(private readonly reading: Reading) {
    this.view = meterView(reading);
  }

  value(key: string): number | undefined {
    return this.reading.values.get(key)?.value;
  }

  set(field: string, value: unknown): void {
    if (value !== undefined) this.out[field] = value;
  }

  /** A measurement of the view as the documented point: left out when the meter does not send it. */
  measured(value: Measured): number | undefined {
    return value === null ? undefined : value;
  }

  /** A power of the view in W, 3 decimals; left out when the meter does not send it. */
  watts(value: Measured): number | undefined {
    return value === null ? undefined : round3(value);
  }
}

const PHASES = [
  { n: 1, c: 20 },
  { n: 2, c: 40 },
  { n: 3, c: 60 },
] as const;

/**
 * The brand a P1 meter shows in `meter_model` for a DSMR meter's FLAG id: the manufacturer in
 * capitals before the model of the identification line (HomeWizard's documented example
 * `"meter_model": "ISKRA  2M550T-101"` for an Iskra AM550). Decision: one space between the two.
 */
const P1_BRANDS: Readonly<Record<string, string>> = {
  ACE: 'ACTARIS',
  ELL: 'ELSTER',
  ELS: 'ELSTER',
  EMH: 'EMH',
  ESY: 'EASYMETER',
  ISK: 'ISKRA',
  KAM: 'KAMSTRUP',
  KFM: 'KAIFA',
  KMP: 'KAMSTRUP',
  LGF: 'LANDIS+GYR',
  LGZ: 'LANDIS+GYR',
  SAG: 'SAGEMCOM',
  XMX: 'LANDIS+GYR',
};

/**
 * `meter_model`: for a DSMR meter `<BRAND> <identification>`, the identification being what follows
 * the FLAG id and the baud rate character in the telegram's header line (DSMR 5.0.2 §6.2:
 * `/ISK5\2M550T-1012` gives `ISKRA 2M550T-1012`, the leading backslash dropped); without the header,
 * the brand and the model of the reading's identity. Other meters: vendor and model.
 */
export function meterModelOf(reading: Reading, telegram?: Buffer): string | undefined {
  const { prefix, vendor, model } = reading.identity;
  if (reading.protocol === 'DSMR' && prefix) {
    const brand = P1_BRANDS[prefix.toUpperCase()] ?? prefix.toUpperCase();
    const header = telegram
      ? /^\/([A-Za-z]{3})[^\r\n\\]?\\?([^\r\n]*)/.exec(telegram.toString('latin1', 0, 128))
      : null;
    const ident = header && header[1]!.toUpperCase() === prefix.toUpperCase() ? header[2]!.trim() : model;
    return ident ? `${brand} ${ident}` : brand;
  }
  const text = [vendor ?? prefix, model].filter((part) => part).join(' ');
  return text || undefined;
}

/** DSMR 5.0.2 §6.12 power failure counters in a raw telegram: 0-0:96.7.21 (any), 0-0:96.7.9 (long). */
export interface PowerFailures {
  any?: number;
  long?: number;
}

export function powerFailuresOf(telegram: Buffer | undefined): PowerFailures {
  if (!telegram) return {};
  const text = telegram.toString('latin1');
  const count = (code: string): number | undefined => {
    const match = new RegExp(`^0-0:${code.replace(/\./g, '\\.')}\\((\\d{1,10})\\)`, 'm').exec(text);
    return match ? Number(match[1]) : undefined;
  };
  return { any: count('96.7.21'), long: count('96.7.9') };
}

function identityFields(b: DataBuilder, reading: Reading, telegram: Buffer | undefined): void {
  const version = Number(reading.identity.protocolVersion);
  b.set('smr_version', Number.isFinite(version) && reading.identity.protocolVersion ? version : undefined);
  b.set('meter_model', meterModelOf(reading, telegram));
  b.set('unique_id', reading.identity.id === undefined ? undefined : hexId(reading.identity.id));
  b.set('active_tariff', reading.tariff);
}

/**
 * The totals and the tariff registers. A meter without tariff registers (a Modbus meter, an SML
 * meter with 1.8.0 alone) gives its total as `t1`, as a P1 meter on a single-tariff meter does:
 * evcc's `meter/homewizard` sums t1..t4 for the energy and would read 0 kWh otherwise.
 */
function energyFields(b: DataBuilder): void {
  for (const [c, direction] of [
    [1, 'import'],
    [2, 'export'],
  ] as const) {
    const total = b.value(`${c}.8.0`);
    b.set(`total_power_${direction}_kwh`, total);
    const tariffs = [1, 2, 3, 4].map((t) => b.value(`${c}.8.${t}`));
    if (!tariffs.some((value) => value !== undefined)) tariffs[0] = total;
    tariffs.forEach((value, i) => b.set(`total_power_${direction}_t${i + 1}_kwh`, value));
  }
}

function phaseFields(b: DataBuilder): void {
  const { total, phases } = b.view;
  // Active power signed import positive by the view's one rule (meter-view.ts).
  b.set('active_power_w', b.watts(total.w));
  PHASES.forEach(({ n }, i) => b.set(`active_power_l${n}_w`, b.watts(phases[i]!.w)));
  PHASES.forEach(({ n }, i) => b.set(`active_voltage_l${n}_v`, b.measured(phases[i]!.v)));
  // The documented example signs the current like the phase's power (-4 A beside -676 W): the one
  // signed-current rule of the reading (phases.ts, the view's `a`), applied once to the magnitude, so
  // a current the meter sends signed already (SML and D0 values stay as sent) is not flipped twice.
  PHASES.forEach(({ n }, i) => b.set(`active_current_l${n}_a`, b.measured(phases[i]!.a)));
  b.set('active_frequency_hz', b.measured(total.hz));
  // DSMR 5.0.2 §6.12: sags 1-0:32.32.0/52.32.0/72.32.0, swells 1-0:32.36.0/52.36.0/72.36.0.
  for (const { n, c } of PHASES) b.set(`voltage_sag_l${n}_count`, b.value(`${c + 12}.32.0`));
  for (const { n, c } of PHASES) b.set(`voltage_swell_l${n}_count`, b.value(`${c + 12}.36.0`));
}

function powerFailFields(b: DataBuilder, failures: PowerFailures): void {
  b.set('any_power_fail_count', failures.any);
  b.set('long_power_fail_count', failures.long);
}

function mbusFields(b: DataBuilder, reading: Reading): void {
  // total_gas_m3, gas_timestamp and gas_unique_id describe "the first detected gas meter".
  const gas = reading.mbus.find((channel) => channel.deviceType === 3 && detected(channel));
  if (gas) {
    b.set('total_gas_m3', gas.cumulative);
    b.set('gas_timestamp', compactTimestamp(gas.dateTime));
    b.set('gas_unique_id', hexId(gas.meterId!));
  }
  const external = reading.mbus.map(externalOf).filter((entry) => entry !== undefined);
  if (external.length > 0) b.set('external', external);
}

function wifiFields(b: DataBuilder | { set: DataBuilder['set'] }, wifi: WifiFacts): void {
  b.set('wifi_ssid', wifi.ssid);
  b.set('wifi_strength', wifi.strength);
}

/**
 * `GET /api/v1/data` while the meter is silent: the documentation defines no error for it and says
 * that points not available are not sent, so only the gateway's own Wi-Fi points remain; no old
 * number is passed off as current (docs/architecture.md#staleness).
 */
export function staleDataOf(wifi: WifiFacts): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  wifiFields({ set: (field, value) => (out[field] = value) }, wifi);
  return out;
}

/**
 * `GET /api/v1/data` of a fresh reading; the header line and the power failure counters come from
 * its raw DSMR telegram when there is one.
 */
export function dataOf(reading: Reading, wifi: WifiFacts, telegram?: Buffer): Record<string, unknown> {
  const b = new DataBuilder(reading);
  wifiFields(b, wifi);
  identityFields(b, reading, telegram);
  energyFields(b);
  phaseFields(b);
  powerFailFields(b, powerFailuresOf(telegram));
  mbusFields(b, reading);
  return b.out;
}

/** `GET /api/v1/system` of a P1 meter: the cloud connection, which the gateway never makes. */
export function systemOf(): { cloud_enabled: boolean } {
  return { cloud_enabled: false };
}
