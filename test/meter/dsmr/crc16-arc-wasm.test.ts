import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { crc16Arc, crc16ArcBytewise } from '../../../src/meter/dsmr/crc16-arc.js';
import { repoRoot } from '../../helpers/environment.js';

/** Bit-at-a-time CRC-16/ARC straight from the definition (DSMR 5.0.2 §6.2: 0xA001 reflected). */
function crcByDefinition(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc ^= bytes[i]!;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

test('CRC-16/ARC (WebAssembly slicing-by-8 for longer ranges) agrees with the definition', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 3000 }), fc.nat(), fc.nat(), (bytes, a, b) => {
      const start = bytes.length === 0 ? 0 : a % bytes.length;
      const end = start + (bytes.length === 0 ? 0 : b % (bytes.length - start + 1));
      const expected = crcByDefinition(bytes, start, end);
      assert.equal(crc16Arc(bytes, start, end), expected);
      assert.equal(crc16ArcBytewise(bytes, start, end), expected);
    }),
    { numRuns: 2000 },
  );
});

test('CRC-16/ARC of ranges beyond the first WebAssembly memory page and beyond its 1 MiB limit', () => {
  for (const length of [70_000, 200_000, 1024 * 1024 + 1]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + (i >>> 9)) & 0xff);
    assert.equal(crc16Arc(bytes, 3, length), crcByDefinition(bytes, 3, length), `length ${length}`);
  }
  // A short range after a long one reads the bytes copied for it, not the earlier ones.
  assert.equal(crc16Arc(Buffer.from('x123456789'.repeat(10)), 1, 10), 0xbb3d);
});

test('without WebAssembly (node --jitless) the same CRC comes from the JavaScript loop', () => {
  const script = [
    "import { crc16Arc } from './src/meter/dsmr/crc16-arc.ts';",
    "const bytes = Buffer.from('123456789'.repeat(40));",
    'console.log(typeof WebAssembly, crc16Arc(bytes), crc16Arc(bytes, 0, 9));',
  ].join('\n');
  const output = execFileSync(
    process.execPath,
    ['--jitless', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  const bytes = Buffer.from('123456789'.repeat(40));
  assert.equal(output.trim(), `undefined ${crcByDefinition(bytes, 0, bytes.length)} ${0xbb3d}`);
});
