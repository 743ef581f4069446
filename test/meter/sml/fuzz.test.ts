import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { DecodeResult } from '../../../src/meter/decoder.js';
import { frameChecksum } from '../../../src/meter/sml/crc16-x25.js';
import { createSmlDecoder, parseSmlCapture, type SmlDecoder } from '../../../src/meter/sml/decoder.js';
import { requireCorpus } from '../../helpers/environment.js';
import {
  closeResponse,
  getListResponse,
  i,
  octets,
  openResponse,
  transportFrame,
  u,
  withFixedFrameCrc,
} from './sml-builder.js';
import { corpusFile } from './sml-corpus.js';

/**
 * Fuzzing the decoder with random byte streams and mutated real frames (100,000 runs in all):
 * push() never throws, every frame it completes yields exactly one counted result, memory stays
 * bounded, and a valid frame after any garbage is still decoded.
 */

const MAX_FRAME_BYTES = 2048;
/** A hang guard for the whole file, not a performance assertion. */
const HANG_GUARD = { timeout: 120_000 };

const START = Buffer.from('1b1b1b1b01010101', 'hex');

const syntheticFrames: Buffer[] = [0, 1, 2].map((variant) =>
  transportFrame(
    Buffer.concat([
      openResponse(Buffer.from('0a01445a47000282225e', 'hex')),
      getListResponse(Buffer.from('0a01445a47000282225e', 'hex'), [
        { obis: [1, 0, 1, 8, 0, 255], unit: 30, scaler: -1, value: u(54301577 + variant, 8) },
        { obis: [1, 0, 16, 7, 0, 255], unit: 27, scaler: -2, value: i(-29912 * variant, 3) },
        { obis: [129, 129, 199, 130, 3, 255], value: octets(Buffer.from('1b1b1b1b1b1b1b1b', 'hex')) },
      ]),
      closeResponse(),
    ]),
  ),
);

/** Byte patterns that steer random input into the framer's and parser's interesting states. */
const PATTERNS: readonly Buffer[] = [
  START,
  Buffer.from('1b1b1b1b', 'hex'),
  Buffer.from('1b1b1b1b1a00', 'hex'),
  Buffer.from('1b1b1b1b1a03', 'hex'),
  Buffer.from('1b1b1b1b1b1b1b1b', 'hex'),
  Buffer.from('76', 'hex'),
  Buffer.from('7707', 'hex'),
  Buffer.from('8302', 'hex'),
  Buffer.from('f1', 'hex'),
  Buffer.from('59', 'hex'),
  Buffer.from('00', 'hex'),
];

/** Random bytes with a few of the patterns spliced in at random places. */
const randomStream = fc
  .tuple(
    fc.uint8Array({ maxLength: 256 }),
    fc.array(fc.tuple(fc.nat(), fc.nat(PATTERNS.length - 1)), { maxLength: 10 }),
  )
  .map(([bytes, inserts]) => {
    let stream = Buffer.from(bytes);
    for (const [at, pattern] of inserts) {
      const position = at % (stream.length + 1);
      stream = Buffer.concat([stream.subarray(0, position), PATTERNS[pattern]!, stream.subarray(position)]);
    }
    return stream;
  });

type Mutation =
  | { op: 'flip'; at: number; mask: number }
  | { op: 'insert'; at: number; bytes: Uint8Array }
  | { op: 'delete'; at: number; count: number }
  | { op: 'truncate'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 6 }),
  }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
);

function mutate(frame: Buffer, mutations: Mutation[]): Buffer {
  let bytes = Buffer.from(frame);
  for (const change of mutations) {
    const at = change.at % Math.max(1, bytes.length);
    if (change.op === 'flip') bytes[at] = bytes[at]! ^ change.mask;
    if (change.op === 'insert')
      bytes = Buffer.concat([bytes.subarray(0, at), change.bytes, bytes.subarray(at)]);
    if (change.op === 'delete')
      bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + change.count)]);
    if (change.op === 'truncate') bytes = bytes.subarray(0, at);
  }
  return bytes;
}

/** Feeds `bytes` in chunks of `chunk` bytes, checking the invariants after every push. */
function feed(decoder: SmlDecoder, bytes: Buffer, chunk: number): DecodeResult[] {
  const results: DecodeResult[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunk) {
    results.push(...decoder.push(bytes.subarray(offset, offset + chunk), 0));
    if (decoder.bufferedBytes > 2 * MAX_FRAME_BYTES) assert.fail(`buffered ${decoder.bufferedBytes} bytes`);
  }
  return results;
}

