import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { requireCorpus } from '../../helpers/environment.js';
import { MeterDataError } from '../../../src/meter/decoder.js';
import { createD0Decoder } from '../../../src/meter/d0/decoder.js';
import { D0Framer } from '../../../src/meter/d0/framer.js';
import { type D0Object, type D0Readout, type D0Value, parseD0Readout } from '../../../src/meter/d0/parser.js';
import type { ObisAddress } from '../../../src/meter/d0/obis-address.js';
import { d0ReadoutToReading } from '../../../src/meter/d0/to-reading.js';
import { toCanonical } from '../../../src/reading/units.js';
import { type D0CorpusCase, d0CorpusCases, type ExpectedObject } from './corpus-files.js';

const FRAME_START = /^(identification|readout|telegram)/;
const FRAME_PART = /^(acknowledgement|echo of host ACK|data|rest of telegram)/;
const OUTSIDE_FRAMES = /^(echo of host request|trailing bytes|garbage)/;

/** Frame lengths and garbage byte count the segments of a corpus file describe. */
function framesFromSegments(corpusCase: D0CorpusCase): { frames: number[]; garbage: number } {
  const frames: number[] = [];
  let garbage = 0;
  for (const segment of corpusCase.expected.segments) {
    if (FRAME_START.test(segment.kind)) frames.push(segment.length);
    else if (FRAME_PART.test(segment.kind) && frames.length > 0) frames[frames.length - 1]! += segment.length;
    else if (OUTSIDE_FRAMES.test(segment.kind)) garbage += segment.length;
    else throw new Error(`${corpusCase.name}: segment kind not understood: ${segment.kind}`);
  }
  return { frames, garbage };
}

function framesOf(bytes: Buffer): Buffer[] {
  const framer = new D0Framer();
  const events = [...framer.push(bytes), ...framer.flush()];
  return events.flatMap((event) => (event.kind === 'frame' ? [event.frame] : []));
}

interface ExpectedAddress {
  a?: number;
  b?: number;
  c: number;
  d: number;
  e?: number;
  f?: number;
}

/** Keys as smartmeter-obis prints them: `A-B:C.D[.E][*F]` or `C.D[.E][*F]`. */
function parseExpectedKey(key: string): ExpectedAddress {
  const match = /^(?:(\d+)-(\d+):)?(\d+)\.(\d+)(?:\.(\d+))?(?:\*(\d+))?$/.exec(key);
  if (!match) throw new Error(`expected key not understood: ${key}`);
  const group = (i: number): number | undefined => (match[i] === undefined ? undefined : Number(match[i]));
  return { a: group(1), b: group(2), c: group(3)!, d: group(4)!, e: group(5), f: group(6) };
}

/** Our object for an expected key; medium/channel compared only where the readout states them. */
function findObject(readout: D0Readout, key: string): D0Object | undefined {
  const want = parseExpectedKey(key);
  return readout.objects.find(({ obis }) => {
    if (obis.c !== want.c || obis.d !== want.d || obis.e !== want.e || obis.f !== want.f) return false;
    return obis.a === undefined || (obis.a === want.a && obis.b === want.b);
  });
}

function parenthesisContents(raw: string): string[] {
  return [...raw.matchAll(/\(([^)]*)\)/g)].map((m) => m[1]!);
}

function isCurrentElectricity(object: D0Object): boolean {
  const { a, c, e, f } = object.obis;
  return (
    (a === undefined || a === 1) && c >= 1 && c <= 92 && e !== undefined && (f === undefined || f === 255)
  );
}

function checkObject(readout: D0Readout, key: string, expected: ExpectedObject): void {
  const object: D0Object | undefined = findObject(readout, key);
  assert.ok(object, `data set ${key} present`);
  if (expected.raw !== undefined) assert.equal(parenthesisContents(object.raw).join(', '), expected.raw, key);
  const reading = d0ReadoutToReading(readout, 0);
  for (const [index, want] of (expected.values ?? []).entries()) {
    const got: D0Value | undefined = object.values[index];
    assert.ok(got, `${key} value ${index} present`);
    if (typeof want.value === 'number') assert.equal(Number(got.value), want.value, `${key} value ${index}`);
    else assert.equal(got.value, want.value, `${key} value ${index}`);
    if (want.unit !== undefined) assert.equal(got.unit, want.unit, `${key} unit ${index}`);
    if (index === 0 && typeof want.value === 'number' && isCurrentElectricity(object)) {
      const obis: ObisAddress = object.obis;
      assert.deepEqual(
        reading.values.get(`${obis.c}.${obis.d}.${obis.e}`),
        toCanonical(want.value, want.unit ?? got.unit),
      );
    }
  }
}

