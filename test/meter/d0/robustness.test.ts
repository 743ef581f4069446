import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireCorpus } from '../../helpers/environment.js';
import type { DecodeResult } from '../../../src/meter/decoder.js';
import { createD0Decoder, type D0Decoder } from '../../../src/meter/d0/decoder.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../../../src/meter/d0/framer.js';
import { d0CorpusCases } from './corpus-files.js';
import { assertCountersAddUp } from './counters.js';

/** What a result says, comparable across runs: values and identity, or the rejection kind. */
function describe(result: DecodeResult): string {
  if (!result.ok) return `rejected:${result.error.kind}`;
  const { identity, values, tariff } = result.reading;
  return JSON.stringify({ identity, values: [...values], tariff, frame: result.frame.toString('latin1') });
}

function decodeAll(decoder: D0Decoder, chunks: readonly Buffer[]): string[] {
  const results = chunks.flatMap((chunk) => decoder.push(chunk, 0));
  return [...results, ...decoder.flush(0)].map(describe);
}

test('chunked input at every split point decodes like one piece', (t) => {
  if (!requireCorpus(t)) return;
  let splits = 0;
  for (const { name, bytes } of d0CorpusCases()) {
    const whole = decodeAll(createD0Decoder(), [bytes]);
    for (let at = 0; at <= bytes.length; at++) {
      const decoder = createD0Decoder();
      const parts = decodeAll(decoder, [bytes.subarray(0, at), bytes.subarray(at)]);
      assert.deepEqual(parts, whole, `${name} split at ${at}`);
      assertCountersAddUp(decoder, parts.length);
      splits++;
    }
    const bytewise = [...bytes].map((byte) => Buffer.from([byte]));
    assert.deepEqual(decodeAll(createD0Decoder(), bytewise), whole, `${name} byte by byte`);
  }
  t.diagnostic(`split points checked: ${splits}`);
});

test('garbage between readouts is skipped and counted, the readouts still decode', (t) => {
  if (!requireCorpus(t)) return;
  const cases = d0CorpusCases().filter((c) => /emh_ehz|iskra|wr5_modeD|elster/.test(c.name));
  const readouts = cases.map((c) => decodeAll(createD0Decoder(), [c.bytes]));
  assert.ok(readouts.every((r) => r.length >= 1 && r.every((d) => !d.startsWith('rejected'))));
  const noise = [
    Buffer.from('\0\0\xff\xfe garbage without frame markers \r\n  25818685\r\n', 'latin1'),
    // a stray STX and an open value: the next '/' must still start the next readout
    Buffer.from('\x02(open value ', 'latin1'),
    Buffer.from('/?!\r\n', 'latin1'),
    Buffer.from('/not an identification\r\n', 'latin1'),
  ];
  const stream: Buffer[] = [];
  cases.forEach((c, i) => stream.push(noise[i % noise.length]!, c.bytes));
  stream.push(noise[0]!);
  const decoder = createD0Decoder();
  const results = decodeAll(decoder, stream);
  const readings = results.filter((r) => !r.startsWith('rejected'));
  assert.deepEqual(readings, readouts.flat(), 'every readout decoded, in order');
  assert.ok(decoder.counters.garbageBytes > 0);
  assertCountersAddUp(decoder, results.length);
  t.diagnostic(`results: ${results.length}, garbage bytes: ${decoder.counters.garbageBytes}`);
});

test('10 MB without a frame end keeps memory bounded by the maximum frame size', () => {
  const decoder = createD0Decoder();
  const line = Buffer.from('1-0:1.8.0*255(000001.000*kWh)\r\n');
  const chunk = Buffer.concat(Array.from({ length: Math.ceil(65536 / line.length) }, () => line));
  const results: DecodeResult[] = [...decoder.push(Buffer.from('/ABC5MODEL\r\n\x02'), 0)];
  let fed = 0;
  let largestPending = 0;
  while (fed < 10 * 1024 * 1024) {
    results.push(...decoder.push(chunk, 0));
    fed += chunk.length;
    largestPending = Math.max(largestPending, decoder.counters.pendingBytes);
  }
  assert.ok(largestPending <= DEFAULT_MAX_FRAME_SIZE, `pending ${largestPending} bytes`);
  assert.deepEqual(
    results.map((r) => (r.ok ? 'reading' : r.error.kind)),
    ['overflow'],
  );
  assert.ok(decoder.counters.discardedBytes > DEFAULT_MAX_FRAME_SIZE - chunk.length);
  const after = decoder.push(Buffer.from('/EMH5eHZ\r\n1-0:1.8.1*255(032942.0231)\r\n!\r\n'), 0);
  assert.deepEqual(
    after.map((r) => (r.ok ? r.reading.values.get('1.8.1')?.value : r.error.kind)),
    [32942.0231],
  );
  assertCountersAddUp(decoder, results.length + after.length);
});

test('a smaller maximum frame size turns a long readout into an overflow', (t) => {
  if (!requireCorpus(t)) return;
  const iskra = d0CorpusCases().find((c) => c.name.includes('iskra'))!;
  const decoder = createD0Decoder({ maxFrameSize: 4096 });
  const results = decoder.push(iskra.bytes, 0);
  assert.deepEqual(
    results.map((r) => (r.ok ? 'reading' : r.error.kind)),
    ['overflow'],
  );
  assertCountersAddUp(decoder, results.length);
});
