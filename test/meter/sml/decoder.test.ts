import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DecodeResult } from '../../../src/meter/decoder.js';
import { createSmlDecoder, parseSmlCapture } from '../../../src/meter/sml/decoder.js';
import { parseSmlFrame } from '../../../src/meter/sml/parser.js';
import { requireCorpus } from '../../helpers/environment.js';
import { closeResponse, getListResponse, octets, openResponse, transportFrame, u } from './sml-builder.js';
import { corpusFile } from './sml-corpus.js';

const SERVER_ID = Buffer.from('0a01454d480000a1bd34', 'hex');

/** A valid frame carrying `text` as an octet string value of 1-0:96.1.0*255 plus 1.8.0. */
function frameWith(text: Buffer, energy = 1234): Buffer {
  return transportFrame(
    Buffer.concat([
      openResponse(SERVER_ID),
      getListResponse(SERVER_ID, [
        { obis: [1, 0, 96, 1, 0, 255], value: octets(text) },
        { obis: [1, 0, 1, 8, 0, 255], unit: 30, scaler: -1, value: u(energy, 4) },
      ]),
      closeResponse(),
    ]),
  );
}

/** What a result says, comparable across chunkings. */
function summary(results: DecodeResult[]): string[] {
  return results.map((result) =>
    result.ok
      ? `ok ${JSON.stringify([...result.reading.values])}`
      : `${result.error.kind} ${result.frame?.length ?? 0}`,
  );
}

function decodeInChunks(bytes: Buffer, sizes: number[]): DecodeResult[] {
  const decoder = createSmlDecoder();
  const results: DecodeResult[] = [];
  let offset = 0;
  for (const size of sizes) {
    results.push(...decoder.push(bytes.subarray(offset, offset + size), 0));
    offset += size;
  }
  results.push(...decoder.push(bytes.subarray(offset), 0));
  return results;
}

test('chunked input: the same results at every split point and byte by byte', (t) => {
  if (!requireCorpus(t)) return;
  for (const name of [
    'edge/smartmeter-obis_stream_garbage_4frames.bin',
    'libsml-testing/EMH_eHZ-HW8E2A5L0EK2P.bin',
  ]) {
    const bytes = corpusFile(name);
    const whole = summary(parseSmlCapture(bytes, { receivedAt: 0 }));
    assert.ok(whole.filter((line) => line.startsWith('ok')).length >= 3, `${name}: frames decoded`);
    for (let split = 1; split < bytes.length; split++) {
      assert.deepEqual(summary(decodeInChunks(bytes, [split])), whole, `${name}: split at ${split}`);
    }
    assert.deepEqual(
      summary(decodeInChunks(bytes, Array<number>(bytes.length).fill(1))),
      whole,
      `${name}: bytewise`,
    );
    t.diagnostic(`${name}: ${bytes.length - 1} split points`);
  }
});

test('chunkings of the smartmeter-obis stream tests: 3 frames ok, 1 CRC error', (t) => {
  if (!requireCorpus(t)) return;
  const bytes = corpusFile('edge/smartmeter-obis_stream_garbage_4frames.bin');
  for (const sizes of [
    [668, 332, 332, 4],
    [667, 332, 334, 3],
  ]) {
    const results = decodeInChunks(bytes, sizes);
    assert.deepEqual(
      results.map((result) => (result.ok ? 'ok' : result.error.kind)),
      ['ok', 'crc', 'ok', 'ok'],
    );
  }
});

test('garbage between frames is skipped and counted as discarded runs', () => {
  const frames = [
    frameWith(Buffer.from('A')),
    frameWith(Buffer.from('B'), 99),
    frameWith(Buffer.from('C'), 7),
  ];
  const garbage = [
    Buffer.from('hello'),
    Buffer.from('1b1b1b1b1a00ffff1b1b1b', 'hex'),
    Buffer.from('01010101' + '1b'.repeat(7), 'hex'),
  ];
  const stream = Buffer.concat([garbage[0]!, frames[0]!, garbage[1]!, frames[1]!, garbage[2]!, frames[2]!]);
  const decoder = createSmlDecoder();
  const results = decoder.push(stream, 0);
  assert.deepEqual(
    results.map((result) => (result.ok ? result.reading.values.get('1.8.0')?.value : result.error.kind)),
    [0.1234, 0.0099, 0.0007],
  );
  assert.equal(decoder.stats.discardedRuns, 3);
  assert.equal(
    decoder.stats.discardedBytes,
    garbage.reduce((sum, run) => sum + run.length, 0),
  );
});

