import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MeterDataError } from '../../../src/meter/decoder.js';
import fc from 'fast-check';
import { crc16Kermit, crc16Register1021 as crc16Register, crc16X25 } from '../../../src/checksum/crc16.js';
import { frameChecksum } from '../../../src/meter/sml/crc16-x25.js';
import { readInteger, TlReader } from '../../../src/meter/sml/tl.js';
import { encode, i, list, octets, u } from './sml-builder.js';

const read = (hex: string): unknown =>
  new TlReader(Buffer.from(hex.replaceAll(' ', ''), 'hex')).readElement();

function assertParseError(hex: string, pattern: RegExp): void {
  assert.throws(
    () => read(hex),
    (error: unknown) =>
      error instanceof MeterDataError && error.kind === 'parse' && pattern.test(error.message),
  );
}

test('CRC-16/X-25 and CRC-16/Kermit check values', () => {
  const check = Buffer.from('123456789', 'latin1');
  assert.equal(crc16X25(check), 0x906e);
  assert.equal(crc16Kermit(check), 0x2189);
  assert.equal(crc16X25(check, 1, 5), crc16X25(Buffer.from('2345', 'latin1')));
});

test('frame checksum: X-25 stored low byte first, Kermit high byte first', () => {
  const body = Buffer.from('1b1b1b1b010101010000001b1b1b1b1a00', 'hex');
  const x25 = crc16X25(body);
  assert.deepEqual(frameChecksum(Buffer.concat([body, Buffer.from([x25 & 0xff, x25 >> 8])]), 'x25'), {
    computed: x25,
    stored: x25,
  });
  const kermit = crc16Kermit(body);
  const kermitFrame = Buffer.concat([body, Buffer.from([kermit >> 8, kermit & 0xff])]);
  assert.equal(frameChecksum(kermitFrame, 'kermit').stored, kermit);
  assert.notEqual(frameChecksum(kermitFrame, 'x25').stored, frameChecksum(kermitFrame, 'x25').computed);
});

test('unsigned integers of every width 1..8, odd widths included', () => {
  assert.equal(read('62 ff'), 255);
  assert.equal(read('63 01 02'), 0x0102);
  assert.equal(read('64 01 02 03'), 0x010203);
  assert.equal(read('65 ff ff ff ff'), 0xffffffff);
  assert.equal(read('66 01 02 03 04 05'), 0x0102030405);
  assert.equal(read('67 01 02 03 04 05 06'), 0x010203040506);
  assert.equal(read('69 00 1f ff ff ff ff ff ff'), Number.MAX_SAFE_INTEGER);
  assert.equal(read('68 1f ff ff ff ff ff ff'), Number.MAX_SAFE_INTEGER);
  assert.equal(read('69 00 00 00 00 0a 7a c1 bc'), 0x0a7ac1bc);
  assert.equal(read('69 ff ff ff ff ff ff ff ff'), 0xffffffffffffffffn);
  assert.equal(read('68 ff ff ff ff ff ff ff'), 0xffffffffffffffn);
});

test('signed integers of every width 1..8, two-complement negatives', () => {
  assert.equal(read('52 ff'), -1);
  assert.equal(read('53 8b 28'), -29912);
  assert.equal(read('54 ff ff fe'), -2);
  assert.equal(read('54 7f ff ff'), 0x7fffff);
  assert.equal(read('55 ff ff ff 38'), -200);
  assert.equal(read('56 80 00 00 00 00'), -(2 ** 39));
  assert.equal(read('57 ff ff ff ff ff fe'), -2);
  assert.equal(read('58 ff ff ff ff ff ff fd'), -3);
  assert.equal(read('59 ff ff ff ff ff ff ff ff'), -1);
  assert.equal(read('59 80 00 00 00 00 00 00 00'), -(2n ** 63n));
  assert.equal(read('59 00 00 00 00 00 00 02 0c'), 524);
});

