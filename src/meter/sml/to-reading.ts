import type { MbusReading, ObisValue, Reading } from '../../reading/reading.js';
import { toCanonical } from '../../reading/units.js';
import { MeterDataError } from '../decoder.js';
import { dlmsUnit } from './dlms-units.js';
import { obisNumber, type SmlFrame, type SmlTime } from './parser.js';
import { identityOf, type IdentitySources } from './identity.js';

/**
 * SML frame -> Reading. Numeric GetList.Res entries of the electricity medium, 1-0:C.D.E*255, are
 * keyed `C.D.E` with value x 10^scaler in the canonical unit (W -> kW, Wh -> kWh ...). Signed
 * values stay as sent: 16.7.0 and the per-phase 36.7.0 / 56.7.0 / 76.7.0 (import - export, as
 * e.g. DZG and ISKRA meters send them) are split into the positive and negative directions by
 * src/reading/derive.ts.
 */

/** Identity-bearing OBIS codes. */
const OBIS_SERVER_ID = obisNumber(1, 0, 0, 0, 9, 255);
const OBIS_DEVICE_ID = obisNumber(1, 0, 96, 1, 0, 255);
const OBIS_OWNERSHIP_NUMBER = obisNumber(1, 0, 0, 0, 0, 255);
/** Manufacturer: FNN "Lastenheft" code 1-0:96.50.1*1 and the EDL21 code 129-129:199.130.3*255. */
const OBIS_MANUFACTURER_FNN = obisNumber(1, 0, 96, 50, 1, 1);
const OBIS_MANUFACTURER_EDL = obisNumber(129, 129, 199, 130, 3, 255);
export const isIdentityCode = (code: number): boolean =>
  code === OBIS_SERVER_ID ||
  code === OBIS_DEVICE_ID ||
  code === OBIS_OWNERSHIP_NUMBER ||
  code === OBIS_MANUFACTURER_FNN ||
  code === OBIS_MANUFACTURER_EDL;

/** SML meters report no M-Bus channels; one shared empty list. */
export const NO_MBUS: readonly MbusReading[] = Object.freeze([]);

export function smlFrameToReading(frame: SmlFrame, receivedAt: number): Reading {
  const values = new Map<string, ObisValue>();
  // SML list entries carry a scaler as DLMS class 3 registers do (absent: 0); the meter scalers use it.
  const scalers = new Map<string, number>();
  const sources: IdentitySources = {};
  let listServerId: Buffer | undefined;
  let deviceId: Buffer | undefined;
  let meterTime: SmlTime | undefined;
  let lists = 0;
  for (const message of frame.messages) {
    if (sources.serverId === undefined && 'serverId' in message && message.serverId?.length) {
      sources.serverId = message.serverId;
    }
    if (message.type !== 'GetListResponse') continue;
    lists += 1;
    const time = message.actSensorTime ?? message.actGatewayTime;
    if (meterTime === undefined && isWallClock(time)) meterTime = time;
    for (const entry of message.entries) {
      const code = entry.obisCode;
      if (code === undefined) continue;
      if (isIdentityCode(code)) {
        const text = entry.value;
        if (!Buffer.isBuffer(text)) continue;
        if (code === OBIS_SERVER_ID) listServerId = text;
        else if (code === OBIS_DEVICE_ID) deviceId = text;
        else if (code === OBIS_OWNERSHIP_NUMBER) sources.ownershipNumber = text;
        else sources.manufacturer ??= text;
        continue;
      }
      const key = electricityKey(code);
      if (key === undefined) continue;
      const raw = entry.value;
      if (typeof raw === 'number' || typeof raw === 'bigint') {
        values.set(key, canonicalValue(raw, entry.scaler, entry.unit));
        scalers.set(key, entry.scaler ?? 0);
      }
    }
  }
  if (lists === 0) throw new MeterDataError('parse', 'SML: frame carries no GetList.Res');
  sources.serverId ??= listServerId ?? deviceId;
  const reading: Reading = {
    receivedAt,
    protocol: 'SML',
    identity: identityOf(sources),
    values,
    scalers,
    mbus: NO_MBUS,
  };
  if (meterTime) reading.meterTime = formatSmlTime(meterTime);
  return reading;
}

/** `C.D.E` of 1-0:C.D.E*255, else undefined. */
export function electricityKey(obisCode: number): string | undefined {
  const abc = (obisCode / 0x1000000) | 0;
  const def = obisCode - abc * 0x1000000;
  if (abc >>> 8 !== 0x0100 || (def & 0xff) !== 255) return undefined;
  return `${abc & 0xff}.${def >>> 16}.${(def >>> 8) & 0xff}`;
}

interface UnitConversion {
  unit: string;
  /** Canonical value = sent value x 10^exponent (W -> kW: -3), per toCanonical. */
  exponent: number;
}

/** The toCanonical conversion of a DLMS unit code as a power of ten, or null when it is none. */
function conversionOf(code: number | undefined): UnitConversion | null {
  const unit = toCanonical(1, dlmsUnit(code));
  const exponent = Math.round(Math.log10(unit.value));
  return 10 ** exponent === unit.value ? { unit: unit.unit, exponent } : null;
}

/**
 * raw x 10^scaler in the canonical unit. Scaler and unit factor are applied as one power of ten,
 * dividing for negative exponents, so decimal readings stay exact (54301577 Wh x 10^-1 -> 5430.1577
 * kWh); this equals toCanonical(raw x 10^scaler, unit), which is the fallback for other factors.
 */
export function canonicalValue(
  raw: number | bigint,
  scaler: number | undefined,
  unitCode: number | undefined,
): ObisValue {
  const conversion = conversionOf(unitCode);
  if (conversion === null) return toCanonical(scaled(raw, scaler), dlmsUnit(unitCode));
  return { value: scaled(raw, (scaler ?? 0) + conversion.exponent), unit: conversion.unit };
}

/** 10^0 .. 10^22, the powers of ten that are exact doubles. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, exponent) => 10 ** exponent);

/** raw x 10^scaler; dividing by an exact power of ten keeps decimal values exact (5430157.7). */
function scaled(raw: number | bigint, scaler: number | undefined): number {
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!scaler) return value;
  const power = POWERS_OF_TEN[scaler < 0 ? -scaler : scaler] ?? 10 ** Math.abs(scaler);
  return scaler < 0 ? value / power : value * power;
}

/** A calendar time (not a seconds counter) within the Unsigned32 range SML timestamps use. */
export function isWallClock(time: SmlTime | undefined): time is SmlTime {
  return time !== undefined && time.kind !== 'secIndex' && time.seconds >= 0 && time.seconds <= 0xffffffff;
}

/** ISO 8601 with offset: timestamp in UTC, localTimestamp with its local and season offsets. */
export function formatSmlTime(time: SmlTime): string {
  const offsetMinutes =
    time.kind === 'localTimestamp' ? (time.localOffsetMinutes ?? 0) + (time.seasonOffsetMinutes ?? 0) : 0;
  const local = new Date((time.seconds + offsetMinutes * 60) * 1000).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${local}Z`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const magnitude = Math.abs(offsetMinutes);
  const hours = String(Math.floor(magnitude / 60)).padStart(2, '0');
  return `${local}${sign}${hours}:${String(magnitude % 60).padStart(2, '0')}`;
}
