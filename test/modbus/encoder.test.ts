import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toInteger } from '../../src/modbus-protocol/register-encodings.js';
import { encodeNumber, RegisterImage, scaleValue } from '../../src/modbus/encoder.js';
import type { NumericType, WordOrder } from '../../src/modbus/layout.js';
import { writeDateTime, type ValueSource } from '../../src/modbus/register-ids.js';
import { valuesOf } from '../../src/reading/reading.js';
import { syntheticReading } from './fixtures.js';

const hex = (text: string): Buffer => Buffer.from(text.replaceAll(' ', ''), 'hex');

function encoded(type: NumericType, order: WordOrder, value: number | undefined): string {
  const target = Buffer.alloc(8, 0xaa);
  encodeNumber(target, 0, type, order, value);
  const words = { short: 1, int: 2, float: 2, long: 4, double: 4 }[type];
  return target.subarray(0, words * 2).toString('hex');
}

test('scaling multiplies by 10^scaler without binary artefacts', () => {
  assert.equal(scaleValue(0.1, 3), 100);
  assert.equal(scaleValue(230.1, 1), 2301);
  assert.equal(scaleValue(1.234 - 0.412, 3), 822);
  assert.equal(scaleValue(12345, -3), 12.345);
  assert.equal(scaleValue(5, 0), 5);
  assert.equal(scaleValue(-0.0015, 6), -1500);
});

test('integers round half away from zero and saturate at the type limits', () => {
  assert.equal(toInteger(2.5, -10, 10), 3);
  assert.equal(toInteger(-2.5, -10, 10), -3);
  assert.equal(toInteger(2.4999, -10, 10), 2);
  assert.equal(toInteger(-0.4, -10, 10), 0);
  assert.equal(toInteger(NaN, -10, 10), 0);
  assert.equal(encoded('short', 'msw', 40000), '7fff');
  assert.equal(encoded('short', 'msw', -40000), '8000');
  assert.equal(encoded('short', 'msw', 32766.5), '7fff');
  assert.equal(encoded('int', 'msw', 3e9), '7fffffff');
  assert.equal(encoded('int', 'msw', -3e9), '80000000');
  assert.equal(encoded('int', 'msw', Infinity), '7fffffff');
  assert.equal(encoded('long', 'msw', 1e19), '7fffffffffffffff');
  assert.equal(encoded('long', 'msw', -1e19), '8000000000000000');
  assert.equal(encoded('long', 'msw', -(2 ** 63)), '8000000000000000');
  assert.equal(encoded('long', 'msw', 2 ** 63), '7fffffffffffffff');
});

test('every type in msw and lsw: big-endian bytes in a word, word order per set', () => {
  const cases: Array<[NumericType, number, string, string]> = [
    ['short', 0x1234, '1234', '1234'],
    ['short', -2, 'fffe', 'fffe'],
    ['int', 0x01020304, '01020304', '03040102'],
    ['int', -2, 'fffffffe', 'fffeffff'],
    ['float', 1.5, '3fc00000', '00003fc0'],
    ['float', -230.5, 'c3668000', '8000c366'],
    ['long', 0x0001020304050607, '0001020304050607', '0607040502030001'],
    ['long', -2, 'fffffffffffffffe', 'fffeffffffffffff'],
    ['double', 1.5, '3ff8000000000000', '0000000000003ff8'],
    ['double', -0.1, 'bfb999999999999a', '999a99999999bfb9'],
  ];
  for (const [type, value, msw, lsw] of cases) {
    assert.equal(encoded(type, 'msw', value), msw, `${type} ${value} msw`);
    assert.equal(encoded(type, 'lsw', value), lsw, `${type} ${value} lsw`);
  }
});

test('missing values: NaN in float and double, 0 in integers', () => {
  assert.equal(encoded('float', 'msw', undefined), '7fc00000');
  assert.equal(encoded('double', 'msw', undefined), '7ff8000000000000');
  assert.equal(encoded('double', 'lsw', undefined), '000000000000' + '7ff8');
  for (const type of ['short', 'int', 'long'] as const) assert.match(encoded(type, 'lsw', undefined), /^0+$/);
});

function withTimeZone(zone: string, run: () => void): void {
  const previous = process.env.TZ;
  process.env.TZ = zone;
  try {
    run();
  } finally {
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  }
}

function dateTimeOf(ms: number): string {
  const target = Buffer.alloc(8);
  writeDateTime(ms, target);
  return target.toString('hex');
}

test('date-time layout: year hi/lo, month, day, hour, minute, second, DST flag in local time', () => {
  const july = Date.UTC(2026, 6, 14, 10, 30, 15);
  const january = Date.UTC(2026, 0, 14, 10, 30, 15);
  withTimeZone('Europe/Zurich', () => {
    assert.equal(dateTimeOf(july), '07ea070e0c1e0f01'); // 12:30:15 CEST
    assert.equal(dateTimeOf(january), '07ea010e0b1e0f00'); // 11:30:15 CET
  });
  withTimeZone('Australia/Sydney', () => {
    assert.equal(dateTimeOf(january), '07ea010e151e0f01'); // 21:30:15 AEDT
    assert.equal(dateTimeOf(july), '07ea070e141e0f00'); // 20:30:15 AEST
  });
  withTimeZone('UTC', () => assert.equal(dateTimeOf(july), '07ea070e0a1e0f00'));
});

