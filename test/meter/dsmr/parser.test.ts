import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MeterDataError } from '../../../src/meter/decoder.js';
import { parseDsmrTelegram } from '../../../src/meter/dsmr/parser.js';
import { readDsmrProfile } from '../../../src/meter/dsmr/profile.js';
import { dsmrTimestamp } from '../../../src/meter/dsmr/timestamp.js';
import { decodeHexText, parseDsmrValue } from '../../../src/meter/dsmr/values.js';
import { requireCorpus } from '../../helpers/environment.js';
import { lineLevelCases } from './corpus-cases.js';
import { assertInstant, assertRawPair } from './corpus-compare.js';

/** A telegram around data lines, the way a DSMR 2.2 meter frames them (no CRC). */
const telegram = (lines: string) => `/ABC5 test\r\n\r\n${lines}!\r\n`;

test('identification line: FLAG id, baud character, model after "\\W"', () => {
  assert.deepEqual(parseDsmrTelegram('/ISk5\\2MT382-1000\r\n\r\n!').header, {
    raw: 'ISk5\\2MT382-1000',
    flag: 'ISk',
    baudChar: '5',
    model: 'MT382-1000',
  });
  assert.equal(parseDsmrTelegram('/KMP5 ZABF000000000000\r\n!').header.model, 'ZABF000000000000');
  assert.equal(parseDsmrTelegram('/ISk5\x02MIE5T-200\r\n!').header.model, 'MIE5T-200');
  assert.equal(parseDsmrTelegram('/KAM5\r\n!').header.model, '');
});

test('frames that cannot be parsed at all throw a typed MeterDataError', () => {
  for (const text of [
    '1-0:1.8.1(1)\r\n!',
    '/ABC5 never ends\r\n1-0:1.8.1(1)\r\n',
    '/12X5 bad id\r\n!',
    '/\r\n!',
  ]) {
    assert.throws(
      () => parseDsmrTelegram(text),
      (e) => e instanceof MeterDataError && e.kind === 'parse',
      text,
    );
  }
});

test('values: numbers with units, timestamps, text; CRC field recorded', () => {
  const parsed = parseDsmrTelegram(
    '/ABC5 t\r\n\r\n1-0:99.97.0(1)(0-0:96.7.19)(000101000001W)(-0042.50*s)\r\n!0aB1\r\n',
  );
  assert.equal(parsed.crcField, '0aB1');
  assert.deepEqual(parsed.objects[0], {
    obis: '1-0:99.97.0',
    medium: 1,
    channel: 0,
    code: '99.97.0',
    values: [
      { raw: '1', value: 1 },
      { raw: '0-0:96.7.19' },
      { raw: '000101000001W', timestamp: '2000-01-01T00:00:01+01:00' },
      { raw: '-0042.50*s', value: -42.5, unit: 's' },
    ],
    line: '1-0:99.97.0(1)(0-0:96.7.19)(000101000001W)(-0042.50*s)',
  });
  assert.deepEqual(parseDsmrValue('12.'), { raw: '12.' });
  assert.deepEqual(parseDsmrValue('1.2.3'), { raw: '1.2.3' });
  assert.deepEqual(parseDsmrValue('+5*kWh'), { raw: '+5*kWh', value: 5, unit: 'kWh' });
  assert.deepEqual(parseDsmrValue('00000.001*m3'), { raw: '00000.001*m3', value: 0.001, unit: 'm3' });
  assert.deepEqual(parseDsmrValue('123456789012345678.5*Wh'), {
    raw: '123456789012345678.5*Wh',
    value: 123456789012345680,
    unit: 'Wh',
  });
  assert.equal(parseDsmrValue('4.426*kWh').value, Number('4.426'));
});

test('timestamps: S is UTC+02:00, W is UTC+01:00, impossible dates give none', () => {
  assert.equal(dsmrTimestamp('170102192002W'), '2017-01-02T19:20:02+01:00');
  assert.equal(dsmrTimestamp('200426223001S'), '2020-04-26T22:30:01+02:00');
  assert.equal(dsmrTimestamp('700101010000W'), '1970-01-01T01:00:00+01:00');
  assert.equal(Date.parse(dsmrTimestamp('700101010000W')!), 0);
  assert.equal(dsmrTimestamp('240229120000W'), '2024-02-29T12:00:00+01:00');
  for (const invalid of [
    '632525252525W',
    '230229120000W',
    '231301000000W',
    '231231240000W',
    '231231236000W',
    '231231235960S',
  ]) {
    assert.equal(dsmrTimestamp(invalid), undefined, invalid);
  }
  assert.equal(dsmrTimestamp('170102192002X'), undefined);
  assert.equal(dsmrTimestamp('090212160000'), undefined);
  assert.equal(dsmrTimestamp('090212160000', true), '2009-02-12T16:00:00');
  assert.deepEqual(parseDsmrValue('632525252525W'), { raw: '632525252525W' });
});

