import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc16Arc } from '../../../src/checksum/crc16.js';
import { checkDsmrCrc, crcHex } from '../../../src/meter/dsmr/crc16-arc.js';

/** Bit-at-a-time CRC-16/ARC straight from the definition, to check the table-driven one. */
function crcByDefinition(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

const latin1 = (text: string) => Buffer.from(text, 'latin1');

test('CRC-16/ARC check value and agreement with the bitwise definition', () => {
  assert.equal(crc16Arc(latin1('123456789')), 0xbb3d);
  assert.equal(crc16Arc(latin1('')), 0);
  for (let length = 0; length < 64; length++) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 151 + length * 7) & 0xff);
    assert.equal(crc16Arc(bytes), crcByDefinition(bytes), `length ${length}`);
  }
  assert.equal(crc16Arc(latin1('xx123456789yy'), 2, 11), 0xbb3d);
});

test('checkDsmrCrc covers "/" through "!" and reads the field case-insensitively', () => {
  const body = '/some !';
  assert.equal(crcHex(crc16Arc(latin1(body))), 'A3D4');
  assert.deepEqual(checkDsmrCrc(latin1(`${body}A3D4\r\n`)), {
    kind: 'match',
    field: 0xa3d4,
    computed: 0xa3d4,
  });
  assert.deepEqual(checkDsmrCrc(latin1(`${body}a3d4\r\n`)).kind, 'match');
  assert.deepEqual(checkDsmrCrc(latin1(`garbage ${body}a3D4`)).kind, 'match');
  assert.deepEqual(checkDsmrCrc(latin1(`${body}A3D3\r\n`)), {
    kind: 'mismatch',
    field: 0xa3d3,
    computed: 0xa3d4,
  });
});

test('checkDsmrCrc: a short field is left-padded, no field is absent, no end is malformed', () => {
  // Find a body whose CRC has a leading zero nibble, then send it with 3 digits.
  const bodyOf = (n: number) => `/ABC5 test\r\n\r\n1-0:1.8.1(${String(n).padStart(6, '0')}.000*kWh)\r\n!`;
  let n = 0;
  while (crc16Arc(latin1(bodyOf(n))) >= 0x1000) n++;
  const body = bodyOf(n);
  const short = crcHex(crc16Arc(latin1(body))).slice(1);
  assert.equal(checkDsmrCrc(latin1(`${body}${short}\r\n`)).kind, 'match');
  assert.equal(checkDsmrCrc(latin1(`${body}\r\n`)).kind, 'absent');
  assert.equal(checkDsmrCrc(latin1(body)).kind, 'absent');
  assert.equal(checkDsmrCrc(latin1('/ABC5 no end\r\n')).kind, 'malformed');
  assert.equal(checkDsmrCrc(latin1('no start !1234')).kind, 'malformed');
});