function source(overrides: Partial<ValueSource> = {}): ValueSource {
  const reading = syntheticReading(Date.UTC(2026, 6, 14, 10, 30, 15, 900));
  return {
    reading,
    identity: reading.identity,
    system: { id: 'B827EB12A4F0', model: 'm', firmware: '2.1.7', bootId: 'b', bootTime: 0 },
    convFactor: 1.5,
    now: Date.UTC(2026, 6, 14, 10, 31, 0),
    ...overrides,
  };
}

const words = (image: RegisterImage, address: number, count: number): string =>
  image.bytes.subarray(address * 2, (address + count) * 2).toString('hex');

test('the image: hex ids as zero-padded bytes, padding 1 as 0xFFFF, uncovered addresses 0', () => {
  const image = new RegisterImage();
  image.bytes.fill(0x55); // a rebuild must clear everything outside the sets
  image.setLayout([
    {
      start_address: 100,
      word_order: 'lsw',
      registers: [
        { id: '96.1.0' },
        { id: '96.1.1' },
        { id: '42.0.0' },
        { id: 'sys.id' },
        { id: 'sys.firmware' },
        { id: '1', type: 'int', scaler: 0 },
        { id: 'report.timestamp', type: 'int', scaler: 0 },
        { id: 'conv_factor', type: 'short', scaler: 1 },
        { id: '96.14.0', type: 'short', scaler: 0 },
      ],
    },
  ]);
  const identity = { id: 'E0043007123456715ABCDEFGHIJ', model: 'MT382-1000', logicalName: 'ISK5\u00e92M' };
  image.rebuild(source({ identity }));
  const ascii = (text: string) =>
    Buffer.concat([Buffer.from(text, 'latin1'), Buffer.alloc(24 - text.length)]).toString('hex');
  assert.equal(words(image, 100, 12), Buffer.from('E0043007123456715ABCDEFG').toString('hex')); // truncated at 24
  assert.equal(words(image, 112, 12), ascii('MT382-1000'));
  assert.equal(words(image, 124, 12), ascii('ISK5?2M')); // non-ASCII -> '?'
  assert.equal(words(image, 136, 3), 'b827eb12a4f0');
  assert.equal(words(image, 139, 3), '020107000000');
  assert.equal(words(image, 142, 2), 'ffffffff');
  const seconds = Math.floor(Date.UTC(2026, 6, 14, 10, 30, 15) / 1000);
  const be = hex(seconds.toString(16).padStart(8, '0'));
  assert.equal(words(image, 144, 2), Buffer.concat([be.subarray(2), be.subarray(0, 2)]).toString('hex')); // lsw
  assert.equal(words(image, 146, 1), '000f'); // 1.5 x 10
  assert.equal(words(image, 147, 1), '0002');
  assert.match(words(image, 0, 100), /^0+$/);
  assert.match(words(image, 148, 9999 - 148), /^0+$/);
});

test('stale or missing values: NaN in floats, 0 in integers, report time zeros; system values stay', () => {
  const image = new RegisterImage();
  image.setLayout([
    {
      start_address: 0,
      word_order: 'msw',
      registers: [
        { id: '32.7.0', type: 'float', scaler: 0 },
        { id: '1.8.0', type: 'double', scaler: 3 },
        { id: 'power.active', type: 'int', scaler: 3 },
        { id: 'report.timestamp', type: 'int', scaler: 0 },
        { id: 'report.date_time' },
        { id: 'sys.timestamp', type: 'int', scaler: 0 },
      ],
    },
  ]);
  image.rebuild(source({ reading: undefined }));
  assert.equal(words(image, 0, 2), '7fc00000');
  assert.equal(words(image, 2, 4), '7ff8000000000000');
  assert.equal(words(image, 6, 2), '00000000');
  assert.equal(words(image, 8, 2), '00000000');
  assert.equal(words(image, 10, 4), '0000000000000000');
  assert.equal(image.bytes.readInt32BE(28), Math.floor(Date.UTC(2026, 6, 14, 10, 31, 0) / 1000));
  // A reading that lacks a quantity is the same as a stale one for that register.
  image.rebuild(source({ reading: { ...syntheticReading(), values: valuesOf({ '2.7.0': [0.5, 'kW'] }) } }));
  assert.equal(words(image, 0, 2), '7fc00000');
  assert.equal(image.bytes.readInt32BE(12), -500); // power.active = 0 - 0.5 kW when only export is sent
});

test('the system clock registers are refreshed without a full rebuild', () => {
  const image = new RegisterImage();
  image.setLayout([
    {
      start_address: 10,
      word_order: 'msw',
      registers: [
        { id: 'sys.timestamp', type: 'int', scaler: 0 },
        { id: '32.7.0', type: 'float', scaler: 0 },
      ],
    },
  ]);
  assert.ok(image.hasClock);
  image.rebuild(source());
  const before = words(image, 12, 2);
  image.refreshClock(source({ now: Date.UTC(2030, 0, 1), reading: undefined }));
  assert.equal(image.bytes.readInt32BE(20), Date.UTC(2030, 0, 1) / 1000);
  assert.equal(words(image, 12, 2), before); // the voltage was not touched
  image.setLayout([
    { start_address: 10, word_order: 'msw', registers: [{ id: '32.7.0', type: 'float', scaler: 0 }] },
  ]);
  assert.equal(image.hasClock, false);
});
