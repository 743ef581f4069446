import type { MeterIdentity, ObisValue, Reading } from '../../reading/reading.js';
import { QUANTITY_BY_OBIS } from '../../reading/quantities.js';
import { toCanonical } from '../../reading/units.js';
import type { ObisAddress } from './obis-address.js';
import type { D0Object, D0Readout } from './parser.js';

/**
 * D0 readout -> Reading. Only current values of electricity quantities become values: medium A = 1
 * or omitted (reduced codes `C.D.E`), C = 1..92 (IEC 62056-6-1 electricity quantities; 0 is general
 * purpose, 96..99 are service/error/list/profile entries), all of C, D, E present, and no billing
 * period (F absent or 255). Two-group codes such as a heat meter's `6.8` are not electricity and stay
 * in the readout only.
 */

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;
const CURRENT_VALUE = 255;

function isCurrent(obis: ObisAddress): boolean {
  return obis.f === undefined || obis.f === CURRENT_VALUE;
}

function electricityKey(obis: ObisAddress): string | undefined {
  if (obis.a !== undefined && obis.a !== 1) return undefined;
  if (obis.c < 1 || obis.c > 92 || obis.d === undefined || obis.e === undefined) return undefined;
  return isCurrent(obis) ? `${obis.c}.${obis.d}.${obis.e}` : undefined;
}

/**
 * The value in canonical units. A value without unit is taken to be in the quantity's canonical
 * unit (EMH eHZ sends `1-0:1.8.1*255(032942.0231)` in kWh); a unit that converts to a different
 * canonical unit than the quantity's means the code is not that quantity (wrong medium).
 */
function canonicalValue(key: string, object: D0Object): ObisValue | undefined {
  const first = object.values[0];
  if (!first || !NUMBER.test(first.value)) return undefined;
  const number = Number(first.value);
  const expectedUnit = QUANTITY_BY_OBIS.get(key)?.unit;
  if (first.unit === '') return { value: number, unit: expectedUnit ?? '' };
  const value = toCanonical(number, first.unit);
  if (expectedUnit !== undefined && value.unit !== expectedUnit) return undefined;
  return value;
}

/** Service entries that identify the meter or its state (current values of channel 0 only). */
interface ServiceEntries {
  /** 0.0.0: device address (the id the utility programs). */
  deviceAddress?: string;
  /** 96.1.0 = C.1.0 (or reduced C.1): manufacturer's serial number. */
  serialNumber?: string;
  /** 96.14.0: current tariff, 1-based. */
  tariff?: number;
}

function noteServiceEntry(object: D0Object, entries: ServiceEntries): void {
  const { b, c, d, e } = object.obis;
  if ((b !== undefined && b !== 0) || (e !== undefined && e !== 0) || !isCurrent(object.obis)) return;
  if (c === 0 && d === 0) entries.deviceAddress ??= object.values[0]?.value || undefined;
  else if (c === 96 && d === 1) entries.serialNumber ??= object.values[0]?.value || undefined;
  else if (c === 96 && d === 14 && entries.tariff === undefined) {
    const tariff = Number.parseInt(object.values[0]?.value ?? '', 10);
    if (tariff > 0) entries.tariff = tariff;
  }
}

function identityOf(readout: D0Readout, entries: ServiceEntries): MeterIdentity {
  const identity: MeterIdentity = {};
  if (readout.identification) {
    identity.prefix = readout.identification.prefix;
    if (readout.identification.model) identity.model = readout.identification.model;
  }
  const id = entries.deviceAddress ?? entries.serialNumber;
  if (id !== undefined) identity.id = id;
  return identity;
}

export function d0ReadoutToReading(readout: D0Readout, receivedAt: number): Reading {
  const values = new Map<string, ObisValue>();
  const entries: ServiceEntries = {};
  for (const object of readout.objects) {
    const key = electricityKey(object.obis);
    if (key === undefined) {
      noteServiceEntry(object, entries);
    } else if (!values.has(key)) {
      const value = canonicalValue(key, object);
      if (value) values.set(key, value);
    }
  }
  const reading: Reading = {
    receivedAt,
    protocol: 'IEC62056-21',
    identity: identityOf(readout, entries),
    values,
    mbus: [],
  };
  if (entries.tariff !== undefined) reading.tariff = entries.tariff;
  return reading;
}
