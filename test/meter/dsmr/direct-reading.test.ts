import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { DirectReading } from '../../../src/meter/dsmr/direct-reading.js';
import { parseDsmrTelegram } from '../../../src/meter/dsmr/parser.js';
import { dsmrToReading } from '../../../src/meter/dsmr/to-reading.js';
import type { Reading } from '../../../src/reading/reading.js';
import { requireCorpus } from '../../helpers/environment.js';
import { corpusFile, dsmrCorpusDir } from './corpus-cases.js';

/**
 * DirectReading (telegram text -> Reading, line by line or by a learnt layout) must give exactly
 * the Reading of parseDsmrTelegram + dsmrToReading whenever it gives one.
 */
function generalReading(text: string): Reading | string {
  try {
    return dsmrToReading(parseDsmrTelegram(text), 1000);
  } catch (error) {
    return `rejected: ${String(error)}`;
  }
}

/** Reads `text` with `reader`; asserts agreement with the general path; returns the path taken. */
function readAndCompare(reader: DirectReading, text: string, label: string): string {
  const direct = reader.read(text, 1000);
  if (direct === undefined) return 'general';
  assert.deepStrictEqual(direct, generalReading(text), label);
  assert.deepStrictEqual(
    [...direct.values.keys()],
    [...(generalReading(text) as Reading).values.keys()],
    label,
  );
  return reader.lastPath!;
}

function corpusTelegrams(): string[] {
  const names = readdirSync(dsmrCorpusDir).filter((name) => name.endsWith('.txt'));
  const edge = readdirSync(join(dsmrCorpusDir, 'edge'))
    .filter((name) => name.endsWith('.txt'))
    .map((name) => `edge/${name}`);
  return [...names, ...edge];
}

test('every corpus telegram read directly, line by line and then by its layout, equals the general Reading', (t) => {
  if (!requireCorpus(t)) return;
  const paths = new Map<string, string[]>();
  for (const name of corpusTelegrams()) {
    const text = corpusFile(name).toString('latin1');
    const reader = new DirectReading();
    paths.set(
      name,
      [1, 2, 3, 4].map((n) => readAndCompare(reader, text, `${name} read ${n}`)),
    );
  }
  // The usual meters take the direct path, and from the third telegram on their layout.
  for (const name of [
    'ndokter_v5.txt',
    'ndokter_fluvius_v171.txt',
    'amshan_sweden_kamstrup.txt',
    'ndokter_v4_2.txt',
  ]) {
    assert.deepEqual(paths.get(name), ['lines', 'lines', 'layout', 'layout'], name);
  }
  // Continuation lines (DSMR 3 gas), blanks after references, OBIS groups above 255: general path.
  for (const name of [
    'ndokter_v3.txt',
    'edge/esphome_whitespace_after_obis.txt',
    'edge/esphome_obis_over_255.txt',
  ]) {
    assert.deepEqual(paths.get(name), ['general', 'general', 'general', 'general'], name);
  }
});

test('a telegram of the learnt layout with other values, and values of other widths, reads like the general path', (t) => {
  if (!requireCorpus(t)) return;
  const v5 = corpusFile('ndokter_v5.txt').toString('latin1');
  const reader = new DirectReading();
  readAndCompare(reader, v5, 'first');
  readAndCompare(reader, v5, 'second');
  const variants = [
    v5.replace('000004.426*kWh', '000123.999*kWh').replace('0230.0*V', '0231.7*V'),
    // Two widths changed so that the telegram length stays the same.
    v5.replace('000004.426*kWh', '0004.426*kWh').replace('(00.244*kW)', '(0000.244*kW)'),
    v5.replace('(0230.0*V)', '(230.0*V)'),
    v5.replace('(00.244*kW)', '(00.244*W) '),
    v5.replace('(00.244*kW)', '(00.244*kW)(1)'),
    v5.replace('(00.244*kW)', '(00.2)44*kW)'),
    v5.replace('(00.244*kW)', '(00.2(44*kW)'),
    v5.replace('(00.244*kW)', '(-0.000*kWh)'),
    v5.replace('1-0:1.7.0', '1-0:1.7.1'),
    // Same width, other unit; a number ending before the usual unit's '*'.
    v5.replace('(00.244*kW)', '(00.244*kV)'),
    v5.replace('(00.244*kW)', '(0.24*4*kW)'),
    v5.replace('(00.244*kW)', '(00.2440000)'),
    // Same width, but a line end and a reference inside the identifier: a new object.
    v5.replace('(4B384547303034303436333935353037)', '(4B\r\n1-0:1.8.0(123456789012345678)'),
    v5.replace('0-0:96.14.0(0002)', '0-0:96.14.0(\r0002)'),
  ];
  for (const [n, variant] of variants.entries()) {
    assert.notEqual(variant, v5, `variant ${n} changes the telegram`);
    readAndCompare(reader, variant, `variant ${n}`);
    readAndCompare(reader, variant, `variant ${n} again`);
    // Back to the usual telegram: by layout at the latest from its third telegram on (a layout
    // learnt from the variant is relearnt).
    const paths = [1, 2, 3].map((k) => readAndCompare(reader, v5, `v5 ${k} after variant ${n}`));
    assert.equal(paths[2], 'layout', `v5 after variant ${n}: ${paths.join(', ')}`);
  }
});

