import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from '../../src/checksum/crc32.js';
import { decodeRecord, encodeRecord, RECORD_SIZE } from '../../src/history/record.js';
import { ringHeader } from '../../src/history/ring-file.js';
import { TIERS } from '../../src/history/tiers.js';
import type { HistoryPoint } from '../../src/history/point.js';

test('CRC-32 check value (ISO-HDLC, "123456789" -> 0xCBF43926)', () => {
  assert.equal(crc32(Buffer.from('123456789', 'latin1')), 0xcbf43926);
  assert.equal(crc32(Buffer.alloc(0)), 0);
});

const POINT: HistoryPoint = {
  t: 1_795_564_800,
  n: 6,
  pIn: { n: 6, min: 0.5, sum: 6.75, max: 2 },
  pOut: { n: 4, min: 0, sum: 1.5, max: 1 },
  eIn: 1.25,
  eOut: null,
};

test('a record is byte-exact: layout, little-endian fields, NaN for no energy, CRC-32 over bytes 0..91', () => {
  const record = encodeRecord(POINT);
  assert.equal(record.length, RECORD_SIZE);
  const expected = Buffer.alloc(96);
  expected.writeDoubleLE(1_795_564_800, 0);
  expected.writeUInt32LE(6, 8);
  expected.writeUInt32LE(6, 12);
  expected.writeUInt32LE(4, 16);
  [0.5, 6.75, 2, 0, 1.5, 1].forEach((value, i) => expected.writeDoubleLE(value, 24 + i * 8));
  expected.writeDoubleLE(1.25, 72);
  expected.writeDoubleLE(Number.NaN, 80);
  expected.writeUInt32LE(crc32(expected, 0, 92), 92);
  assert.equal(record.toString('hex'), expected.toString('hex'));
  // Spelled out once, so a change of the layout cannot pass unnoticed.
  assert.equal(
    record.subarray(0, 24).toString('hex'),
    '0000004089c1da41' + '06000000' + '06000000' + '04000000' + '00000000',
  );
  assert.equal(record.subarray(72, 88).toString('hex'), '000000000000f43f' + '000000000000f87f');
  assert.deepEqual(decodeRecord(record), { kind: 'point', point: POINT });
});

test('an all-zero slot is empty; any changed byte or an impossible record is corrupt', () => {
  assert.deepEqual(decodeRecord(Buffer.alloc(96)), { kind: 'empty' });
  const record = encodeRecord(POINT);
  for (const offset of [0, 9, 30, 75, 90, 93]) {
    const torn = Buffer.from(record);
    torn[offset]! ^= 0x01;
    assert.deepEqual(decodeRecord(torn), { kind: 'corrupt' }, `byte ${offset}`);
  }
  // A write cut after its first half: new head, old (zero) tail.
  const half = Buffer.alloc(96);
  record.copy(half, 0, 0, 48);
  assert.deepEqual(decodeRecord(half), { kind: 'corrupt' });
  assert.deepEqual(decodeRecord(encodeRecord({ ...POINT, n: 0 })), { kind: 'corrupt' });
  assert.deepEqual(
    decodeRecord(encodeRecord({ ...POINT, n: 3 })),
    { kind: 'corrupt' },
    'more power samples than readings',
  );
  assert.deepEqual(decodeRecord(record.subarray(0, 95)), { kind: 'corrupt' });
});

test('the ring header names format, record size, capacity and bucket length, with its own CRC', () => {
  const header = ringHeader(TIERS['15m']);
  assert.equal(header.length, 64);
  assert.equal(
    header.subarray(0, 24).toString('hex'),
    Buffer.from('MGHIST\r\n', 'latin1').toString('hex') + '01000000' + '60000000' + 'a0890000' + '84030000',
  );
  assert.equal(header.readUInt32LE(60), crc32(header, 0, 60));
  assert.equal(TIERS['15m'].capacity, 0x89a0);
});

test('the tariff reading counts round-trip in the formerly reserved words; zero reads as none', () => {
  const point = { t: 1_764_000_000, n: 900, eIn: 0.5, eOut: null, nT1: 450, nT2: 449 };
  const record = encodeRecord(point);
  assert.equal(record.readUInt32LE(20), 450);
  assert.equal(record.readUInt32LE(88), 449);
  assert.deepEqual(decodeRecord(record), { kind: 'point', point });
  const without = decodeRecord(encodeRecord({ t: 1_764_000_000, n: 1, eIn: null, eOut: null }));
  assert.deepEqual(without, { kind: 'point', point: { t: 1_764_000_000, n: 1, eIn: null, eOut: null } });
});
