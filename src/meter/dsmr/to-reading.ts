import { QUANTITY_BY_OBIS } from '../../reading/quantities.js';
import type { DemandRegisters, MeterIdentity, ObisValue, Reading } from '../../reading/reading.js';
import { identifierText, MbusChannels, mbusCodeKind, type ObjectReference } from './mbus-channels.js';
import type { DsmrHeader, DsmrObject, DsmrTelegram, DsmrValue } from './telegram.js';
import { readDsmrProfile } from './profile.js';
import { conversionOf, convert, type Conversion } from '../../reading/units.js';
import { isShortNumber } from './values.js';
import { vendorOfFlag } from './vendors.js';

/**
 * DsmrTelegram -> Reading. Electricity objects 1-B:C.D.E (any channel B, first occurrence wins)
 * become values keyed C.D.E in canonical units; M-Bus channels 0-n:24.x become `mbus`.
 */
export function dsmrToReading(telegram: DsmrTelegram, receivedAt: number): Reading {
  const builder = new DsmrReadingBuilder();
  for (const object of telegram.objects) {
    builder.add(readingRoleOf(object.medium, object.channel, object.code), object, object.values);
  }
  return builder.finish(telegram.header, receivedAt);
}

/** Values of the 0-0 / 1-3 objects the identity, clock and tariff come from (first occurrence of each). */
class GeneralObjects {
  clock: readonly DsmrValue[] | undefined = undefined;
  tariff: readonly DsmrValue[] | undefined = undefined;
  equipmentId: readonly DsmrValue[] | undefined = undefined;
  serialNumber: readonly DsmrValue[] | undefined = undefined;
  version: readonly DsmrValue[] | undefined = undefined;
  belgianVersion: readonly DsmrValue[] | undefined = undefined;
  logicalName: readonly DsmrValue[] | undefined = undefined;
  demandHistory: readonly DsmrValue[] | undefined = undefined;
}

/** What a data object is to the Reading; depends on its OBIS reference only. */
export type ReadingRole = 'ignored' | 'electricity' | 'mbusDevice' | 'mbusReading' | keyof GeneralObjects;

/** 0-0:C.D.E objects of the identity, clock and tariff (DSMR 5.0.2 §6.12). */
const GENERAL_ROLES: ReadonlyMap<string, keyof GeneralObjects> = new Map([
  ['1.0.0', 'clock'],
  ['96.14.0', 'tariff'],
  ['96.1.1', 'equipmentId'],
  ['96.1.0', 'serialNumber'],
  ['96.1.4', 'belgianVersion'],
  ['42.0.0', 'logicalName'],
  // Belgian eMUCS P1: the 13 monthly maximum demands (profile of 1-0:1.6.0 time and value).
  ['98.1.0', 'demandHistory'],
]);

export function readingRoleOf(medium: number, channel: number, code: string): ReadingRole {
  if (medium === 1) {
    // DSMR 5.0.2 §6.12: version 1-3:0.2.8.
    if (channel === 3 && code === '0.2.8') return 'version';
    return isMeasurement(code) ? 'electricity' : 'ignored';
  }
  if (medium === 0 && channel !== 0) {
    const kind = mbusCodeKind(code);
    return kind === 'device' ? 'mbusDevice' : kind === 'reading' ? 'mbusReading' : 'ignored';
  }
  if (medium === 0) return GENERAL_ROLES.get(code) ?? 'ignored';
  return 'ignored';
}

/**
 * Electricity group C values that are not measurements: 0 (identification, version, settings),
 * 96 (service), 97 (errors), 98 (billing), 99 (profiles).
 */
function isMeasurement(code: string): boolean {
  const c0 = code.charCodeAt(0);
  const c1 = code.charCodeAt(1);
  if (c0 === 0x30 && c1 === 0x2e) return false;
  return !(c0 === 0x39 && c1 >= 0x36 && c1 <= 0x39 && code.charCodeAt(2) === 0x2e);
}

/** Collects the data objects of one telegram, in telegram order, into a Reading. */
export class DsmrReadingBuilder {
  readonly values = new Map<string, ObisValue>();
  private readonly channels = new MbusChannels();
  private readonly general = new GeneralObjects();
  /** 1-0:1.6.0(time)(value): the time of this month's maximum demand. */
  private monthPeakAt: string | undefined;

