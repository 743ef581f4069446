import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MeterDataError } from '../../../src/meter/decoder.js';
import { blockCheck } from '../../../src/checksum/bcc.js';
import { parseIdentification } from '../../../src/meter/d0/identification.js';
import { parseObisAddress } from '../../../src/meter/d0/obis-address.js';
import { parseD0Readout } from '../../../src/meter/d0/parser.js';
import { d0ReadoutToReading } from '../../../src/meter/d0/to-reading.js';

/** Builds `STX body ETX BCC` with the block check of IEC 62056-21 §6.3. */
function dataMessage(body: string, bcc?: number): Buffer {
  const bytes = Buffer.from(`\x02${body}\x03\x00`, 'latin1');
  bytes[bytes.length - 1] = bcc ?? blockCheck(bytes, 1, bytes.length - 1);
  return bytes;
}

test('BCC equals a plain byte-by-byte XOR for any range and buffer alignment', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 400 }),
      fc.nat(),
      fc.nat(),
      fc.nat({ max: 7 }),
      (bytes, x, y, shift) => {
        const backing = Buffer.alloc(bytes.length + shift);
        backing.set(bytes, shift);
        const view = backing.subarray(shift);
        const start = x % (bytes.length + 1);
        const end = start + (y % (bytes.length - start + 1));
        let expected = 0;
        for (let i = start; i < end; i++) expected ^= bytes[i]!;
        assert.equal(blockCheck(view, start, end), expected);
      },
    ),
    { numRuns: 2000, seed: 2105621 },
  );
});

test('BCC is the XOR of the bytes after STX through ETX', () => {
  // 0x41 ^ 0x42 ^ 0x03 = 0x00; 0x31 ^ 0x03 = 0x32
  assert.equal(blockCheck(Buffer.from('\x02AB\x03', 'latin1'), 1, 4), 0x00);
  assert.equal(blockCheck(Buffer.from('1\x03', 'latin1')), 0x32);
});

test('identification: manufacturer, baud character, mode, enhanced id, model', () => {
  assert.deepEqual(parseIdentification('/ISk5MT174-0001\r\n'), {
    prefix: 'ISk',
    baudChar: '5',
    mode: 'C',
    proposedBaud: 9600,
    enhancedId: undefined,
    model: 'MT174-0001',
    minReactionTimeMs: 20,
  });
  const lgz = parseIdentification('/LGZ5\\2ZMD4104407.B31');
  assert.equal(lgz.enhancedId, '2');
  assert.equal(lgz.model, 'ZMD4104407.B31');
  assert.equal(lgz.minReactionTimeMs, 200);
  assert.deepEqual(
    ['/ABC0x', '/ABC6x', '/ABCAx', '/ABCFx', '/ABCGx', '/ABCZx', '/ABC9x'].map((line) => {
      const { mode, proposedBaud } = parseIdentification(line);
      return [mode, proposedBaud];
    }),
    [
      ['C', 300],
      ['C', 19200],
      ['B', 600],
      ['B', 19200],
      ['B', undefined],
      ['A', undefined],
      ['A', undefined],
    ],
  );
  assert.equal(parseIdentification('/ISk5\x02MT382-1000').model, 'MT382-1000');
  for (const bad of ['/?!', '/AB', 'ISK5MT', '/1SK5MT', `/ISK5${'x'.repeat(80)}`]) {
    assert.throws(
      () => parseIdentification(bad),
      (e) => e instanceof MeterDataError && e.kind === 'parse',
      bad,
    );
  }
});

test('OBIS addresses in full and reduced forms, letters as 96..99', () => {
  const pick = (text: string) => {
    const address = parseObisAddress(text);
    return address && [address.a, address.b, address.c, address.d, address.e, address.f];
  };
  assert.deepEqual(pick('1-0:1.8.1*255'), [1, 0, 1, 8, 1, 255]);
  assert.deepEqual(pick('1-0:1.8.1*07'), [1, 0, 1, 8, 1, 7]);
  assert.deepEqual(pick('1.8.1'), [undefined, undefined, 1, 8, 1, undefined]);
  assert.deepEqual(pick('6.8*01'), [undefined, undefined, 6, 8, undefined, 1]);
  assert.deepEqual(pick('F.F'), [undefined, undefined, 97, 97, undefined, undefined]);
  assert.deepEqual(pick('0-0:C.1.0*255'), [0, 0, 96, 1, 0, 255]);
  assert.deepEqual(pick('F'), [undefined, undefined, 97, undefined, undefined, undefined]);
  assert.deepEqual(pick(' 1.8.0 '), [undefined, undefined, 1, 8, 0, undefined]);
  for (const bad of ['', '1.8.0.1', '1-0:', 'X.1', '1..8', '1.8.0*', '1-0:1.8.0x', '1000.8.0']) {
    assert.equal(parseObisAddress(bad), undefined, bad);
  }
});

