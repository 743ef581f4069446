import assert from 'node:assert/strict';
import { checkDsmrCrc } from '../../../src/meter/dsmr/crc16-arc.js';
import { DsmrFramer } from '../../../src/meter/dsmr/framer.js';
import { parseDsmrTelegram } from '../../../src/meter/dsmr/parser.js';
import { readDsmrProfile } from '../../../src/meter/dsmr/profile.js';
import type { DsmrTelegram } from '../../../src/meter/dsmr/telegram.js';
import type { DecodeResult } from '../../../src/meter/decoder.js';
import type { Reading } from '../../../src/reading/reading.js';
import { esphomeMeanPeak } from './corpus-compare.js';

type Behaviour = (bytes: Buffer, results: DecodeResult[]) => void;

/**
 * What meter-gateway does with corpus edge files whose expected.json states a source parser's
 * behaviour rather than values. Where that parser rejects input this parser is built to tolerate
 * (esphome fails on a missing unit, a blank after the OBIS id, a duplicate), the decision here is
 * asserted instead, with the source's statement quoted.
 */
export const CORPUS_BEHAVIOUR: Record<string, Behaviour> = {
  // "esphome average of the 11 peaks == 3.642 kW"
  'edge/esphome_98_1_0_eleven_entries.txt': (bytes) => {
    const profile = readDsmrProfile(only(parseDsmrTelegram(bytes), '98.1.0'));
    assert.equal(profile?.entries.length, 11);
    assert.equal(esphomeMeanPeak(profile!.entries.map((e) => e.values[1]!)), 3642);
  },
  // "Parse succeeds (... every line is a known field)": every line is read, none is a problem.
  'edge/esphome_all_fields_kaifa.txt': (bytes, results) => {
    assert.deepEqual(parseDsmrTelegram(bytes).problems, []);
    const values = readingOf(results).values;
    assert.deepEqual(values.get('1.8.13'), { value: 25605.254, unit: 'kWh' });
    assert.deepEqual(values.get('16.24.0'), { value: -3.618, unit: 'kW' });
    assert.deepEqual(values.get('13.7.0'), { value: 0.998, unit: '' });
  },
  // "gas_delivered == 0.012 (m3) and frequency == 0.05 (its field unit is kHz)": Hz is kept.
  'edge/esphome_dm3_and_hz_integer.txt': (_bytes, results) => {
    const reading = readingOf(results);
    assert.equal(reading.mbus[0]?.cumulative, 0.012);
    assert.equal(reading.mbus[0]?.unit, 'm3');
    assert.deepEqual(reading.values.get('14.7.0'), { value: 50, unit: 'Hz' });
  },
  // "esphome parser fails: Duplicate field": here the duplicate is reported, the first one counts.
  'edge/esphome_duplicate_field.txt': (bytes, results) => {
    assert.deepEqual(
      parseDsmrTelegram(bytes).problems.map((p) => p.reason),
      ['duplicate OBIS reference'],
    );
    assert.deepEqual(readingOf(results).values.get('1.7.0'), { value: 0.1, unit: 'kW' });
  },
  // "Parse fails: OBIS id Empty": the line is reported; a telegram with no object is rejected.
  'edge/esphome_garbage_line.txt': (bytes, results) => {
    assert.deepEqual(parseDsmrTelegram(bytes).problems, [{ line: 'garbage', reason: 'no OBIS reference' }]);
    assertRejected(results, 'parse');
  },
  // "Accepted: energy_delivered_lux == 441.879 (kWh; 441879 Wh)"
  'edge/esphome_integer_wh.txt': (_bytes, results) => {
    assert.deepEqual(readingOf(results).values.get('1.8.0'), { value: 441.879, unit: 'kWh' });
  },
  // "returns the telegram ... CRC hex digits must be accepted case-insensitively"
  'edge/esphome_kfm5_mixed_case_crc.txt': (_bytes, results) => {
    assert.deepEqual(readingOf(results).values.get('1.7.0'), { value: 0.318, unit: 'kW' });
  },
  // "accepts it: power_delivered == 0.123 (kW)"
  'edge/esphome_lf_only.txt': (_bytes, results) => {
    assert.deepEqual(readingOf(results).values.get('1.7.0'), { value: 0.123, unit: 'kW' });
  },
  // "esphome parser fails: Missing unit": DSMR 5.0.2 §6.12 fixes kW for 1-0:1.7.0, so it is assumed.
  'edge/esphome_missing_unit.txt': (bytes, results) => {
    assert.equal(only(parseDsmrTelegram(bytes), '1.7.0').values[0]?.unit, undefined);
    assert.deepEqual(readingOf(results).values.get('1.7.0'), { value: 0.123, unit: 'kW' });
  },
  // "gas_delivered_text == ...(m3)\r\n(00124.477); message_long == the hex text with the two CRLFs"
  'edge/esphome_multiline_values.txt': (bytes, results) => {
    const telegram = parseDsmrTelegram(bytes);
    assert.equal(
      only(telegram, '24.3.0').line,
      '0-1:24.3.0(120517020000)(08)(60)(1)(0-1:24.2.1)(m3)\r\n(00124.477)',
    );
    const message = only(telegram, '96.13.0').values[0]!;
    assert.equal(message.raw.split('\r\n').length, 3);
    assert.equal(message.text, '0123456789:;<=>?'.repeat(5));
    assert.deepEqual(readingOf(results).mbus, [
      { bus: 1, dateTime: '2012-05-17T02:00:00', cumulative: 124.477, unit: 'm3' },
    ]);
  },
  // "Parse fails: Unexpected '(' symbol": kept as the text "0(0.123*kW)", not as a number.
  'edge/esphome_nested_parenthesis.txt': (bytes, results) => {
    assert.deepEqual(only(parseDsmrTelegram(bytes), '1.7.0').values, [{ raw: '0(0.123*kW)' }]);
    assert.equal(readingOf(results).values.has('1.7.0'), false);
  },
  // "Parse fails: Last dataline not CRLF terminated": '!' right after a value ends the data.
  'edge/esphome_no_crlf_before_end.txt': (bytes, results) => {
    assert.deepEqual(parseDsmrTelegram(bytes).problems, []);
    assert.deepEqual(readingOf(results).values.get('1.7.0'), { value: 0.123, unit: 'kW' });
  },
  // "Parse fails: Obis ID has number over 255"
  'edge/esphome_obis_over_255.txt': (bytes, results) => {
    assert.deepEqual(
      parseDsmrTelegram(bytes).problems.map((p) => p.reason),
      ['OBIS value group above 255'],
    );
    assertRejected(results, 'parse');
  },
  // "exactly 4 packets are delivered, each with content "/some !". Mismatch, bad hex char ... dropped"
  'edge/esphome_stream_crc_mix.txt': (bytes, results) => {
    const framer = new DsmrFramer();
    const frames = [...framer.push(bytes), ...framer.flush()].flatMap((e) => ('frame' in e ? [e.frame] : []));
    const verified = frames.filter((frame) => checkDsmrCrc(frame).kind === 'match');
    assert.deepEqual(
      verified.map((frame) => frame.subarray(0, 7).toString('latin1')),
      ['/some !', '/some !', '/some !', '/some !'],
    );
    assert.equal(results.filter((r) => !r.ok && r.error.kind === 'crc').length, 2);
    assert.equal(results.filter((r) => r.ok).length, 0, 'a telegram without data objects is no reading');
  },
  // "Parse fails: Trailing characters on data line": the value counts, the line is reported.
  'edge/esphome_trailing_chars.txt': (bytes, results) => {
    assert.deepEqual(parseDsmrTelegram(bytes).problems, [
      { line: '1-0:1.7.0(00.123*kW) trailing', reason: 'characters after the last value' },
    ]);
    assert.deepEqual(readingOf(results).values.get('1.7.0'), { value: 0.123, unit: 'kW' });
  },
  // "Accepted: energy_delivered_tariff1 == 1.000 (kWh)"
  'edge/esphome_unit_lowercase.txt': (_bytes, results) => {
    assert.deepEqual(readingOf(results).values.get('1.8.1'), { value: 1, unit: 'kWh' });
  },
  // "Parse fails with Missing (": a blank between OBIS id and '(' is tolerated.
  'edge/esphome_whitespace_after_obis.txt': (_bytes, results) => {
    assert.deepEqual(readingOf(results).mbus, [
      { bus: 1, dateTime: '2000-01-01T00:00:00+01:00', cumulative: 0 },
    ]);
  },
  // "esphome parser fails: Missing unit" (kVA on 1-0:1.7.0): a unit contradicting the OBIS quantity drops the value.
  'edge/esphome_wrong_unit.txt': (bytes, results) => {
    assert.equal(only(parseDsmrTelegram(bytes), '1.7.0').values[0]?.unit, 'kVA');
    assert.equal(readingOf(results).values.has('1.7.0'), false);
  },
  // "Parse succeeds; gas_delivered == 0.0."
  'edge/esphome_zero_value_no_unit.txt': (_bytes, results) => {
    assert.equal(readingOf(results).mbus[0]?.cumulative, 0);
  },
  // "unpadded CRC accepted as 0x0B9F"; heat in GJ
  'edge/ndokter_unpadded_crc.txt': (_bytes, results) => {
    const reading = readingOf(results);
    assert.deepEqual(reading.mbus, [
      {
        bus: 1,
        meterId: '621848012D2C0B0C',
        deviceType: 4,
        dateTime: '2026-02-15T20:05:23+01:00',
        cumulative: 240.86,
        unit: 'GJ',
      },
    ]);
  },
  // "raises ParseError (no checksum found)": the capture ends before the '!'.
  'edge/ndokter_v4_2_crc_missing.txt': (_bytes, results) => {
    assertRejected(results, 'parse');
    assert.match(results[0]!.ok ? '' : results[0]!.error.message, /before the telegram's '!' end/);
  },
  // "the invalid M-Bus timestamp is ignored; channel 1 MBUS_METER_READING value 0.000"
  'edge/ndokter_v5_gas_invalid_timestamp.txt': (_bytes, results) => {
    const gas = readingOf(results).mbus[0]!;
    assert.equal(gas.dateTime, undefined);
    assert.equal(gas.cumulative, 0);
  },
};

function only(telegram: DsmrTelegram, code: string) {
  const objects = telegram.objects.filter((o) => o.code === code);
  assert.equal(objects.length, 1, `one ${code} object`);
  return objects[0]!;
}

function readingOf(results: DecodeResult[]): Reading {
  const ok = results.filter((r) => r.ok);
  assert.equal(
    ok.length,
    1,
    `one reading, got ${results.map((r) => (r.ok ? 'ok' : r.error.message)).join('; ')}`,
  );
  return ok[0]!.reading;
}

function assertRejected(results: DecodeResult[], kind: string): void {
  assert.ok(
    results.length > 0 && results.every((r) => !r.ok && r.error.kind === kind),
    `rejected as ${kind}`,
  );
}
