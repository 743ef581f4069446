import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSmlCapture } from '../../../src/meter/sml/decoder.js';
import { parseSmlFrame } from '../../../src/meter/sml/parser.js';
import { TlReader } from '../../../src/meter/sml/tl.js';
import { requireCorpus } from '../../helpers/environment.js';
import { frameVariants } from './frame-variants.js';
import { assertSameAsParser, outcomesAfter, parsedOutcomes } from './layout-check.js';
import { withFixedFrameCrc } from './sml-builder.js';
import { corpusCases, corpusFile } from './sml-corpus.js';

/**
 * The learnt frame layout (src/meter/sml/frame-layout.ts) against the parser on real frames: the
 * decoder's Reading is the parser's for every frame, whatever changed since the layout was learnt.
 */

const FRAMES = [
  'smartmeter-obis_emh_ehz.bin',
  'libsml-testing/HOLLEY_DTZ541-ZDBA.bin',
  'libsml-testing/ISKRA_MT631-D1A52-K0z-H01_without_PIN.bin',
  'libsml-testing/DZG_DVS-7420.2V.G2_mtr2_neg.bin',
  'libsml-testing/EasyMeter_Q3A_A1064V1009.bin',
  'libsml-testing/ITRON_OpenWay-3.HZ_with_PIN.bin',
];

function okFrames(name: string): Buffer[] {
  return parseSmlCapture(corpusFile(name)).flatMap((result) => (result.ok ? [result.frame] : []));
}

test('corpus: every frame decodes as the parser decodes it; repeated layouts are read by the layout', (t) => {
  if (!requireCorpus(t)) return;
  let frames = 0;
  let byLayout = 0;
  for (const { name, bytes } of corpusCases()) {
    for (const crc of ['x25', 'kermit'] as const) {
      const decoded = outcomesAfter([], bytes, crc);
      const parsed = parseSmlCapture(bytes, { crc, receivedAt: 0 }).flatMap((result) =>
        result.frame === undefined ? [] : parsedOutcomes(result.frame, crc),
      );
      assert.deepStrictEqual(
        decoded.outcomes.filter((outcome) => outcome.ok || outcome.kind !== 'overflow'),
        parsed,
        `${name} (${crc})`,
      );
      frames += parsed.length;
      byLayout += decoded.byLayout;
    }
  }
  t.diagnostic(`${frames} frames, ${byLayout} read by a learnt layout`);
  assert.ok(byLayout >= 190, `only ${byLayout} frames read by a layout`);
});

test('changed values: read by the layout, as the parser reads them', (t) => {
  if (!requireCorpus(t)) return;
  for (const name of FRAMES) {
    const [frame] = okFrames(name);
    assert.ok(frame, name);
    const learnt = parsedOutcomes(frame)[0];
    for (const [index, variant] of frameVariants(frame, 8).entries()) {
      assert.equal(assertSameAsParser([frame], variant, `${name} variant ${index}`), 1, `${name}: by layout`);
      const [changed] = parsedOutcomes(variant);
      assert.ok(learnt?.ok && changed?.ok);
      assert.notDeepEqual([...changed.reading.values], [...learnt.reading.values], `${name}: values changed`);
    }
  }
});

test('every single-byte change with a recomputed CRC decodes as the parser decodes it', (t) => {
  if (!requireCorpus(t)) return;
  let checked = 0;
  for (const name of FRAMES.slice(0, 4)) {
    const [frame] = okFrames(name);
    assert.ok(frame);
    for (let at = 8; at < frame.length - 8; at++) {
      for (const mask of [0x01, 0x10, 0x80, 0xff]) {
        const changed = Buffer.from(frame);
        changed[at] = changed[at]! ^ mask;
        assertSameAsParser([frame], withFixedFrameCrc(changed), `${name}: byte ${at} ^ ${mask}`);
        checked += 1;
      }
    }
  }
  t.diagnostic(`${checked} changed frames`);
});