test('hex-encoded identifiers decode to text only when printable ASCII', () => {
  assert.equal(decodeHexText('4B384547303034303436333935353037'), 'K8EG004046395507');
  assert.equal(decodeHexText('4b38'), 'K8');
  assert.equal(decodeHexText('3960221976967177082151037881335713'), undefined, 'control byte 0x19');
  assert.equal(decodeHexText('09610'), undefined, 'odd length');
  assert.equal(decodeHexText(''), undefined);
  const parsed = parseDsmrTelegram(telegram('0-0:96.1.1(4B38)\r\n0-1:96.1.0(4142)\r\n1-0:1.8.1(4142)\r\n'));
  assert.deepEqual(
    parsed.objects.map((o) => o.values[0]!.text),
    ['K8', 'AB', undefined],
    'only identifier objects are decoded',
  );
});

test('LF-only line ends, blanks after the OBIS id and several objects on one line', () => {
  const parsed = parseDsmrTelegram('/ABC5 t\n\n1-0:1.7.0 (00.123*kW)\n1-0:2.7.0(1*kW)0-0:96.14.0(0002)\n!');
  assert.deepEqual(
    parsed.objects.map((o) => [o.obis, o.values[0]!.raw]),
    [
      ['1-0:1.7.0', '00.123*kW'],
      ['1-0:2.7.0', '1*kW'],
      ['0-0:96.14.0', '0002'],
    ],
  );
  assert.deepEqual(parsed.problems, []);
});

test('a broken line is recorded and skipped; the lines around it still count', () => {
  const parsed = parseDsmrTelegram(
    telegram(
      '1-0:1.8.1(1*kWh)\r\nnot an object\r\n1-0:1.8.2\r\n1-0:1.8.3(unclosed\r\n1-0:1.8.4(4*kWh)\r\n(9)\r\n',
    ),
  );
  assert.deepEqual(
    parsed.objects.map((o) => o.obis),
    ['1-0:1.8.1', '1-0:1.8.4'],
  );
  assert.deepEqual(
    parsed.objects[1]!.values.map((v) => v.raw),
    ['4*kWh', '9'],
    'a "(...)" line continues the object',
  );
  assert.deepEqual(
    parsed.problems.map((p) => [p.line, p.reason]),
    [
      ['not an object', 'no OBIS reference'],
      ['1-0:1.8.2', 'OBIS reference without value'],
      ['1-0:1.8.3(unclosed', 'value without closing parenthesis'],
    ],
  );
});

test('unknown OBIS codes are kept as objects', () => {
  const parsed = parseDsmrTelegram(telegram('0-0:96.99.99(hello)\r\n7-3:1.2.3(5*foo)\r\n'));
  assert.deepEqual(
    parsed.objects.map((o) => [o.obis, o.values]),
    [
      ['0-0:96.99.99', [{ raw: 'hello' }]],
      ['7-3:1.2.3', [{ raw: '5*foo', value: 5, unit: 'foo' }]],
    ],
  );
});

test('parsing is independent of the telegram parsed before; a repeated reference is a problem', () => {
  const a = telegram('1-0:1.8.1(1*kWh)\r\n1-0:1.8.2(2*kWh)\r\n');
  const b = telegram('1-0:1.8.10(3*kWh)\r\n1-0:1.8.2(4*kWh)\r\n1-0:1.8.2(5*kWh)\r\n');
  const alone = parseDsmrTelegram(b);
  parseDsmrTelegram(a);
  const afterA = parseDsmrTelegram(b);
  assert.deepEqual(afterA, alone);
  assert.deepEqual(
    afterA.objects.map((o) => o.obis),
    ['1-0:1.8.10', '1-0:1.8.2', '1-0:1.8.2'],
  );
  assert.equal(afterA.problems.length, 1);
});

test('corpus line-level cases (edge/line_level_cases.json)', (t) => {
  if (!requireCorpus(t)) return;
  for (const { line, expected, source } of lineLevelCases()) {
    const objects = parseDsmrTelegram(telegram(line.endsWith('\n') ? line : `${line}\r\n`)).objects;
    const at = `${source.item}: ${JSON.stringify(line)}`;
    const list = Array.isArray(expected) ? expected : [expected];
    for (const [n, want] of (list as Record<string, unknown>[]).entries()) {
      const object = objects[n]!;
      assert.ok(object, at);
      if ('buffer_length' in want) {
        const profile = readDsmrProfile(object);
        assert.equal(profile?.count, want.buffer_length, at);
        assert.equal(profile?.captured[0] || null, want.buffer_type, at);
        const buffer = want.buffer as { datetime: null; value: null; unit: null }[];
        assert.deepEqual(
          profile?.entries.map((e) => [
            e.timestamp ?? null,
            e.values[0]?.value ?? null,
            e.values[0]?.unit ?? null,
          ]),
          buffer.map((b) => [b.datetime, b.value, b.unit]),
          at,
        );
      } else if ('address' in want) {
        assert.equal(object.obis, want.address, at);
        const pairs = want.values as [string, string | null][];
        assert.equal(object.values.length, pairs.length, at);
        pairs.forEach(([text, unit], k) => assertRawPair(object.values[k], text, unit, at));
      } else {
        const measured = object.values.findLast((v) => v.value !== undefined || v.raw !== '')!;
        if (typeof want.value === 'number') assert.equal(measured.value, want.value, at);
        else if (want.unit) assert.equal(measured.value, Number(want.value), at);
        else assert.equal(object.values[0]!.raw, want.value, at);
        assert.equal(measured.unit ?? null, want.unit, at);
        if (want.datetime) assertInstant(object.values[0]!.timestamp, want.datetime as string, at);
      }
    }
  }
});
