import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireCorpus } from '../../helpers/environment.js';
import { decodeD0Frame } from '../../../src/meter/d0/decoder.js';
import { D0DirectReading } from '../../../src/meter/d0/direct-reading.js';
import { D0Framer, DEFAULT_MAX_FRAME_SIZE } from '../../../src/meter/d0/framer.js';
import { d0CorpusCases } from './corpus-files.js';
import { comparable } from './general-decoder.js';
import { bumpedBy, withBlockCheck, withChangedValues } from './readout-variants.js';

/**
 * D0DirectReading (general path, then the learnt layout) gives for every frame exactly the result
 * of the general path alone (decodeD0Frame): the same Reading, values in the same order, or a
 * rejection of the same kind. Readouts of the learnt layout with other values take the layout.
 */

interface CorpusFrame {
  name: string;
  frame: Buffer;
}

function corpusFrames(): CorpusFrame[] {
  return d0CorpusCases().flatMap(({ name, bytes }) => {
    const framer = new D0Framer();
    const events = [...framer.push(bytes), ...framer.flush()];
    return events.flatMap((event, k) =>
      event.kind === 'frame' ? [{ name: `${name}#${k}`, frame: event.frame }] : [],
    );
  });
}

/** Decodes `frame` with `reader`, asserts it equals the general path, returns the path taken. */
function decodeAndCompare(
  reader: D0DirectReading,
  frame: Buffer,
  verifyBlockCheck: boolean,
  label: string,
): string {
  const result = reader.decode(frame, 0);
  assert.deepStrictEqual(
    comparable(result),
    comparable(decodeD0Frame(frame, 0, { verifyBlockCheck })),
    label,
  );
  return reader.lastPath!;
}

const latin1 = (bytes: Buffer): string => bytes.toString('latin1');
const fromLatin1 = (text: string): Buffer => Buffer.from(text, 'latin1');

/** Data sets `address(...)...` after the identification line, as regular expression matches. */
function dataSets(text: string): RegExpExecArray[] {
  const from = text.startsWith('/') ? text.indexOf('\n') + 1 : 0;
  const pattern = /[0-9A-Z][^()\s!]*(?:\([^()]*\))+/g;
  pattern.lastIndex = from;
  return [...text.matchAll(pattern)];
}

function replaceAt(text: string, at: number, length: number, by: string): string {
  return text.slice(0, at) + by + text.slice(at + length);
}

