import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MeterDataError } from '../../../src/meter/decoder.js';
import { dlmsUnit } from '../../../src/meter/sml/dlms-units.js';
import { parseSmlFrame } from '../../../src/meter/sml/parser.js';
import { smlFrameToReading } from '../../../src/meter/sml/to-reading.js';
import { withDerivedValues } from '../../../src/reading/derive.js';
import type { Reading } from '../../../src/reading/reading.js';
import { toCanonical } from '../../../src/reading/units.js';
import {
  closeResponse,
  getListResponse,
  i,
  list,
  octets,
  openResponse,
  u,
  type EntrySpec,
  type Tl,
} from './sml-builder.js';

const NO_ID = Buffer.alloc(0);

function readingOf(serverId: Buffer, entries: EntrySpec[], sensorTime: Tl = null, withOpen = true): Reading {
  const messages = Buffer.concat([
    ...(withOpen ? [openResponse(serverId)] : []),
    getListResponse(serverId, entries, sensorTime),
    closeResponse(),
  ]);
  return smlFrameToReading(parseSmlFrame(messages, { messageCrc: 'require' }), 42);
}

const obis = (text: string): number[] => text.split(/[-:.*]/).map(Number);

test('values: scaler applied, DLMS units converted to canonical units, signed values kept', () => {
  const reading = readingOf(NO_ID, [
    { obis: obis('1-0:1.8.0*255'), unit: 30, scaler: -1, value: u(54301577, 4) },
    { obis: obis('1-0:2.8.0*255'), unit: 30, scaler: 3, value: u(12, 1) },
    { obis: obis('1-0:16.7.0*255'), unit: 27, scaler: -2, value: i(-29912, 2) },
    { obis: obis('1-0:36.7.0*255'), unit: 27, scaler: 0, value: i(-5, 3) },
    { obis: obis('1-0:56.7.0*255'), unit: 27, value: i(250, 8) },
    { obis: obis('1-0:32.7.0*255'), unit: 35, scaler: -1, value: u(2301, 2) },
    { obis: obis('1-0:31.7.0*255'), unit: 33, scaler: -2, value: u(157, 2) },
    { obis: obis('1-0:14.7.0*255'), unit: 44, scaler: -1, value: u(499, 2) },
    { obis: obis('1-0:3.8.0*255'), unit: 32, value: u(1500, 4) },
    { obis: obis('1-0:3.7.0*255'), unit: 29, value: i(-120, 2) },
    { obis: obis('1-0:9.7.0*255'), unit: 28, value: u(2000, 2) },
    { obis: obis('1-0:81.7.4*255'), unit: 8, value: u(120, 2) },
    { obis: obis('1-0:96.5.0*255'), value: u(0x1a2, 4) },
  ]);
  assert.deepEqual(Object.fromEntries(reading.values), {
    '1.8.0': { value: 5430.1577, unit: 'kWh' },
    '2.8.0': { value: 12, unit: 'kWh' },
    '16.7.0': { value: -0.29912, unit: 'kW' },
    '36.7.0': { value: -0.005, unit: 'kW' },
    '56.7.0': { value: 0.25, unit: 'kW' },
    '32.7.0': { value: 230.1, unit: 'V' },
    '31.7.0': { value: 1.57, unit: 'A' },
    '14.7.0': { value: 49.9, unit: 'Hz' },
    '3.8.0': { value: 1.5, unit: 'kvarh' },
    '3.7.0': { value: -0.12, unit: 'kvar' },
    '9.7.0': { value: 2, unit: 'kVA' },
    '81.7.4': { value: 120, unit: '°' },
    '96.5.0': { value: 0x1a2, unit: '' },
  });
  const derived = withDerivedValues(reading).values;
  assert.deepEqual(derived.get('1.7.0'), { value: 0, unit: 'kW' });
  assert.deepEqual(derived.get('2.7.0'), { value: 0.29912, unit: 'kW' });
  assert.deepEqual(derived.get('22.7.0'), { value: 0.005, unit: 'kW' });
  assert.deepEqual(derived.get('41.7.0'), { value: 0.25, unit: 'kW' });
});

test('only numeric 1-0:C.D.E*255 entries become values', () => {
  const reading = readingOf(NO_ID, [
    { obis: obis('1-0:1.8.0*255'), unit: 30, value: u(1000, 2) },
    { obis: obis('1-0:1.8.1*96'), unit: 30, value: u(1, 2) },
    { obis: obis('1-1:1.8.2*255'), unit: 30, value: u(1, 2) },
    { obis: obis('0-0:96.1.255*255'), value: u(5, 2) },
    { obis: obis('1-0:96.50.2*4'), value: u(5, 2) },
    { obis: obis('129-129:199.130.3*255'), value: octets('EMH') },
    { obis: obis('1-0:96.90.2*255'), value: { bool: true } },
    { obis: [1, 0, 2, 8, 0], unit: 30, value: u(3, 1) },
  ]);
  assert.deepEqual([...reading.values.keys()], ['1.8.0']);
  assert.equal(reading.protocol, 'SML');
  assert.equal(reading.receivedAt, 42);
  assert.deepEqual(reading.mbus, []);
});

