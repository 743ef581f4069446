import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { signedLeb128, unsignedLeb128 } from '../../../src/meter/wasm/instructions.js';

/** LEB128 decoding as in WebAssembly core specification 1.0 §5.2.2. */
function decodeLeb128(bytes: number[], signed: boolean): number {
  let value = 0n;
  let shift = 0n;
  for (const [index, byte] of bytes.entries()) {
    value |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
    const last = (byte & 0x80) === 0;
    assert.equal(last, index === bytes.length - 1, 'only the last byte has its high bit clear');
    if (last && signed && (byte & 0x40) !== 0) value -= 1n << shift;
  }
  return Number(value);
}

test('LEB128 of known values (the classic 624485 and -123456, and the 7-bit boundaries)', () => {
  assert.deepEqual(unsignedLeb128(0), [0x00]);
  assert.deepEqual(unsignedLeb128(127), [0x7f]);
  assert.deepEqual(unsignedLeb128(128), [0x80, 0x01]);
  assert.deepEqual(unsignedLeb128(624485), [0xe5, 0x8e, 0x26]);
  assert.deepEqual(unsignedLeb128(0xffffffff), [0xff, 0xff, 0xff, 0xff, 0x0f]);
  assert.deepEqual(signedLeb128(0), [0x00]);
  assert.deepEqual(signedLeb128(63), [0x3f]);
  assert.deepEqual(signedLeb128(64), [0xc0, 0x00]);
  assert.deepEqual(signedLeb128(-64), [0x40]);
  assert.deepEqual(signedLeb128(-65), [0xbf, 0x7f]);
  assert.deepEqual(signedLeb128(-123456), [0xc0, 0xbb, 0x78]);
});

test('LEB128 decodes back to the encoded value in the fewest bytes', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffffffff }), (value) => {
      const bytes = unsignedLeb128(value);
      assert.equal(decodeLeb128(bytes, false), value);
      assert.equal(bytes.length, Math.max(1, Math.ceil(Math.log2(value + 1) / 7)));
    }),
  );
  fc.assert(
    fc.property(fc.integer({ min: -0x80000000, max: 0x7fffffff }), (value) => {
      const bytes = signedLeb128(value);
      assert.equal(decodeLeb128(bytes, true), value);
      let fewest = 1;
      while (value < -(2 ** (7 * fewest - 1)) || value >= 2 ** (7 * fewest - 1)) fewest++;
      assert.equal(bytes.length, fewest);
    }),
  );
});
