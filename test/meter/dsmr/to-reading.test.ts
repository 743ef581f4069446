import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDsmrTelegram } from '../../../src/meter/dsmr/parser.js';
import { dsmrToReading } from '../../../src/meter/dsmr/to-reading.js';
import { valuesOf, type Reading } from '../../../src/reading/reading.js';
import { requireCorpus } from '../../helpers/environment.js';
import { corpusFile } from './corpus-cases.js';

const readingOf = (text: string | Buffer) => dsmrToReading(parseDsmrTelegram(text), 1234);
const telegram = (header: string, lines: string) => `/${header}\r\n\r\n${lines}!\r\n`;

test('ndokter_v5.txt becomes exactly this Reading', (t) => {
  if (!requireCorpus(t)) return;
  const expected: Reading = {
    receivedAt: 1234,
    protocol: 'DSMR',
    identity: {
      prefix: 'ISK',
      vendor: 'Iskraemeco',
      model: 'MT382-1000',
      id: 'K8EG004046395507',
      protocolVersion: '50',
    },
    values: valuesOf({
      '1.8.1': [4.426, 'kWh'],
      '1.8.2': [2.399, 'kWh'],
      '2.8.1': [2.444, 'kWh'],
      '2.8.2': [0, 'kWh'],
      '1.7.0': [0.244, 'kW'],
      '2.7.0': [0, 'kW'],
      '32.32.0': [0, ''],
      '52.32.0': [0, ''],
      '72.32.0': [0, ''],
      '32.36.0': [0, ''],
      '52.36.0': [0, ''],
      '72.36.0': [0, ''],
      '32.7.0': [230, 'V'],
      '52.7.0': [230, 'V'],
      '72.7.0': [229, 'V'],
      '31.7.0': [0.48, 'A'],
      '51.7.0': [0.44, 'A'],
      '71.7.0': [0.86, 'A'],
      '21.7.0': [0.07, 'kW'],
      '41.7.0': [0.032, 'kW'],
      '61.7.0': [0.142, 'kW'],
      '22.7.0': [0, 'kW'],
      '42.7.0': [0, 'kW'],
      '62.7.0': [0, 'kW'],
    }),
    mbus: [
      {
        bus: 1,
        meterId: '2222ABCD123456789',
        deviceType: 3,
        dateTime: '2017-01-02T16:10:05+01:00',
        cumulative: 0.107,
        unit: 'm3',
      },
      { bus: 2, deviceType: 3 },
    ],
    meterTime: '2017-01-02T19:20:02+01:00',
    tariff: 2,
  };
  const actual = readingOf(corpusFile('ndokter_v5.txt'));
  assert.deepStrictEqual(actual, expected);
  assert.deepStrictEqual([...actual.values.keys()], [...expected.values.keys()], 'telegram order kept');
});

test('units become canonical: Austrian Wh/W/varh, Swedish kVAr spelling, dm3', () => {
  const austrian = readingOf(
    telegram(
      'EST5\\253710000_A',
      '1-0:1.8.0(006545766*Wh)\r\n1-0:1.7.0(000000286*W)\r\n1-0:3.8.0(000000747*varh)\r\n',
    ),
  );
  assert.deepEqual(
    austrian.values,
    valuesOf({ '1.8.0': [6545.766, 'kWh'], '1.7.0': [0.286, 'kW'], '3.8.0': [0.747, 'kvarh'] }),
  );
  const swedish = readingOf(
    telegram('LGF5E360', '1-0:3.8.0(00000518.309*kVArh)\r\n1-0:4.7.0(0000.308*kVAr)\r\n'),
  );
  assert.deepEqual(swedish.values, valuesOf({ '3.8.0': [518.309, 'kvarh'], '4.7.0': [0.308, 'kvar'] }));
  assert.deepEqual(swedish.identity, { prefix: 'LGF', vendor: 'Landis+Gyr', model: 'E360' });
});