test('64-bit counters beyond 2^53: scaler and kWh conversion applied as one exact division', () => {
  const reading = readingOf(NO_ID, [
    { obis: obis('1-0:1.8.0*255'), unit: 30, scaler: -1, value: u(2n ** 60n, 8) },
  ]);
  assert.deepEqual(reading.values.get('1.8.0'), { value: Number(2n ** 60n) / 1e4, unit: 'kWh' });
});

test('scaled values equal toCanonical of the sent value for every DLMS unit code and scaler', () => {
  for (let code = 0; code <= 255; code++) {
    for (let scaler = -6; scaler <= 6; scaler++) {
      for (const raw of [1, -29912, 123456789012]) {
        const reading = readingOf(NO_ID, [
          { obis: obis('1-0:1.8.0*255'), unit: code, scaler, value: i(raw, 8) },
        ]);
        const sent = scaler < 0 ? raw / 10 ** -scaler : raw * 10 ** scaler;
        assert.deepEqual(
          reading.values.get('1.8.0'),
          toCanonical(sent, dlmsUnit(code)),
          `unit ${code} scaler ${scaler}`,
        );
      }
    }
  }
});

test('identity: DIN 43863-5 server ids, EMH and wireless M-Bus forms, text ids', () => {
  const dzg = readingOf(Buffer.from('0a01445a47000282225e', 'hex'), []);
  assert.deepEqual(dzg.identity, { id: '1DZG0042082910', prefix: 'DZG', vendor: 'DZG Metering' });
  // The EasyMeter Q3A of libsml-testing states 1ESY1162232997 as its own 1-0:0.0.0.
  const esy = readingOf(Buffer.from('09014553591103b599a5', 'hex'), []);
  assert.deepEqual(esy.identity, { id: '1ESY1162232997', prefix: 'ESY', vendor: 'EasyMeter' });
  const emh = readingOf(Buffer.from('06454d4801027156cd45', 'hex'), []);
  assert.deepEqual(emh.identity, { id: '06454d4801027156cd45', prefix: 'EMH', vendor: 'EMH metering' });
  const wmbus = readingOf(Buffer.from('01a815986480020102', 'hex'), []);
  assert.deepEqual(wmbus.identity, { id: '02806498', prefix: 'EMH', vendor: 'EMH metering' });
  const hager = readingOf(Buffer.from('1001185', 'latin1'), [
    { obis: obis('129-129:199.130.3*255'), value: octets('HAGER') },
  ]);
  assert.deepEqual(hager.identity, { id: '1001185', vendor: 'HAGER' });
  const unknown = readingOf(Buffer.from('ff0102', 'hex'), [
    { obis: obis('1-0:96.50.1*1'), value: octets('ABC') },
  ]);
  assert.deepEqual(unknown.identity, { id: 'ff0102', prefix: 'ABC' });
});

test('identity from list entries when the messages carry no server id', () => {
  const fromDeviceId = readingOf(
    NO_ID,
    [{ obis: obis('1-0:96.1.0*255'), value: octets(Buffer.from('0a0149534b00047a5544', 'hex')) }],
    null,
    false,
  );
  assert.deepEqual(fromDeviceId.identity, { id: '1ISK0075126084', prefix: 'ISK', vendor: 'Iskraemeco' });
  const fromOwnership = readingOf(
    NO_ID,
    [{ obis: obis('1-0:0.0.0*255'), value: octets('02280816') }],
    null,
    false,
  );
  assert.deepEqual(fromOwnership.identity, { id: '02280816' });
});

test('meter time from timestamp and localTimestamp; a second index is not a time', () => {
  const utc = readingOf(NO_ID, [], list(u(2, 1), u(1_700_000_000, 4)));
  assert.equal(utc.meterTime, '2023-11-14T22:13:20Z');
  const local = readingOf(NO_ID, [], list(u(3, 1), list(u(1_700_000_000, 4), i(60, 2), i(60, 2))));
  assert.equal(local.meterTime, '2023-11-15T00:13:20+02:00');
  const index = readingOf(NO_ID, [], list(u(1, 1), u(99043543, 4)));
  assert.equal(index.meterTime, undefined);
});

test('a frame without GetList.Res is a typed parse error', () => {
  const frame = parseSmlFrame(Buffer.concat([openResponse(NO_ID), closeResponse()]));
  assert.throws(
    () => smlFrameToReading(frame, 0),
    (error: unknown) => error instanceof MeterDataError && error.kind === 'parse',
  );
});
