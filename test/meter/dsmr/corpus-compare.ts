import assert from 'node:assert/strict';
import { readDsmrProfile } from '../../../src/meter/dsmr/profile.js';
import type { DsmrObject, DsmrTelegram, DsmrValue } from '../../../src/meter/dsmr/telegram.js';
import { toCanonical } from '../../../src/reading/units.js';
import type { ExpectedEntry, ExpectedProfileEntry } from './corpus-cases.js';

/**
 * Compares one entry of an X.expected.json "expected" block with the parsed telegram. The corpus
 * records what each source test asserted, in that parser's types: "decimal" / "json-number" are
 * numbers, "str" / "raw-string" the text as sent, "datetime" an instant, "none" an empty value,
 * "entries" a profile buffer; untyped entries (esphome) hold numbers or text.
 */
export function assertExpectedEntry(
  telegram: DsmrTelegram,
  obis: string,
  entry: ExpectedEntry,
  where: string,
): void {
  const object = telegram.objects.find((o) => o.obis === obis);
  assert.ok(object, `${where}: ${obis} not parsed`);
  const at = `${where} ${obis}`;
  if (entry.channel !== undefined) assert.equal(object.channel, entry.channel, `${at} channel`);
  if (entry.raw !== undefined) return assert.equal(object.line.slice(obis.length), entry.raw, `${at} raw`);
  if (entry.entries !== undefined || entry.buffer_length !== undefined)
    return assertProfile(object, entry, at);
  if (entry.esphome_average_kW !== undefined) return assertAveragePeak(object, entry.esphome_average_kW, at);
  if (entry.timestamp !== undefined) assert.equal(object.values[0]?.raw, entry.timestamp, `${at} timestamp`);
  if (entry.datetime !== undefined)
    assertInstant(object.values[0]?.timestamp, entry.datetime, `${at} datetime`);
  if (!('value' in entry)) return;
  switch (entry.type) {
    case 'decimal':
    case 'json-number':
    case 'int':
      return assertNumber(object, entry, at);
    case 'datetime':
      return assertInstant(object.values[0]?.timestamp, String(entry.value), at);
    case 'none':
      return assert.equal(object.values[0]?.raw, '', `${at} empty`);
    case 'raw-string':
      return assertRawPair(object.values[0], String(entry.value), entry.unit ?? null, at);
    case 'str':
      if (ISO_INSTANT.test(String(entry.value)))
        return assertInstant(object.values[0]?.timestamp, String(entry.value), at);
      return assert.equal(object.values[0]?.raw, entry.value, at);
    default:
      return assertUntyped(object, entry, at);
  }
}

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/;

/** The value a numeric assertion refers to: the last numeric one (after timestamps, DSMR 3 gas). */
export function measuredValue(object: DsmrObject): DsmrValue | undefined {
  return object.values.findLast((v) => v.value !== undefined);
}

/** Unit of the measured value; DSMR 3 0-n:24.3.0 names it in the value before "(m3)". */
function measuredUnit(object: DsmrObject, measured: DsmrValue): string | undefined {
  if (measured.unit !== undefined || object.code !== '24.3.0') return measured.unit;
  return object.values[object.values.indexOf(measured) - 1]?.raw;
}

function assertNumber(object: DsmrObject, entry: ExpectedEntry, at: string): void {
  const measured = measuredValue(object);
  assert.ok(measured, `${at}: no numeric value in ${object.line}`);
  assert.equal(measured.value, Number(entry.value), `${at} value`);
  if ('unit' in entry) assert.equal(measuredUnit(object, measured) ?? null, entry.unit, `${at} unit`);
}

export function assertInstant(actual: string | undefined, expected: string | null, at: string): void {
  if (expected === null) return assert.equal(actual, undefined, `${at}: expected no timestamp`);
  assert.ok(actual, `${at}: no timestamp`);
  assert.equal(Date.parse(actual), Date.parse(expected), `${at}: ${actual} is not the instant ${expected}`);
}

/** amshan asserts (number text, unit) pairs as sent. */
export function assertRawPair(
  value: DsmrValue | undefined,
  text: string,
  unit: string | null,
  at: string,
): void {
  assert.ok(value, `${at}: missing value`);
  const star = value.raw.indexOf('*');
  assert.equal(star < 0 ? value.raw : value.raw.slice(0, star), text, `${at} text`);
  assert.equal(star < 0 ? null : value.raw.slice(star + 1), unit, `${at} unit`);
}

function assertUntyped(object: DsmrObject, entry: ExpectedEntry, at: string): void {
  const expected = entry.value;
  const measured = measuredValue(object);
  const numeric =
    typeof expected === 'number' || (typeof expected === 'string' && /^-?\d+(\.\d+)?$/.test(expected));
  if (numeric && measured !== undefined && !/^\d{12}[SW]$/.test(String(expected))) {
    assert.equal(measured.value, Number(expected), `${at} value`);
    if (entry.unit !== undefined)
      assert.equal(measuredUnit(object, measured) ?? null, entry.unit, `${at} unit`);
    return;
  }
  assert.equal(object.values[0]?.raw, expected, `${at} text`);
}

function assertProfile(object: DsmrObject, entry: ExpectedEntry, at: string): void {
  const profile = readDsmrProfile(object);
  assert.ok(profile, `${at}: not read as a profile buffer`);
  const expectedEntries = entry.entries ?? [];
  if (entry.buffer_length !== undefined) assert.equal(profile.count, entry.buffer_length, `${at} count`);
  if (entry.buffer_type !== undefined)
    assert.equal(profile.captured[0] || null, entry.buffer_type, `${at} type`);
  assert.equal(profile.entries.length, expectedEntries.length, `${at} entries`);
  expectedEntries.forEach((expected: ExpectedProfileEntry, n) => {
    const actual = profile.entries[n]!;
    if (expected.datetime !== undefined)
      assertInstant(actual.timestamp, expected.datetime, `${at}[${n}] datetime`);
    if (expected.occurred !== undefined) {
      assertInstant(actual.values[0]?.timestamp, expected.occurred, `${at}[${n}] occurred`);
    }
    const measured = actual.values[actual.values.length - 1];
    const value = expected.value === null ? undefined : Number(expected.value);
    assert.equal(measured?.value, value, `${at}[${n}] value`);
    assert.equal(measured?.unit ?? null, expected.unit, `${at}[${n}] unit`);
  });
}

/** esphome's mean peak: integer milli-kW values, averaged with truncating integer division. */
export function esphomeMeanPeak(peaks: readonly { value?: number; unit?: string }[]): number {
  const milli = peaks.map((peak) => {
    const kw = toCanonical(peak.value!, peak.unit);
    assert.equal(kw.unit, 'kW', `peak unit ${peak.unit}`);
    return Math.round(kw.value * 1000);
  });
  return Math.trunc(milli.reduce((sum, v) => sum + v, 0) / milli.length);
}

/** esphome reports the mean of a 0-0:98.1.0 peak history in kW (entries may mix kW and W). */
function assertAveragePeak(object: DsmrObject, expectedKw: string, at: string): void {
  const profile = readDsmrProfile(object);
  assert.ok(profile && profile.entries.length > 0, `${at}: no peaks`);
  const mean = esphomeMeanPeak(profile.entries.map((e) => e.values[e.values.length - 1]!));
  assert.equal(mean, Math.round(Number(expectedKw) * 1000), `${at} mean peak`);
}