  /** One data object: its reference (channel, code) and values, and its role (readingRoleOf). */
  add(role: ReadingRole, object: ObjectReference, values: readonly DsmrValue[]): void {
    if (role === 'electricity') {
      if (this.values.has(object.code)) return;
      if (object.code === '1.6.0') this.monthPeakAt = values.find((value) => value.timestamp)?.timestamp;
      for (const measured of values) {
        if (measured.value === undefined) continue;
        this.addElectricityValue(object.code, measured.value, measured.unit);
        return;
      }
    } else if (role === 'mbusDevice' || role === 'mbusReading') this.channels.add(object, values);
    else if (role !== 'ignored') this.general[role] ??= values;
  }

  /** The first numeric value of the first electricity object with this code. */
  addElectricityValue(code: string, value: number, unit: string | undefined): void {
    const conversion = conversionFor(code, unit);
    if (conversion === undefined) return;
    this.values.set(code, { value: convert(value, conversion), unit: conversion.unit });
  }

  finish(header: DsmrHeader, receivedAt: number): Reading {
    const general = this.general;
    const reading: Reading = {
      receivedAt,
      protocol: 'DSMR',
      identity: identityOf(header, general),
      values: this.values,
      mbus: this.channels.readings(),
    };
    const clock = general.clock?.[0]?.timestamp;
    if (clock !== undefined) reading.meterTime = clock;
    const tariff = general.tariff?.[0]?.raw;
    if (tariff !== undefined && isShortNumber(tariff, 4)) reading.tariff = Number(tariff);
    const demand = demandOf(this.monthPeakAt, general.demandHistory);
    if (demand) reading.demand = demand;
    return reading;
  }
}

/** The maximum demand registers: 1-0:1.6.0's time and the 0-0:98.1.0 months (empty `(0)()`: none). */
function demandOf(
  monthPeakAt: string | undefined,
  history: readonly DsmrValue[] | undefined,
): DemandRegisters | undefined {
  if (monthPeakAt === undefined && history === undefined) return undefined;
  const demand: DemandRegisters = {};
  if (monthPeakAt !== undefined) demand.monthPeakAt = monthPeakAt;
  const profile = history && readDsmrProfile({ values: [...history] } as DsmrObject);
  if (profile) {
    demand.months = profile.entries.map((entry) => {
      const [at, value] = entry.values;
      const month: NonNullable<DemandRegisters['months']>[number] = {};
      if (entry.timestamp !== undefined) month.month = entry.timestamp;
      if (at?.timestamp !== undefined) month.at = at.timestamp;
      const kw =
        value?.value === undefined
          ? undefined
          : value.unit?.toLowerCase() === 'w'
            ? value.value / 1000
            : value.value;
      if (kw !== undefined) month.kw = kw;
      return month;
    });
  }
  return demand;
}

function identityOf(header: DsmrHeader, general: GeneralObjects): MeterIdentity {
  const prefix = header.flag.toUpperCase();
  const identity: MeterIdentity = { prefix };
  const vendor = vendorOfFlag(prefix);
  if (vendor !== undefined) identity.vendor = vendor;
  if (header.model !== '') identity.model = header.model;
  const id = identifierText(general.equipmentId) ?? identifierText(general.serialNumber);
  if (id !== undefined) identity.id = id;
  // DSMR 5.0.2 §6.12: version 1-3:0.2.8; Belgian eMUCS sends 0-0:96.1.4 instead.
  const version = identifierText(general.version) ?? identifierText(general.belgianVersion);
  if (version !== undefined) identity.protocolVersion = version;
  const logicalName = identifierText(general.logicalName);
  if (logicalName !== undefined) identity.logicalName = logicalName;
  return identity;
}

/**
 * A value without unit is in the unit DSMR 5.0.2 §6.12 fixes for its object (the quantity table's
 * canonical unit). A unit that does not fit the quantity of the OBIS code (kVA on 1.7.0) drops it:
 * undefined.
 */
export function conversionFor(code: string, unit: string | undefined): Conversion | undefined {
  const quantity = QUANTITY_BY_OBIS.get(code);
  if (unit === undefined) return { unit: quantity?.unit ?? '', factor: 1 };
  const conversion = conversionOf(unit);
  if (quantity !== undefined && conversion.unit !== quantity.unit) return undefined;
  return conversion;
}