test('integers of 1..8 bytes: a number when exact, else a bigint, as two-complement arithmetic says', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 8, maxLength: 8 }),
      fc.integer({ min: 1, max: 8 }),
      fc.boolean(),
      (bytes, size, signed) => {
        let expected = BigInt.asUintN(
          size * 8,
          BigInt(`0x${Buffer.from(bytes.subarray(0, size)).toString('hex')}`),
        );
        if (signed) expected = BigInt.asIntN(size * 8, expected);
        const value = readInteger(bytes, 0, size, signed);
        assert.equal(BigInt(value), expected);
        assert.equal(typeof value, Number.isSafeInteger(Number(expected)) ? 'number' : 'bigint');
      },
    ),
    { numRuns: 20_000 },
  );
});

test('the table CRC-16 equals the bit-at-a-time definition (reflected polynomial 0x8408)', () => {
  const bytewise = (data: Uint8Array, start: number, end: number, init: number): number => {
    let crc = init;
    for (let k = start; k < end; k++) {
      crc ^= data[k]!;
      for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
    }
    return crc;
  };
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 100 }),
      fc.nat(),
      fc.constantFrom(0, 0xffff),
      (data, from, init) => {
        const start = from % (data.length + 1);
        assert.equal(crc16Register(data, start, data.length, init), bytewise(data, start, data.length, init));
      },
    ),
    { numRuns: 5_000 },
  );
});

test('booleans, octet strings, optional (0x01) and nested lists', () => {
  assert.equal(read('42 00'), false);
  assert.equal(read('42 01'), true);
  assert.equal(read('01'), null);
  assert.deepEqual(read('04 45 4d 48'), Buffer.from('EMH'));
  assert.deepEqual(read('72 62 01 72 62 02 01'), [1, [2, null]]);
  assert.deepEqual(read('70'), []);
});

test('multi-byte TL: octet string length includes its TL bytes, list length counts elements', () => {
  const long = Buffer.alloc(48, 0xab);
  assert.deepEqual(read(`83 02 ${long.toString('hex')}`), long);
  const items = Array.from({ length: 17 }, (_, k) => k);
  assert.deepEqual(
    read(`f1 01 ${items.map((k) => `62 ${k.toString(16).padStart(2, '0')}`).join('')}`),
    items,
  );
  const big = Buffer.alloc(300, 0x11);
  assert.deepEqual(new TlReader(encode(octets(big))).readElement(), big);
  assert.equal(encode(octets(big)).subarray(0, 3).toString('hex'), '81820f');
});

test('round trip through the test encoder for every integer width', () => {
  for (let size = 1; size <= 8; size++) {
    const max = (1n << BigInt(size * 8)) - 1n;
    const min = -(1n << BigInt(size * 8 - 1));
    const element = list(u(max, size), i(min, size), u(0, size), i(-1, size));
    const decoded = new TlReader(encode(element)).readElement() as Array<number | bigint>;
    assert.deepEqual(decoded.map(BigInt), [max, min, 0n, -1n], `width ${size}`);
  }
});

test('malformed TL fields are typed parse errors', () => {
  assertParseError('', /data ends inside an element/);
  assertParseError('00', /unexpected EndOfSmlMsg/);
  assertParseError('05 41 42', /overruns the data/);
  assertParseError('81', /data ends inside an element/);
  assertParseError('83 12 00', /bad TL continuation byte/);
  assertParseError('61', /integer of 0 bytes/);
  assertParseError('60', /shorter than the TL field/);
  assertParseError('6a 00 00 00 00 00 00 00 00 00', /integer of 9 bytes/);
  assertParseError('43 01 01', /boolean of 2 bytes/);
  assertParseError('12 00', /unknown TL type 1/);
  assertParseError('73 62 01', /overruns the data/);
  assertParseError(`${'71'.repeat(40)}01`, /nested too deeply/);
  assertParseError('8f 8f 8f 8f 8f 8f 0f', /TL field too long/);
});
