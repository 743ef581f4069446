import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DecodeResult } from '../../../src/meter/decoder.js';
import { createSmlDecoder, type SmlDecoderOptions } from '../../../src/meter/sml/decoder.js';
import { parseSmlFrame } from '../../../src/meter/sml/parser.js';
import type { Reading } from '../../../src/reading/reading.js';
import { toCanonical } from '../../../src/reading/units.js';
import { requireCorpus } from '../../helpers/environment.js';
import { corpusCases, type CorpusCase, type ExpectedFrame } from './sml-corpus.js';

/**
 * Conformance over every SML capture with an expected JSON in the capture corpus (sml/): frame counts,
 * rejected frames, and every value the sources state (libsml-testing via the sml-rs snapshots,
 * SmlLib entry counts, smartmeter-obis values and behaviours).
 */

const ELECTRICITY_OBIS = /^1-0:(\d+\.\d+\.\d+)\*255$/;
const MANUFACTURER_OBIS = new Set(['1-0:96.50.1*1', '129-129:199.130.3*255']);

/**
 * Edge files whose crc_check (a simple 4-byte-aligned splitter) says "incomplete" but whose
 * expected_behaviour says a strict parser rejects the frame: the deleted bytes misalign the end
 * escape, which the framer still finds, and the CRC then fails.
 */
const STRICT_REJECTIONS: Record<string, number> = { 'edge/smartmeter-obis_emh_2bytes_deleted.bin': 1 };

interface Decoded {
  results: DecodeResult[];
  readings: Reading[];
  stats: ReturnType<typeof createSmlDecoder>['stats'];
  bufferedAtEnd: number;
}

function decode(bytes: Buffer, options: SmlDecoderOptions = {}): Decoded {
  const decoder = createSmlDecoder(options);
  const results = decoder.push(bytes, 1_700_000_000_000);
  const bufferedAtEnd = decoder.bufferedBytes;
  decoder.finish();
  const readings = results.flatMap((result) => (result.ok ? [result.reading] : []));
  return { results, readings, stats: decoder.stats, bufferedAtEnd };
}

function checkFrameValues(reading: Reading, frame: ExpectedFrame, where: string): void {
  const expected = new Map<string, ReturnType<typeof toCanonical>>();
  let manufacturer: string | undefined;
  for (const message of frame.messages ?? []) {
    for (const entry of message.entries ?? []) {
      const key = ELECTRICITY_OBIS.exec(entry.obis)?.[1];
      if (key !== undefined && typeof entry.raw_value === 'number' && entry.value !== undefined) {
        expected.set(key, toCanonical(Number(entry.value), entry.unit ?? ''));
      }
      if (MANUFACTURER_OBIS.has(entry.obis) && typeof entry.raw_value === 'object')
        manufacturer = entry.raw_value.ascii;
    }
  }
  assert.deepEqual(Object.fromEntries(reading.values), Object.fromEntries(expected), `${where}: values`);
  if (manufacturer !== undefined && /^[A-Z]{3}$/.test(manufacturer)) {
    assert.equal(reading.identity.prefix, manufacturer, `${where}: server id prefix vs manufacturer entry`);
  }
  assert.equal(reading.protocol, 'SML');
}

/** libsml-testing: counts and values from the sml-rs snapshot. */
function checkSnapshotCase({ name, bytes, expected }: CorpusCase): void {
  const { readings, stats } = decode(bytes);
  const frames = expected.frames ?? [];
  const summary = expected.summary!;
  const invalidMessages = frames.filter((frame) => frame.error?.__type === 'InvalidMessage').length;
  assert.equal(stats.framesOk, summary.frames_ok, `${name}: frames ok`);
  assert.equal(stats.crcErrors, invalidMessages, `${name}: frames rejected by CRC`);
  assert.equal(stats.crcErrors + stats.discardedRuns, summary.frames_error, `${name}: frames in error`);
  assert.equal(stats.parseErrors + stats.overflows, 0, `${name}: no parse errors`);
  const okFrames = frames.filter((frame) => frame.ok);
  okFrames.forEach((frame, index) => checkFrameValues(readings[index]!, frame, `${name} ok frame ${index}`));
  for (const [obis, value] of Object.entries(expected.key_values_first_ok_frame ?? {})) {
    const key = ELECTRICITY_OBIS.exec(obis)?.[1];
    if (key !== undefined)
      assert.deepEqual(readings[0]?.values.get(key), toCanonical(Number(value.value), value.unit));
  }
}