test('a missing unit is the quantity unit; a contradicting unit drops the value; first occurrence wins', () => {
  const reading = readingOf(
    telegram(
      'AAA5MTR',
      '1-0:1.7.0(00.123)\r\n1-0:2.7.0(00.318*kVA)\r\n1-1:31.4.0(040*A)\r\n1-0:31.4.0(050*A)\r\n1-0:99.97.0(0)()\r\n',
    ),
  );
  assert.deepEqual(reading.values, valuesOf({ '1.7.0': [0.123, 'kW'], '31.4.0': [40, 'A'] }));
});

test('identity: Belgian version 0-0:96.1.4, Hungarian serial 0-0:96.1.0 and logical device name', () => {
  const belgian = readingOf(
    telegram('FLU5\\253769484_A', '0-0:96.1.4(50217)\r\n0-0:96.1.1(3153414733313031303231363035)\r\n'),
  );
  assert.deepEqual(belgian.identity, {
    prefix: 'FLU',
    model: '53769484_A',
    id: '1SAG3101021605',
    protocolVersion: '50217',
  });
  const hungarian = readingOf(
    telegram(
      'SAG5SAG-METER',
      '0-0:42.0.0(53414733303832323030303032313630)\r\n0-0:96.1.0(383930303832323030303032313630)\r\n',
    ),
  );
  assert.deepEqual(hungarian.identity, {
    prefix: 'SAG',
    vendor: 'Sagemcom',
    model: 'SAG-METER',
    id: '890082200002160',
    logicalName: 'SAG3082200002160',
  });
});

test('M-Bus channels: DSMR 3 gas on its own line, Belgian 24.2.3 and water, unit-less gas', () => {
  const dsmr3 = readingOf(
    telegram(
      'ISk5\\2MT382-1000',
      '0-1:24.1.0(3)\r\n0-1:96.1.0(000000000000)\r\n0-1:24.3.0(161107190000)(00)(60)(1)(0-1:24.2.1)(m3)\r\n(00001.001)\r\n',
    ),
  );
  assert.deepEqual(dsmr3.mbus, [
    {
      bus: 1,
      meterId: '000000000000',
      deviceType: 3,
      dateTime: '2016-11-07T19:00:00',
      cumulative: 1.001,
      unit: 'm3',
    },
  ]);
  const belgian = readingOf(
    telegram(
      'FLU5\\253769484_A',
      '0-2:24.1.0(007)\r\n0-2:24.2.1(200512134558S)(00872.234*m3)\r\n0-1:24.1.0(003)\r\n0-1:24.2.3(200512134558S)(00112.384*m3)\r\n',
    ),
  );
  assert.deepEqual(belgian.mbus, [
    { bus: 1, deviceType: 3, dateTime: '2020-05-12T13:45:58+02:00', cumulative: 112.384, unit: 'm3' },
    { bus: 2, deviceType: 7, dateTime: '2020-05-12T13:45:58+02:00', cumulative: 872.234, unit: 'm3' },
  ]);
  const unitless = readingOf(
    telegram('ISK5\\2M550T-1012', '0-1:24.1.0(003)\r\n0-1:24.2.1(700101010000W)(00000000)\r\n'),
  );
  assert.deepEqual(unitless.mbus, [
    { bus: 1, deviceType: 3, dateTime: '1970-01-01T01:00:00+01:00', cumulative: 0, unit: 'm3' },
  ]);
  const heat = readingOf(
    telegram('NWA-WARMTELINK', '0-1:24.1.0(004)\r\n0-1:24.2.1(260215200523W)(00000240)\r\n'),
  );
  assert.deepEqual(heat.mbus, [
    { bus: 1, deviceType: 4, dateTime: '2026-02-15T20:05:23+01:00', cumulative: 240 },
  ]);
});

test('clock and tariff: invalid clock and non-numeric tariff are left out', () => {
  const reading = readingOf(
    telegram('ABC5 t', '0-0:1.0.0(632525252525W)\r\n0-0:96.14.0(xx)\r\n1-0:1.8.1(1*kWh)\r\n'),
  );
  assert.equal(reading.meterTime, undefined);
  assert.equal(reading.tariff, undefined);
  assert.equal(readingOf(telegram('ABC5 t', '0-0:96.14.0(0003)\r\n')).tariff, 3);
});
