import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DecodeResult } from '../../../src/meter/decoder.js';
import { crc16Arc } from '../../../src/checksum/crc16.js';
import { crcHex } from '../../../src/meter/dsmr/crc16-arc.js';
import { createDsmrDecoder, parseDsmrCapture } from '../../../src/meter/dsmr/decoder.js';
import { requireCorpus } from '../../helpers/environment.js';
import { corpusFile } from './corpus-cases.js';

/** Results in a comparable form: readings as plain data, rejections as kind + message. */
function summary(results: DecodeResult[]): unknown[] {
  return results.map((r) =>
    r.ok
      ? { ...r.reading, values: Object.fromEntries(r.reading.values), frame: r.frame.toString('latin1') }
      : { error: r.error.kind, message: r.error.message },
  );
}

test('the decoder gives the same results for every split point of a telegram stream', (t) => {
  if (!requireCorpus(t)) return;
  for (const name of [
    'ndokter_v5.txt',
    'edge/ndokter_stream_v22_v42_v22.txt',
    'edge/esphome_stream_crc_mix.txt',
  ]) {
    const bytes = corpusFile(name);
    const whole = summary(createDsmrDecoder().push(bytes, 7));
    for (let split = 1; split < bytes.length; split++) {
      const decoder = createDsmrDecoder();
      const parts = [...decoder.push(bytes.subarray(0, split), 7), ...decoder.push(bytes.subarray(split), 7)];
      assert.deepStrictEqual(summary(parts), whole, `${name} split at ${split}`);
    }
  }
});

test('garbage between telegrams is skipped; readings carry receivedAt and the frame bytes', (t) => {
  if (!requireCorpus(t)) return;
  const v5 = corpusFile('ndokter_v5.txt');
  const v42 = corpusFile('ndokter_v4_2.txt');
  const stream = Buffer.concat([
    Buffer.from('\x00\xff garbage !1234\r\n'),
    v5,
    Buffer.from('junk'),
    v42,
    Buffer.from('/x'),
  ]);
  const results = createDsmrDecoder().push(stream, 42);
  assert.equal(results.length, 2);
  assert.ok(results.every((r) => r.ok && r.reading.receivedAt === 42 && r.reading.protocol === 'DSMR'));
  assert.ok(results[0]!.frame?.equals(v5));
  assert.ok(results[1]!.frame?.equals(v42));
});

test('a CRC mismatch is rejected as kind "crc" and never becomes a reading', (t) => {
  if (!requireCorpus(t)) return;
  const v5 = corpusFile('ndokter_v5.txt');
  const tampered = Buffer.from(v5);
  tampered[v5.indexOf('4.426')] = 0x35; // 1-0:1.8.1(000004.426) -> (000005.426), CRC unchanged
  const results = createDsmrDecoder().push(Buffer.concat([tampered, v5]), 0);
  assert.equal(results.length, 2);
  const [rejected, accepted] = results;
  assert.ok(rejected && !rejected.ok);
  assert.equal(rejected.error.kind, 'crc');
  assert.deepEqual(rejected.error.details, { field: '6EEE', computed: crcOf(rejected.frame!) });
  assert.ok(accepted?.ok);
  assert.equal(accepted.reading.values.get('1.8.1')?.value, 4.426);
});

function crcOf(frame: Buffer): string {
  return crcHex(crc16Arc(frame, frame.indexOf('/'), frame.indexOf('!') + 1));
}

test('a 10 MB stream without telegram end yields one overflow and then decodes again', (t) => {
  if (!requireCorpus(t)) return;
  const decoder = createDsmrDecoder({ maxFrameBytes: 4096 });
  const chunk = Buffer.alloc(256 * 1024, '1');
  const results: DecodeResult[] = [...decoder.push(Buffer.from('/ABC5 endless\r\n'), 0)];
  for (let sent = 0; sent < 10 * 1024 * 1024; sent += chunk.length) results.push(...decoder.push(chunk, 0));
  assert.deepEqual(
    results.map((r) => (r.ok ? 'ok' : r.error.kind)),
    ['overflow'],
  );
  const after = decoder.push(corpusFile('ndokter_v5.txt'), 0);
  assert.ok(after.length === 1 && after[0]!.ok);
});

test('reset drops a partial telegram', (t) => {
  if (!requireCorpus(t)) return;
  const v5 = corpusFile('ndokter_v5.txt');
  const decoder = createDsmrDecoder();
  assert.deepEqual(decoder.push(v5.subarray(0, 400), 0), []);
  decoder.reset();
  assert.deepEqual(decoder.push(v5.subarray(400), 0), []);
  assert.equal(decoder.push(v5, 0).length, 1);
});

test('parseDsmrCapture returns every telegram of a file, including one without final line end', (t) => {
  if (!requireCorpus(t)) return;
  const results = parseDsmrCapture(corpusFile('amshan_sweden_landisgyr_e360_a.txt'), 5);
  assert.equal(results.length, 1);
  const [result] = results;
  assert.ok(result?.ok);
  assert.equal(result.reading.receivedAt, 5);
  assert.deepEqual(result.reading.values.get('4.7.0'), { value: 0.308, unit: 'kvar' });
  assert.equal(parseDsmrCapture(Buffer.alloc(0)).length, 0);
});

test('a meter that sent a valid CRC is held to it: a later telegram without CRC is rejected as "crc"', () => {
  const body = '/ISK5\\2M550T-1012\r\n\r\n1-3:0.2.8(50)\r\n1-0:1.8.1(000004.426*kWh)\r\n!';
  const withCrc = Buffer.from(`${body}${crcHex(crc16Arc(Buffer.from(body), 0, body.length))}\r\n`, 'latin1');
  const without = Buffer.from(`${body.replace('4.426', '9.999')}\r\n`, 'latin1');
  // Alone (a DSMR 2.2 meter never sends a CRC), a telegram without CRC is read.
  assert.ok(createDsmrDecoder().push(without, 0)[0]?.ok);
  const decoder = createDsmrDecoder();
  const [first, second, third] = decoder.push(Buffer.concat([withCrc, without, withCrc]), 0);
  assert.ok(first?.ok);
  assert.ok(second && !second.ok);
  assert.equal(second.error.kind, 'crc');
  assert.match(second.error.message, /without CRC/);
  assert.ok(third?.ok);
  // The stream's history survives a reset (a reconnect to the same meter).
  decoder.reset();
  assert.equal(decoder.push(without, 0)[0]?.ok, false);
});