function entryCount(frame: Buffer, options: Parameters<typeof parseSmlFrame>[1] = {}): number {
  return parseSmlFrame(frame, options).messages.reduce(
    (sum, message) => sum + (message.type === 'GetListResponse' ? message.entries.length : 0),
    0,
  );
}

/** SmlLib frames: the number of list entries the source test asserts. */
function checkEntryCountCase({ name, bytes, expected }: CorpusCase): void {
  const count = expected.expected_obis_entry_count!;
  const crcKinds = (expected.crc_check?.frames ?? []).map((frame) => frame.crc);
  if (crcKinds.length === 0) {
    assert.equal(entryCount(bytes), count, `${name}: entries of the bare messages`);
    return;
  }
  if (crcKinds.includes('kermit-be')) {
    const strict = decode(bytes);
    assert.equal(strict.stats.crcErrors, 1, `${name}: X-25 check rejects the Kermit frame`);
    const kermit = decode(bytes, { crc: 'kermit' });
    assert.equal(kermit.stats.framesOk, 1, `${name}: accepted with crc 'kermit'`);
    assert.equal(entryCount(bytes, { crc: 'kermit' }), count, `${name}: entries`);
    return;
  }
  const { stats } = decode(bytes);
  assert.equal(stats.framesOk, 1, `${name}: frame ok`);
  assert.equal(entryCount(bytes), count, `${name}: entries`);
}

/** smartmeter-obis and SmlLib stream cases: per-frame CRC results and stated values. */
function checkBehaviourCase({ name, bytes, expected }: CorpusCase): void {
  const { results, readings, stats, bufferedAtEnd } = decode(bytes);
  const kinds = (expected.crc_check?.frames ?? []).map((frame) => frame.crc);
  const rejected = kinds.filter((kind) => kind.startsWith('BAD')).length + (STRICT_REJECTIONS[name] ?? 0);
  assert.equal(stats.framesOk, kinds.filter((kind) => kind === 'x25-le').length, `${name}: frames ok`);
  assert.equal(stats.crcErrors, rejected, `${name}: frames rejected by CRC`);
  assert.equal(results.length, stats.framesOk + rejected, `${name}: one result per frame`);
  const behaviour = expected.expected_behaviour ?? '';
  if (behaviour.includes('keeps all bytes buffered'))
    assert.equal(bufferedAtEnd, bytes.length, `${name}: buffered`);
  if (behaviour.includes('holds exactly 1b1b1b1b01010101'))
    assert.equal(bufferedAtEnd, 8, `${name}: buffered`);
  for (const [obis, stated] of Object.entries(expected.expected ?? {})) {
    const value = stated.values[0]!;
    const key = ELECTRICITY_OBIS.exec(obis)?.[1];
    if (key !== undefined) {
      assert.deepEqual(
        readings[0]?.values.get(key),
        toCanonical(Number(value.value), value.unit),
        `${name}: ${obis}`,
      );
    } else if (MANUFACTURER_OBIS.has(obis)) {
      assert.equal(readings[0]?.identity.prefix, value.value, `${name}: ${obis}`);
    }
  }
}

test('SML corpus conformance: every capture with an expected JSON', async (t) => {
  if (!requireCorpus(t)) return;
  const cases = corpusCases();
  assert.ok(cases.length > 0, 'no SML captures found in the corpus');
  for (const corpusCase of cases) {
    const { expected } = corpusCase;
    await t.test(corpusCase.name, () => {
      if (expected.summary) checkSnapshotCase(corpusCase);
      else if (expected.expected_obis_entry_count !== undefined) checkEntryCountCase(corpusCase);
      else checkBehaviourCase(corpusCase);
    });
    t.diagnostic(`ran ${corpusCase.name}`);
  }
  t.diagnostic(`${cases.length} SML captures checked`);
});
