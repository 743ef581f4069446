import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crc16Kermit } from '../../../src/meter/sml/crc16-x25.js';
import { createSmlDecoder } from '../../../src/meter/sml/decoder.js';
import { requireCorpus } from '../../helpers/environment.js';
import { frameVariants } from './frame-variants.js';
import { assertSameAsParser, outcomes, outcomesAfter, parsedOutcomes } from './layout-check.js';
import {
  closeResponse,
  i,
  list,
  message,
  octets,
  openResponse,
  transportFrame,
  u,
  type Tl,
} from './sml-builder.js';
import { corpusFile } from './sml-corpus.js';

/**
 * The learnt frame layout on frames built here: meter times, escaped data, the Kermit checksum,
 * and how learning goes for a meter whose layout keeps changing.
 */

const SERVER_ID = Buffer.from('0a01445a47000282225e', 'hex');
const T0 = 1_700_000_000;
const RECEIVED_AT = 1_700_000_000_000;

function entry(obis: number[], value: Tl, unit = 30, scaler = -1): Tl {
  return list(octets(Buffer.from(obis)), null, null, u(unit, 1), i(scaler, 1), value, null);
}

/** Open, GetList (with the given times and entries), Close in a transport frame. */
function frame(entries: Tl[], sensorTime: Tl = null, gatewayTime: Tl = null): Buffer {
  const getList = message(
    't2',
    0x0701,
    list(null, octets(SERVER_ID), null, sensorTime, list(...entries), null, gatewayTime),
  );
  return transportFrame(Buffer.concat([openResponse(SERVER_ID), getList, closeResponse()]));
}

const energy = (value: number, size = 4): Tl => entry([1, 0, 1, 8, 0, 255], u(value, size));

test('meter time: timestamps and local timestamps read by the layout as the parser reads them', () => {
  const times: Array<[string, (seconds: number) => Tl, (seconds: number) => Tl]> = [
    ['timestamp', (s) => list(u(2, 1), u(s, 4)), () => null],
    ['local timestamp', (s) => list(u(3, 1), list(u(s, 4), i(60, 2), i(60, 2))), () => null],
    ['6-byte timestamp', (s) => list(u(2, 1), u(s, 6)), () => null],
    ['signed timestamp', (s) => list(u(2, 1), i(s - T0 - 2, 4)), () => null],
    ['gateway timestamp', () => null, (s) => list(u(2, 1), u(s, 4))],
    ['second index, then gateway timestamp', (s) => list(u(1, 1), u(s, 4)), (s) => list(u(2, 1), u(s, 4))],
  ];
  for (const [what, sensor, gateway] of times) {
    const first = frame([energy(1000)], sensor(T0), gateway(T0));
    for (let k = 1; k < 5; k++) {
      const next = frame([energy(1000 + k)], sensor(T0 + k), gateway(T0 + k));
      assert.equal(assertSameAsParser([first], next, `${what} +${k}`), 1, `${what}: by layout`);
    }
  }
  const [withTime] = parsedOutcomes(frame([energy(1)], list(u(2, 1), u(T0 + 1, 4))));
  assert.ok(withTime?.ok);
  assert.equal(withTime.reading.meterTime, '2023-11-14T22:13:21Z');
});

test('escaped data: such frames are read by the parser, never by the layout', () => {
  const key = (bytes: Buffer): Tl => entry([129, 129, 199, 130, 5, 255], octets(bytes), 255, 0);
  const plain = frame([key(Buffer.alloc(12, 0x41)), energy(5)]);
  let escapedFrames = 0;
  for (let prefix = 0; prefix < 4; prefix++) {
    const text = Buffer.concat([
      Buffer.alloc(prefix, 0x41),
      Buffer.from('1b1b1b1b', 'hex'),
      Buffer.alloc(8 - prefix, 0x41),
    ]);
    const escaped = frame([key(text), energy(6)]);
    if (!escaped.subarray(8, -8).includes(Buffer.from('1b1b1b1b1b1b1b1b', 'hex'))) continue;
    escapedFrames += 1;
    assert.equal(assertSameAsParser([plain], escaped, `escaped at ${prefix}`), 0);
    // Learnt from an escaped frame: no layout; the next plain frame is parsed and learnt.
    const after = outcomesAfter([escaped, plain], frame([key(Buffer.alloc(12, 0x42)), energy(7)]));
    assert.equal(after.byLayout, 1);
    assert.equal(outcomesAfter([escaped], plain).byLayout, 0);
  }
  assert.equal(escapedFrames, 1, 'the 4-byte run lands on a block for one prefix in four');
});