/** `_meta` fields with a counterpart here; the others are smartmeter-obis run options. */
function checkMeta(readout: D0Readout, meta: Record<string, unknown>, checked: string[]): void {
  const id = readout.identification;
  if (meta.deviceManufacturer !== undefined) {
    assert.equal(id?.prefix, meta.deviceManufacturer);
    checked.push('manufacturer');
  }
  if (meta.commBaudrateChangeover !== undefined) {
    assert.equal(id?.proposedBaud, meta.commBaudrateChangeover);
    checked.push('baud');
  }
  if (meta.commMode === 'E') {
    assert.notEqual(id?.enhancedId, undefined, 'mode E is announced by a \\W enhanced identification');
    checked.push('enhanced id');
  }
  if (meta.object_count !== undefined) {
    assert.equal(readout.objects.length, meta.object_count);
    checked.push('object count');
  }
}

function checkBlockCheck(corpusCase: D0CorpusCase, frame: Buffer): void {
  const check = corpusCase.expected.block_check;
  if (!check.present) {
    assert.equal(parseD0Readout(frame, { verifyBlockCheck: false }).blockCheck.present, false);
    return;
  }
  const field = Number.parseInt(check.field_hex!, 16);
  const computed = Number.parseInt(check.computed_hex!, 16);
  if (check.verifies) {
    assert.deepEqual(parseD0Readout(frame).blockCheck, { present: true, expected: field, computed });
  } else {
    assert.throws(
      () => parseD0Readout(frame),
      (error) =>
        error instanceof MeterDataError && error.kind === 'crc' && error.details.computed === computed,
    );
    const results = createD0Decoder().push(corpusCase.bytes, 0);
    assert.equal(results.filter((r) => !r.ok && r.error.kind === 'crc').length, 1);
  }
}

function checkCase(t: TestContext, corpusCase: D0CorpusCase): string {
  const segments = framesFromSegments(corpusCase);
  const framer = new D0Framer();
  const events = [...framer.push(corpusCase.bytes), ...framer.flush()];
  const frames = framesOf(corpusCase.bytes);
  assert.deepEqual(
    frames.map((f) => f.length),
    segments.frames,
    'frames as the segments describe',
  );
  assert.equal(framer.counters.garbageBytes, segments.garbage, 'bytes outside frames');
  assert.equal(events.length, frames.length);
  const checked = ['frames'];
  if (frames[0]) {
    checkBlockCheck(corpusCase, frames[0]);
    checked.push('bcc');
  }
  const readout = parseD0Readout(frames[0] ?? corpusCase.bytes, { verifyBlockCheck: false });
  for (const [key, expected] of Object.entries(corpusCase.expected.expected ?? {})) {
    if (key === '_meta') checkMeta(readout, expected as Record<string, unknown>, checked);
    else {
      checkObject(readout, key, expected as ExpectedObject);
      checked.push(key);
    }
  }
  t.diagnostic(`${corpusCase.name}: ${checked.join(', ')}`);
  return corpusCase.name;
}

test('every D0 corpus file with an .expected.json conforms', async (t) => {
  if (!requireCorpus(t)) return;
  const cases = d0CorpusCases();
  assert.ok(cases.length >= 12, `corpus d0 files found: ${cases.length}`);
  const ran: string[] = [];
  for (const corpusCase of cases) {
    await t.test(corpusCase.name, (tt) => {
      ran.push(checkCase(tt, corpusCase));
    });
  }
  t.diagnostic(`corpus files checked (${ran.length}): ${ran.join(' ')}`);
});

test('the garbage line before the first data set is skipped and counted', (t) => {
  if (!requireCorpus(t)) return;
  const corpusCase = d0CorpusCases().find((c) => c.name.endsWith('garbage_before_first_linebreak.txt'));
  assert.ok(corpusCase);
  const readout = parseD0Readout(corpusCase.bytes);
  assert.equal(readout.invalidParts, 1);
  assert.deepEqual(
    readout.objects.map((o) => o.obis.text),
    ['1-1:52.7.0', '1-1:72.7.0', '1-1:31.7.0', '1-1:51.7.0', '1-1:71.7.0', '1-1:1.7.0', '1-1:2.7.0'],
  );
  assert.deepEqual(readout.objects[0]!.values, [{ value: '230.5', unit: 'V' }]);
});

test('two mode D pushes in one stream give two readings with their own values', (t) => {
  if (!requireCorpus(t)) return;
  const corpusCase = d0CorpusCases().find((c) => c.name === 'smartmeter-obis_emh_ehz_push_x2.txt');
  assert.ok(corpusCase);
  const results = createD0Decoder().push(corpusCase.bytes, 0);
  assert.deepEqual(
    results.map((r) => (r.ok ? r.reading.values.get('1.8.1') : r.error.kind)),
    [
      { value: 32942.0231, unit: 'kWh' },
      { value: 32942.0234, unit: 'kWh' },
    ],
  );
});
