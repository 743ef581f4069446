import type { MeterIdentity, ObisValue, Reading } from '../../reading/reading.js';
import { QUANTITY_BY_OBIS } from '../../reading/quantities.js';
import { conversionOf, convert, toCanonical, type Conversion } from '../../reading/units.js';
import type { D0Identification } from './identification.js';
import type { ObisAddress } from './obis-address.js';
import type { D0Object, D0Readout, D0Value } from './parser.js';

/**
 * D0 readout -> Reading. Only current values of electricity quantities become values: medium A = 1
 * or omitted (reduced codes `C.D.E`), C = 1..92 (IEC 62056-6-1 electricity quantities; 0 is general
 * purpose, 96..99 are service/error/list/profile entries), all of C, D, E present, and no billing
 * period (F absent or 255). Two-group codes such as a heat meter's `6.8` are not electricity and stay
 * in the readout only.
 *
 * Which data sets feed the Reading depends only on addresses, units and the shape of the values
 * (readingSourcesOf), not on their digits.
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

/** A data set whose first value is the Reading value of `key`. */
export interface D0ValueSource {
  key: string;
  object: D0Object;
  /** The quantity's canonical unit, when the quantity table knows the key. */
  expectedUnit: string | undefined;
}

/** The data sets a Reading is built from, in readout order. */
export interface D0ReadingSources {
  values: D0ValueSource[];
  /** Data set whose first value is the meter id: 0.0.0 (device address), else 96.1.0 (serial number). */
  id: D0Object | undefined;
  /** Current tariff (96.14.0) data sets; the first whose value is a number > 0 gives the tariff. */
  tariffs: D0Object[];
}

/**
 * A first value that is a number and, with its unit, the quantity of its key. A value without unit
 * is taken to be in the quantity's canonical unit (EMH eHZ sends `1-0:1.8.1*255(032942.0231)` in
 * kWh); a unit that converts to a different canonical unit than the quantity's means the code is
 * not that quantity (wrong medium).
 */
function isQuantityValue(first: D0Value | undefined, expectedUnit: string | undefined): boolean {
  if (!first || !NUMBER.test(first.value)) return false;
  return first.unit === '' || expectedUnit === undefined || toCanonical(0, first.unit).unit === expectedUnit;
}

/**
 * How the first value of `source` becomes canonical: by its unit (toCanonical), or, sent without
 * one, as a value in the quantity's unit.
 */
export function conversionOfSource(source: D0ValueSource): Conversion {
  const unit = source.object.values[0]!.unit;
  return unit === '' ? { unit: source.expectedUnit ?? '', factor: 1 } : conversionOf(unit);
}

/** The first value of `source`, read as `number`, in canonical units. */
export function sourceValue(source: D0ValueSource, number: number): ObisValue {
  const conversion = conversionOfSource(source);
  return { value: convert(number, conversion), unit: conversion.unit };
}

/** Service entries that identify the meter or its state (current values of channel 0 only). */
interface ServiceEntries {
  /** 0.0.0: device address (the id the utility programs). */
  deviceAddress?: D0Object;
  /** 96.1.0 = C.1.0 (or reduced C.1): manufacturer's serial number. */
  serialNumber?: D0Object;
  /** 96.14.0: current tariff, 1-based. */
  tariffs: D0Object[];
}

function noteServiceEntry(object: D0Object, entries: ServiceEntries): void {
  const { b, c, d, e } = object.obis;
  if ((b !== undefined && b !== 0) || (e !== undefined && e !== 0) || !isCurrent(object.obis)) return;
  const named = object.values[0]?.value ? object : undefined;
  if (c === 0 && d === 0) entries.deviceAddress ??= named;
  else if (c === 96 && d === 1) entries.serialNumber ??= named;
  else if (c === 96 && d === 14) entries.tariffs.push(object);
}

export function readingSourcesOf(objects: readonly D0Object[]): D0ReadingSources {
  const values: D0ValueSource[] = [];
  const keys = new Set<string>();
  const entries: ServiceEntries = { tariffs: [] };
  for (const object of objects) {
    const key = electricityKey(object.obis);
    if (key === undefined) {
      noteServiceEntry(object, entries);
    } else if (!keys.has(key)) {
      const expectedUnit = QUANTITY_BY_OBIS.get(key)?.unit;
      if (!isQuantityValue(object.values[0], expectedUnit)) continue;
      keys.add(key);
      values.push({ key, object, expectedUnit });
    }
  }
  return { values, id: entries.deviceAddress ?? entries.serialNumber, tariffs: entries.tariffs };
}

/** A tariff data set's value as a 1-based tariff; undefined when it is none. */
export function tariffOf(value: string): number | undefined {
  const tariff = Number.parseInt(value, 10);
  return tariff > 0 ? tariff : undefined;
}

export function d0IdentityOf(
  identification: D0Identification | undefined,
  id: string | undefined,
): MeterIdentity {
  if (identification?.model && id !== undefined) {
    return { prefix: identification.prefix, model: identification.model, id };
  }
  const identity: MeterIdentity = {};
  if (identification) {
    identity.prefix = identification.prefix;
    if (identification.model) identity.model = identification.model;
  }
  if (id !== undefined) identity.id = id;
  return identity;
}

export function d0Reading(
  receivedAt: number,
  identity: MeterIdentity,
  values: ReadonlyMap<string, ObisValue>,
  tariff: number | undefined,
): Reading {
  const reading: Reading = { receivedAt, protocol: 'IEC62056-21', identity, values, mbus: [] };
  if (tariff !== undefined) reading.tariff = tariff;
  return reading;
}

export function d0ReadoutToReading(readout: D0Readout, receivedAt: number): Reading {
  const sources = readingSourcesOf(readout.objects);
  const values = new Map<string, ObisValue>();
  for (const source of sources.values) {
    values.set(source.key, sourceValue(source, Number(source.object.values[0]!.value)));
  }
  let tariff: number | undefined;
  for (let k = 0; k < sources.tariffs.length && tariff === undefined; k++) {
    tariff = tariffOf(sources.tariffs[k]!.values[0]?.value ?? '');
  }
  const identity = d0IdentityOf(readout.identification, sources.id?.values[0]!.value);
  return d0Reading(receivedAt, identity, values, tariff);
}