test('Kermit frames (Holley): read by the layout with the Kermit checksum', (t) => {
  if (!requireCorpus(t)) return;
  const learnt = corpusFile('edge/smllib_test_frames_kermit_frame_issue_8_fixed.bin');
  const variants = frameVariants(learnt, 4).map((variant) => {
    const checksum = crc16Kermit(variant, 0, variant.length - 2);
    variant[variant.length - 2] = checksum >> 8;
    variant[variant.length - 1] = checksum & 0xff;
    return variant;
  });
  for (const variant of variants) {
    assert.equal(assertSameAsParser([learnt], variant, 'kermit', 'kermit'), 1);
    assert.deepEqual(
      outcomesAfter([learnt], variant, 'x25').outcomes.map((outcome) => outcome.ok || outcome.kind),
      ['crc'],
    );
  }
});

test('a meter alternating between two kinds of frame: both layouts kept', () => {
  const decoder = createSmlDecoder();
  for (let k = 0; k < 200; k++) {
    const bytes = k % 2 === 0 ? frame([energy(k)]) : frame([energy(k), entry([1, 0, 2, 8, 0, 255], u(k, 4))]);
    assert.deepStrictEqual(outcomes(decoder.push(bytes, RECEIVED_AT)), parsedOutcomes(bytes));
  }
  assert.equal(decoder.stats.framesByLayout, 198);
});

test('a meter whose layout keeps changing: learning pauses, and resumes for a steady one', () => {
  const decoder = createSmlDecoder();
  // Frame k has k + 1 entries: no layout ever matches a later frame.
  for (let k = 0; k < 40; k++) {
    const entries = Array.from({ length: k + 1 }, (_, n) => entry([1, 0, 1, 8, n, 255], u(k, 4)));
    const bytes = frame(entries);
    assert.deepStrictEqual(outcomes(decoder.push(bytes, RECEIVED_AT)), parsedOutcomes(bytes));
  }
  assert.equal(decoder.stats.framesByLayout, 0);
  for (let k = 0; k < 100; k++) {
    const bytes = frame([energy(k, 2), energy(k + 1, 2)]);
    assert.deepStrictEqual(outcomes(decoder.push(bytes, RECEIVED_AT)), parsedOutcomes(bytes));
  }
  const byLayout = decoder.stats.framesByLayout;
  assert.ok(
    byLayout > 30 && byLayout < 99,
    `${byLayout} steady frames by layout: learning paused, then resumed`,
  );
  assert.equal(decoder.stats.framesOk, 140);
});

test('frames larger than the WebAssembly memory: it grows, and such frames are read by the layout too', () => {
  // Two 40 kB values (public keys, say): template, mask and frame take more than the first 64 kB.
  const blob = (code: number, fill: number): Tl =>
    entry([129, 129, 199, 130, code, 255], octets(Buffer.alloc(40_000, fill)), 255, 0);
  const options = { maxFrameBytes: 200_000 };
  const learning = createSmlDecoder(options);
  const fresh = createSmlDecoder(options);
  learning.push(frame([blob(5, 0x41), blob(6, 0x41), energy(1)]), RECEIVED_AT);
  for (let k = 2; k < 5; k++) {
    const bytes = frame([blob(5, 0x41 + k), blob(6, 0x41), energy(k)]);
    assert.deepStrictEqual(
      outcomes(learning.push(bytes, RECEIVED_AT)),
      outcomes(fresh.push(bytes, RECEIVED_AT)),
    );
  }
  assert.equal(learning.stats.framesByLayout, 3);
});

test('reset forgets the layout: the next frame is parsed and learnt', () => {
  const decoder = createSmlDecoder();
  decoder.push(frame([energy(1)]), 0);
  decoder.push(frame([energy(2)]), 0);
  assert.equal(decoder.stats.framesByLayout, 1);
  decoder.reset();
  decoder.push(frame([energy(3)]), 0);
  decoder.push(frame([energy(4)]), 0);
  assert.deepEqual([decoder.stats.framesByLayout, decoder.stats.framesOk], [2, 4]);
});