test('data sets: several per line, value groups, & and # separated values, empty values', () => {
  const readout = parseD0Readout(
    Buffer.from(
      '/XYZ5test\r\n1.8.0(1.5*kWh)9.4(088*C&082*C)0.2.0(V01#AB)\r\n1.6.0(2.0*kW)(2401011200)6.8.1()\r\n!\r\n',
      'latin1',
    ),
  );
  assert.deepEqual(
    readout.objects.map((o) => [o.obis.text, o.values, o.raw]),
    [
      ['1.8.0', [{ value: '1.5', unit: 'kWh' }], '1.8.0(1.5*kWh)'],
      [
        '9.4',
        [
          { value: '088', unit: 'C' },
          { value: '082', unit: 'C' },
        ],
        '9.4(088*C&082*C)',
      ],
      [
        '0.2.0',
        [
          { value: 'V01', unit: '' },
          { value: 'AB', unit: '' },
        ],
        '0.2.0(V01#AB)',
      ],
      [
        '1.6.0',
        [
          { value: '2.0', unit: 'kW' },
          { value: '2401011200', unit: '' },
        ],
        '1.6.0(2.0*kW)(2401011200)',
      ],
      ['6.8.1', [], '6.8.1()'],
    ],
  );
  assert.equal(readout.complete, true);
  assert.equal(readout.invalidParts, 0);
});

test('malformed parts are skipped and counted; a readout without any data set is a parse error', () => {
  const readout = parseD0Readout(
    Buffer.from('/XYZ5t\r\nnoise\r\nX.Y(1)\r\n1.8.0(5\r\n2.8.0(7*kWh)\r\n!\r\n'),
  );
  assert.deepEqual(
    readout.objects.map((o) => o.obis.text),
    ['2.8.0'],
  );
  assert.equal(readout.invalidParts, 3);
  assert.throws(
    () => parseD0Readout(Buffer.from('/XYZ5t\r\nnoise\r\n!\r\n')),
    (e) => e instanceof MeterDataError && e.kind === 'parse',
  );
});

test('STX..ETX BCC: verified, mismatch is a crc error unless verification is off', () => {
  const body = '1.8.0(000285.4*kWh)\r\n!\r\n';
  const good = Buffer.concat([Buffer.from('/ABC5X\r\n\x06050\r\n'), dataMessage(body)]);
  assert.equal(parseD0Readout(good).blockCheck.present, true);
  const bad = Buffer.concat([Buffer.from('/ABC5X\r\n'), dataMessage(body, 0x7f)]);
  assert.throws(
    () => parseD0Readout(bad),
    (e) => e instanceof MeterDataError && e.kind === 'crc',
  );
  assert.equal(parseD0Readout(bad, { verifyBlockCheck: false }).objects.length, 1);
  const bare = dataMessage(body);
  assert.equal(parseD0Readout(bare).identification, undefined);
  assert.equal(parseD0Readout(bare).objects[0]!.values[0]!.value, '000285.4');
});

test('to Reading: current electricity values only, canonical units, identity, tariff', () => {
  const text = [
    '/ISk5MT174-0001',
    '1-0:0.0.0*255(63355730)',
    '0-0:C.1.0*255(99999999)',
    '1-0:1.8.1*255(0008048.375*kWh)',
    '1-0:1.8.1*07(0006334.294*kWh)',
    '1.8.2(12.5*kWh)',
    '1-0:1.7.0(908*W)',
    '1-0:32.7.0(230.1*V)',
    '1-0:31.7.0(+000.8*A)',
    '2-0:1.8.0(5*kWh)',
    '6.8(0029.055*MWh)',
    '6.8.1(1.5*MWh)',
    '1-0:2.8.0(032942.0231)',
    '0-0:96.14.0(0002)',
    'C.5.0(L1-L2-L3)',
    '1-0:13.7.0(0.98)',
    '!',
    '',
  ].join('\r\n');
  const reading = d0ReadoutToReading(parseD0Readout(Buffer.from(text)), 1234);
  assert.equal(reading.protocol, 'IEC62056-21');
  assert.equal(reading.receivedAt, 1234);
  assert.deepEqual(reading.identity, { prefix: 'ISk', model: 'MT174-0001', id: '63355730' });
  assert.equal(reading.tariff, 2);
  assert.deepEqual(Object.fromEntries(reading.values), {
    '1.8.1': { value: 8048.375, unit: 'kWh' },
    '1.8.2': { value: 12.5, unit: 'kWh' },
    '1.7.0': { value: 0.908, unit: 'kW' },
    '32.7.0': { value: 230.1, unit: 'V' },
    '31.7.0': { value: 0.8, unit: 'A' },
    '2.8.0': { value: 32942.0231, unit: 'kWh' },
    '13.7.0': { value: 0.98, unit: '' },
  });
  assert.deepEqual(reading.mbus, []);
});

test('meter id falls back to 96.1.0 / C.1 when 0.0.0 is absent', () => {
  const reading = d0ReadoutToReading(
    parseD0Readout(Buffer.from('/ELS5\\@V9.30 \r\nC.1(1234567890123456)\r\n!\r\n')),
    0,
  );
  assert.deepEqual(reading.identity, { prefix: 'ELS', model: 'V9.30', id: '1234567890123456' });
});

test('data sets serialise with their values and raw text', () => {
  const readout = parseD0Readout(Buffer.from('/ABC5X\r\n1.6.0(2.5*kW)(2401011200)\r\n!\r\n'));
  assert.deepEqual(JSON.parse(JSON.stringify(readout.objects[0])), {
    obis: { c: 1, d: 6, e: 0, text: '1.6.0' },
    values: [
      { value: '2.5', unit: 'kW' },
      { value: '2401011200', unit: '' },
    ],
    raw: '1.6.0(2.5*kW)(2401011200)',
  });
});