function assertCountersAddUp(decoder: SmlDecoder, results: DecodeResult[]): void {
  const { framesOk, crcErrors, parseErrors, overflows } = decoder.stats;
  assert.equal(results.length, framesOk + crcErrors + parseErrors + overflows);
  assert.equal(results.filter((result) => result.ok).length, framesOk);
  for (const result of results) {
    if (result.ok) {
      const { computed, stored } = frameChecksum(result.frame, 'x25');
      assert.equal(computed, stored, 'only frames with a matching CRC are accepted');
    }
    if (result.ok || result.error.kind !== 'overflow') assert.ok(result.frame?.subarray(0, 8).equals(START));
    // Every rejection is one the parser meant: no RangeError or TypeError caught by the decoder.
    if (!result.ok && result.error.details.unexpected === true) assert.fail(result.error.message);
  }
}

function mutatedFrameProperty(seeds: Buffer[]): fc.IPropertyWithHooks<[number, Mutation[], boolean, number]> {
  return fc.property(
    fc.nat(),
    fc.array(mutation, { minLength: 1, maxLength: 4 }),
    fc.boolean(),
    fc.integer({ min: 1, max: 512 }),
    (pick, mutations, fixCrc, chunk) => {
      const mutated = mutate(seeds[pick % seeds.length]!, mutations);
      const input = fixCrc && mutated.length > 2 ? withFixedFrameCrc(mutated) : mutated;
      const decoder = createSmlDecoder({ maxFrameBytes: MAX_FRAME_BYTES });
      const results = feed(decoder, input, chunk);
      decoder.finish();
      assertCountersAddUp(decoder, results);
    },
  );
}

test('fuzz: random byte streams in random chunks (40,000 runs)', HANG_GUARD, () => {
  fc.assert(
    fc.property(randomStream, fc.integer({ min: 1, max: 300 }), (bytes, chunk) => {
      const decoder = createSmlDecoder({ maxFrameBytes: MAX_FRAME_BYTES });
      const results = feed(decoder, bytes, chunk);
      assertCountersAddUp(decoder, results);
    }),
    { numRuns: 40_000 },
  );
});

test('fuzz: mutated synthetic frames, with and without a recomputed CRC (25,000 runs)', HANG_GUARD, () => {
  fc.assert(mutatedFrameProperty(syntheticFrames), { numRuns: 25_000 });
});

test('fuzz: mutated real frames, with and without a recomputed CRC (20,000 runs)', HANG_GUARD, (t) => {
  if (!requireCorpus(t)) return;
  const seeds = [
    'libsml-testing/DZG_DVS-7412.2_jmberg.bin',
    'libsml-testing/EMH_eHZ-HW8E2A5L0EK2P_2.bin',
    'libsml-testing/ITRON_OpenWay-3.HZ.bin',
    'libsml-testing/HOLLEY_DTZ541-ZDBA.bin',
    'libsml-testing/EasyMeter_Q3A_A1064V1009.bin',
    'smllib/smllib_test_frames_frame2.bin',
  ].flatMap((name) =>
    parseSmlCapture(corpusFile(name)).flatMap((result) => (result.ok ? [result.frame] : [])),
  );
  assert.ok(seeds.length >= 6);
  fc.assert(mutatedFrameProperty(seeds), { numRuns: 20_000 });
});

test('fuzz: a valid frame after any garbage is decoded (15,000 runs)', HANG_GUARD, () => {
  fc.assert(
    fc.property(randomStream, fc.nat(), fc.integer({ min: 1, max: 300 }), (garbage, pick, chunk) => {
      // A 0x1b in the last 8 garbage bytes could open an escape sequence that swallows the
      // frame's start escape (as 1b1b1b1b 1b1b1b1b = escaped data would); keep the tail clean.
      const clean = Buffer.concat([garbage.subarray(0, MAX_FRAME_BYTES / 2), Buffer.alloc(8, 0x20)]);
      const frame = syntheticFrames[pick % syntheticFrames.length]!;
      const decoder = createSmlDecoder({ maxFrameBytes: MAX_FRAME_BYTES });
      const results = feed(decoder, Buffer.concat([clean, frame]), chunk);
      assertCountersAddUp(decoder, results);
      const last = results.at(-1);
      assert.ok(last?.ok, last && !last.ok ? last.error.message : 'no result');
      assert.deepEqual(last.frame, frame);
    }),
    { numRuns: 15_000 },
  );
});