/** Changes of structure: the learnt layout must not take them. Each gives undefined where it does not apply. */
const STRUCTURE_CHANGES: Record<string, (frame: Buffer) => Buffer | undefined> = {
  'value digit becomes a letter': (frame) => {
    const text = latin1(frame);
    const at = text.search(/\([^()*]*\d/);
    if (at < 0) return undefined;
    const digit = text.slice(at).search(/\d/) + at;
    return withBlockCheck(fromLatin1(replaceAt(text, digit, 1, 'X')));
  },
  'sign before a value': (frame) => {
    const text = latin1(frame);
    const at = text.search(/\(\d/);
    return at < 0 ? undefined : withBlockCheck(fromLatin1(replaceAt(text, at + 1, 1, '-')));
  },
  'decimal point moved': (frame) => {
    const match = /\((\d*)(\d)\.(\d)/.exec(latin1(frame));
    if (!match) return undefined;
    const at = match.index + 1 + match[1]!.length;
    return withBlockCheck(fromLatin1(replaceAt(latin1(frame), at, 3, `.${match[2]}${match[3]}`)));
  },
  'address order': (frame) => {
    const text = latin1(frame);
    const [first, second] = dataSets(text);
    if (!first || !second || first[0] === second[0]) return undefined;
    const swapped = replaceAt(text, second.index, second[0].length, first[0]);
    return withBlockCheck(fromLatin1(replaceAt(swapped, first.index, first[0].length, second[0])));
  },
  'address digit': (frame) => {
    const text = latin1(frame);
    const first = dataSets(text).find((set) => /\d/.test(set[0].slice(0, set[0].indexOf('('))));
    const digit = first ? first[0].search(/\d/) : -1;
    if (!first || digit < 0) return undefined;
    const changed = first[0][digit] === '9' ? '8' : String(Number(first[0][digit]) + 1);
    return withBlockCheck(fromLatin1(replaceAt(text, first.index + digit, 1, changed)));
  },
  'unit letter': (frame) => {
    const text = latin1(frame);
    const at = text.search(/\*[A-Za-z][^()]*\)/);
    if (at < 0) return undefined;
    const letter = text[at + 1] === 'k' ? 'M' : 'k';
    return withBlockCheck(fromLatin1(replaceAt(text, at + 1, 1, letter)));
  },
  'data set added': (frame) => {
    const text = latin1(frame);
    const bang = text.lastIndexOf('!');
    return bang < 0
      ? undefined
      : withBlockCheck(fromLatin1(replaceAt(text, bang, 0, '1-0:2.8.0(000001.000*kWh)\r\n')));
  },
  'data set removed': (frame) => {
    const text = latin1(frame);
    const [first] = dataSets(text);
    return first ? withBlockCheck(fromLatin1(replaceAt(text, first.index, first[0].length, ''))) : undefined;
  },
  'identification model': (frame) => {
    const text = latin1(frame);
    const end = text.startsWith('/') ? text.indexOf('\r') : -1;
    return end < 6 ? undefined : fromLatin1(replaceAt(text, end - 1, 1, text[end - 1] === 'Z' ? 'Y' : 'Z'));
  },
  'identification reaction time': (frame) => {
    const text = latin1(frame);
    if (!/^\/[A-Za-z]{3}/.test(text)) return undefined;
    const third = text[3]!;
    const flipped = third === third.toUpperCase() ? third.toLowerCase() : third.toUpperCase();
    return fromLatin1(replaceAt(text, 3, 1, flipped));
  },
  'noise line': (frame) => {
    const text = latin1(frame);
    const at = text.startsWith('/') ? text.indexOf('\n') + 1 : 1;
    return withBlockCheck(fromLatin1(replaceAt(text, at, 0, 'xy\r\n')));
  },
  truncated: (frame) => frame.subarray(0, frame.length >> 1),
  'bad BCC': (frame) => {
    const etx = frame.indexOf(0x03, frame.indexOf(0x02) + 1);
    if (frame.indexOf(0x02) < 0 || etx < 0 || etx + 1 >= frame.length) return undefined;
    const bad = Buffer.from(frame);
    bad[etx + 1] = frame[etx + 1]! ^ 0x41;
    return bad;
  },
  'values changed, BCC not recomputed': (frame) => {
    const changed = withChangedValues(frame, bumpedBy(3));
    const etx = frame.indexOf(0x03, frame.indexOf(0x02) + 1);
    if (frame.indexOf(0x02) < 0 || etx < 0 || etx + 1 >= frame.length || changed.equals(frame))
      return undefined;
    changed[etx + 1] = frame[etx + 1]!;
    return changed.equals(withBlockCheck(Buffer.from(changed))) ? undefined : changed;
  },
};

/** A reader that has learnt the layout of `frame` (when the general path accepts it). */
function learntReader(frame: Buffer, verifyBlockCheck: boolean, label: string): D0DirectReading {
  const reader = new D0DirectReading({ verifyBlockCheck, maxFrameSize: DEFAULT_MAX_FRAME_SIZE });
  assert.equal(decodeAndCompare(reader, frame, verifyBlockCheck, `${label} first`), 'general');
  const accepted = decodeD0Frame(frame, 0, { verifyBlockCheck }).ok;
  assert.equal(
    decodeAndCompare(reader, frame, verifyBlockCheck, `${label} again`),
    accepted ? 'layout' : 'general',
  );
  return reader;
}

test('corpus readouts with other values take the learnt layout and read like the general path', (t) => {
  if (!requireCorpus(t)) return;
  let layoutReads = 0;
  for (const { name, frame } of corpusFrames()) {
    for (const verify of [true, false]) {
      const reader = learntReader(frame, verify, name);
      const accepted = decodeD0Frame(frame, 0, { verifyBlockCheck: verify }).ok;
      for (let n = 1; n <= 16; n++) {
        const variant = withChangedValues(frame, bumpedBy(n * 7));
        const path = decodeAndCompare(reader, variant, verify, `${name} (verify ${verify}) variant ${n}`);
        if (accepted) assert.equal(path, 'layout', `${name} variant ${n} by the layout`);
        if (path === 'layout') layoutReads++;
      }
    }
  }
  t.diagnostic(`layout reads: ${layoutReads}`);
  assert.ok(layoutReads > 0);
});

test('changes of structure after a layout was learnt read like the general path, not by the layout', (t) => {
  if (!requireCorpus(t)) return;
  const applied = new Map<string, number>();
  for (const { name, frame } of corpusFrames()) {
    for (const [change, mutate] of Object.entries(STRUCTURE_CHANGES)) {
      const changed = mutate(frame);
      if (!changed || changed.equals(frame)) continue;
      for (const verify of [true, false]) {
        const label = `${name}: ${change} (verify ${verify})`;
        const reader = learntReader(frame, verify, label);
        const path = decodeAndCompare(reader, changed, verify, label);
        const onlyBcc = change === 'bad BCC' || change.startsWith('values changed');
        if (!(onlyBcc && !verify)) assert.equal(path, 'general', `${label}: not by the layout`);
      }
      applied.set(change, (applied.get(change) ?? 0) + 1);
    }
  }
  t.diagnostic(JSON.stringify(Object.fromEntries(applied)));
  for (const change of Object.keys(STRUCTURE_CHANGES)) assert.ok(applied.get(change), `${change} applied`);
});

test('layouts of other readouts: invalidated, relearnt, and alternating meters keep theirs', (t) => {
  if (!requireCorpus(t)) return;
  const frames = corpusFrames();
  const reader = new D0DirectReading({ verifyBlockCheck: true, maxFrameSize: DEFAULT_MAX_FRAME_SIZE });
  const paths: string[] = [];
  for (let round = 0; round < 4; round++) {
    for (const [k, { name, frame }] of frames.entries()) {
      const variant = withChangedValues(frame, bumpedBy(round * 13 + k));
      paths.push(decodeAndCompare(reader, variant, true, `${name} round ${round}`));
    }
  }
  // two meters alternating: both layouts stay learnt
  const [a, b] = frames.filter(({ frame }) => decodeD0Frame(frame, 0).ok);
  const alternating = new D0DirectReading({ verifyBlockCheck: true, maxFrameSize: DEFAULT_MAX_FRAME_SIZE });
  const turns = [a!, b!, a!, b!, a!, b!].map(({ name, frame }, n) =>
    decodeAndCompare(alternating, withChangedValues(frame, bumpedBy(n)), true, `${name} turn ${n}`),
  );
  assert.deepEqual(turns, ['general', 'general', 'layout', 'layout', 'layout', 'layout']);
  t.diagnostic(`paths: ${paths.filter((p) => p === 'layout').length} layout of ${paths.length}`);
});