/** Offsets of each SML_ListEntry of the frame's first GetList.Res: [start, end) pairs. */
function entrySpans(frame: Buffer): Array<[number, number]> {
  const list = parseSmlFrame(frame).messages.find((message) => message.type === 'GetListResponse');
  assert.ok(list?.type === 'GetListResponse');
  return list.entries.map((entry) => {
    const start = entry.objName.byteOffset - frame.byteOffset - 2;
    assert.equal(frame[start], 0x77, 'entry as a list of 7 with a 6-byte objName');
    const reader = new TlReader(frame, start);
    reader.skipElement();
    return [start, reader.offset];
  });
}

/** The offset of the unit TL of the entry starting at `start` (after objName, status, valTime). */
function unitOffset(frame: Buffer, start: number): number {
  const reader = new TlReader(frame, start + 1);
  for (let i = 0; i < 3; i++) reader.skipElement();
  return reader.offset;
}

test('changed unit, scaler, server id, entry order, deleted bytes: decoded as the parser decodes them', (t) => {
  if (!requireCorpus(t)) return;
  for (const name of FRAMES) {
    const [frame] = okFrames(name);
    assert.ok(frame);
    const entries = entrySpans(frame);
    const mutations: Array<[string, Buffer]> = [];
    for (const [start] of entries) {
      const unit = unitOffset(frame, start);
      if (frame[unit] === 0x62) mutations.push(['unit', patch(frame, unit + 1, (byte) => byte ^ 0x03)]);
      if (frame[unit] === 0x62 && frame[unit + 2] === 0x52)
        mutations.push(['scaler', patch(frame, unit + 3, (byte) => (byte + 1) & 0xff)]);
    }
    for (let k = 0; k + 1 < entries.length; k++)
      mutations.push(['order', swapped(frame, entries[k]!, entries[k + 1]!)]);
    const serverId = serverIdEnd(frame);
    if (serverId !== undefined)
      mutations.push(['server id', patch(frame, serverId - 1, (byte) => byte ^ 0x40)]);
    for (const at of [9, 20, Math.floor(frame.length / 2), frame.length - 20])
      mutations.push(['deleted', Buffer.concat([frame.subarray(0, at), frame.subarray(at + 2)])]);
    mutations.push(['truncated', frame.subarray(0, frame.length - 12)]);
    for (const [what, mutated] of mutations) {
      const input = what === 'truncated' ? mutated : withFixedFrameCrc(mutated);
      assertSameAsParser([frame], input, `${name}: ${what}`);
    }
    t.diagnostic(`${name}: ${mutations.length} mutations`);
  }
});

/** The end offset of the first server id the frame's messages carry. */
function serverIdEnd(frame: Buffer): number | undefined {
  for (const message of parseSmlFrame(frame).messages) {
    const serverId = 'serverId' in message ? message.serverId : undefined;
    if (serverId?.length) return serverId.byteOffset - frame.byteOffset + serverId.length;
  }
  return undefined;
}

function patch(frame: Buffer, at: number, change: (byte: number) => number): Buffer {
  const copy = Buffer.from(frame);
  copy[at] = change(copy[at]!);
  return copy;
}

function swapped(frame: Buffer, [a, b]: [number, number], [c, d]: [number, number]): Buffer {
  return Buffer.concat([
    frame.subarray(0, a),
    frame.subarray(c, d),
    frame.subarray(b, c),
    frame.subarray(a, b),
    frame.subarray(d),
  ]);
}

test('a layout learnt from another meter: frames decoded as the parser decodes them, then learnt anew', (t) => {
  if (!requireCorpus(t)) return;
  const meters = FRAMES.map(okFrames);
  for (const [i, learnt] of meters.entries()) {
    for (const [j, frames] of meters.entries()) {
      if (i === j) continue;
      const [first, second] = frames;
      assert.ok(first && learnt[0]);
      assert.equal(assertSameAsParser([learnt[0]], first, `${FRAMES[j]} after ${FRAMES[i]}`), 0);
      if (second === undefined) continue;
      const after = outcomesAfter([learnt[0], first], second);
      assert.deepStrictEqual(after.outcomes, parsedOutcomes(second));
      assert.equal(after.byLayout, 1, `${FRAMES[j]}: relearnt`);
    }
  }
});