test('escaped 1b1b1b1b inside the data is unescaped; a misaligned run of 1b is plain data', () => {
  // The literal 1b1b1b1b lands on a 4-byte block (and is sent doubled) for one prefix length out
  // of four; the other layouts carry it unescaped. Every layout must give back the text.
  const doubledIn: number[] = [];
  for (const run of ['1b1b1b1b42', '1b1b1b1b1b1b1b1b1b']) {
    for (let prefix = 0; prefix < 4; prefix++) {
      const text = Buffer.concat([Buffer.alloc(prefix, 0x41), Buffer.from(run, 'hex')]);
      const frame = frameWith(text);
      if (frame.length - 8 * 4 > frameWith(Buffer.alloc(text.length)).length - 8 * 4) doubledIn.push(prefix);
      const [result] = parseSmlCapture(frame);
      assert.ok(result?.ok, `prefix ${prefix}: ${result && !result.ok ? result.error.message : ''}`);
      assert.equal(result.reading.values.get('1.8.0')?.value, 0.1234);
      const list = parseSmlFrame(frame).messages.find((message) => message.type === 'GetListResponse');
      assert.deepEqual(list?.type === 'GetListResponse' ? list.entries[0]?.value : undefined, text);
    }
  }
  assert.equal(doubledIn.length, 5, `escaping exercised once for the 4-byte run, always for the 9-byte run`);
});

test('a start escape inside a frame drops the partial frame and starts over', () => {
  const good = frameWith(Buffer.from('X'));
  const decoder = createSmlDecoder();
  const results = decoder.push(Buffer.concat([good.subarray(0, 100), good]), 0);
  assert.deepEqual(summary(results), summary(parseSmlCapture(good)));
  assert.equal(decoder.stats.discardedRuns, 1);
  assert.equal(decoder.stats.discardedBytes, 100);
});

test('an aligned escape with an unknown payload rejects the frame as a parse error', () => {
  const good = frameWith(Buffer.from('X'));
  const broken = Buffer.concat([
    good.subarray(0, 16),
    Buffer.from('1b1b1b1b02020202', 'hex'),
    good.subarray(16),
  ]);
  const results = parseSmlCapture(Buffer.concat([broken, good]));
  assert.deepEqual(
    results.map((result) => (result.ok ? 'ok' : result.error.kind)),
    ['parse', 'ok'],
  );
});

test('10 MB without a frame end: one overflow, memory bounded, decoding resumes', () => {
  const maxFrameBytes = 4096;
  const decoder = createSmlDecoder({ maxFrameBytes });
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  const results: DecodeResult[] = [...decoder.push(Buffer.from('1b1b1b1b01010101', 'hex'), 0)];
  let maxBuffered = 0;
  for (let sent = 0; sent < 10 * 1024 * 1024; sent += chunk.length) {
    results.push(...decoder.push(chunk, 0));
    maxBuffered = Math.max(maxBuffered, decoder.bufferedBytes);
  }
  assert.ok(maxBuffered <= 2 * maxFrameBytes, `buffered ${maxBuffered} bytes`);
  assert.deepEqual(
    results.map((result) => (result.ok ? 'ok' : result.error.kind)),
    ['overflow'],
  );
  const after = decoder.push(frameWith(Buffer.from('after')), 0);
  assert.equal(after.length, 1);
  assert.ok(after[0]!.ok);
  assert.equal(decoder.stats.overflows, 1);
});

test('10 MB in one push: bounded the same way', () => {
  const decoder = createSmlDecoder({ maxFrameBytes: 8192 });
  const huge = Buffer.alloc(10 * 1024 * 1024, 0x00);
  Buffer.from('1b1b1b1b01010101', 'hex').copy(huge, 0);
  const results = decoder.push(huge, 0);
  assert.equal(results.length, 1);
  assert.equal(results[0]!.ok ? 'ok' : results[0]!.error.kind, 'overflow');
  assert.ok(decoder.bufferedBytes < 8, `buffered ${decoder.bufferedBytes}`);
});

test('reset drops a partial frame; finish counts it as a discarded run', () => {
  const frame = frameWith(Buffer.from('Y'));
  const decoder = createSmlDecoder();
  assert.deepEqual(decoder.push(frame.subarray(0, 50), 0), []);
  decoder.reset();
  assert.equal(decoder.bufferedBytes, 0);
  assert.deepEqual(decoder.push(frame.subarray(50), 0), []);
  decoder.push(frame.subarray(0, 20), 0);
  decoder.finish();
  assert.equal(decoder.stats.discardedRuns, 2);
  assert.equal(decoder.stats.discardedBytes, frame.length - 50 + 20);
});

test('a frame with a good CRC but no GetList.Res is a parse error, not an empty reading', () => {
  const frame = transportFrame(Buffer.concat([openResponse(SERVER_ID), closeResponse()]));
  const [result] = parseSmlCapture(frame);
  assert.ok(result && !result.ok);
  assert.equal(result.error.kind, 'parse');
});

test('receivedAt and the raw frame travel with the reading', () => {
  const frame = frameWith(Buffer.from('Z'));
  const [result] = createSmlDecoder().push(frame, 1234567);
  assert.ok(result?.ok);
  assert.equal(result.reading.receivedAt, 1234567);
  assert.deepEqual(result.frame, frame);
  assert.throws(() => createSmlDecoder({ maxFrameBytes: 3 }), RangeError);
});