/** Pieces of values, including the characters that end or split values and lines. */
const VALUE_PIECES = [
  ...[
    '0',
    '1',
    '9',
    '.',
    '-',
    '+',
    '*',
    'kWh',
    'kW',
    '*kW',
    '*kV',
    'V',
    'A',
    'm3',
    'W',
    'S',
    'FF',
    '41',
    ' ',
  ],
  ...['(', ')', '\r', '\n', '!', '\r\n1-0:1.8.0(', '\n0-1:24.2.1(', '\r\n(', ')\r\n'],
];
const valueText = fc.array(fc.constantFrom(...VALUE_PIECES), { maxLength: 6 }).map((parts) => parts.join(''));
const reference = fc.oneof(
  fc.constantFrom(
    '1-0:1.8.1',
    '1-0:1.7.0',
    '1-1:1.7.0',
    '1-3:0.2.8',
    '0-0:1.0.0',
    '0-0:96.1.1',
    '0-0:96.14.0',
    '0-0:42.0.0',
  ),
  fc.constantFrom(
    '0-1:24.1.0',
    '0-1:96.1.0',
    '0-1:24.2.1',
    '0-2:24.2.3',
    '0-1:24.3.0',
    '1-0:99.97.0',
    '1-0:32.7.0',
  ),
  fc
    .tuple(fc.nat(300), fc.nat(3), fc.nat(300), fc.nat(9), fc.nat(9))
    .map(([a, b, c, d, e]) => `${a}-${b}:${c}.${d}.${e}`),
);
const line = fc.tuple(
  reference,
  fc.array(valueText, { minLength: 1, maxLength: 3 }),
  fc.constantFrom('\r\n', '\n', '\r\n\r\n', ' \r\n'),
);
const meter = fc.array(line, { minLength: 1, maxLength: 8 });
/** Per telegram of a stream: new texts for some values (index, text, whether to keep the width). */
const changes = fc.array(fc.array(fc.tuple(fc.nat(30), valueText, fc.boolean()), { maxLength: 3 }), {
  minLength: 2,
  maxLength: 6,
});

function telegramOf(lines: [string, string[], string][]): string {
  const body = lines
    .map(([obis, values, end]) => `${obis}${values.map((v) => `(${v})`).join('')}${end}`)
    .join('');
  return `/ISK5\\2MT382-1000\r\n\r\n${body}!6EEE\r\n`;
}

test('fuzz: streams of telegrams of one meter with changing values read like the general path', () => {
  fc.assert(
    fc.property(meter, changes, (lines, perTelegram) => {
      const reader = new DirectReading();
      const current = lines.map(
        ([obis, values, end]) => [obis, [...values], end] as [string, string[], string],
      );
      const flat = current.flatMap((l) => l[1].map((_, k) => [l, k] as const));
      readAndCompare(reader, telegramOf(current), 'telegram 0');
      for (const [n, replacements] of perTelegram.entries()) {
        for (const [index, text, keepWidth] of replacements) {
          const [target, k] = flat[index % flat.length]!;
          const width = target[1][k]!.length;
          target[1][k] = keepWidth ? `${text}${'0'.repeat(width)}`.slice(0, width) : text;
        }
        readAndCompare(reader, telegramOf(current), `telegram ${n + 1}`);
      }
    }),
    { numRuns: 20_000 },
  );
});

test('fuzz: a corpus telegram with a few characters changed after its layout is learnt reads like the general path', (t) => {
  if (!requireCorpus(t)) return;
  const texts = ['ndokter_v5.txt', 'ndokter_fluvius_v171.txt', 'amshan_sweden_kamstrup.txt'].map((n) =>
    corpusFile(n).toString('latin1'),
  );
  const edit = fc.record({
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    insert: fc.constantFrom('', '(', ')', '\r', '\n', ' ', '0', '*', '!', 'x'),
    remove: fc.nat(2),
  });
  fc.assert(
    fc.property(fc.nat(texts.length - 1), fc.array(edit, { minLength: 1, maxLength: 3 }), (index, edits) => {
      const original = texts[index]!;
      const reader = new DirectReading();
      readAndCompare(reader, original, 'original 1');
      readAndCompare(reader, original, 'original 2');
      let text = original;
      for (const { at, insert, remove } of edits) {
        const i = Math.floor(at * text.length);
        text = text.slice(0, i) + insert + text.slice(i + remove);
      }
      readAndCompare(reader, text, 'edited');
      readAndCompare(reader, text, 'edited again');
      readAndCompare(reader, text, 'edited a third time');
    }),
    { numRuns: 10_000 },
  );
});
