import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockCheck } from '../../src/checksum/bcc.js';
import { crc16Arc, crc16Kermit, crc16Modbus, crc16X25 } from '../../src/checksum/crc16.js';
import { crc32 } from '../../src/checksum/crc32.js';

const CHECK_INPUT = Buffer.from('123456789', 'ascii');

test('every checksum gives its catalogued check value over "123456789"', () => {
  assert.equal(crc16Arc(CHECK_INPUT), 0xbb3d);
  assert.equal(crc16Modbus(CHECK_INPUT), 0x4b37);
  assert.equal(crc16X25(CHECK_INPUT), 0x906e);
  assert.equal(crc16Kermit(CHECK_INPUT), 0x2189);
  assert.equal(crc32(CHECK_INPUT), 0xcbf43926);
  // the BCC is the XOR of the bytes: 0x31 ^ 0x32 ^ ... ^ 0x39
  assert.equal(blockCheck(CHECK_INPUT), 0x31);
});

test('a range of a larger buffer gives the same value as the bytes alone', () => {
  const framed = Buffer.concat([Buffer.from('xx'), CHECK_INPUT, Buffer.from('yyy')]);
  const end = 2 + CHECK_INPUT.length;
  assert.equal(crc16Arc(framed, 2, end), 0xbb3d);
  assert.equal(crc16Modbus(framed, 2, end), 0x4b37);
  assert.equal(crc16X25(framed, 2, end), 0x906e);
  assert.equal(crc16Kermit(framed, 2, end), 0x2189);
  assert.equal(crc32(framed, 2, end), 0xcbf43926);
  assert.equal(blockCheck(framed, 2, end), 0x31);
});
