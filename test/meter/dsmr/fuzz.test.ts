import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MeterDataError, type DecodeResult } from '../../../src/meter/decoder.js';
import { checkDsmrCrc } from '../../../src/meter/dsmr/crc16-arc.js';
import { createDsmrDecoder } from '../../../src/meter/dsmr/decoder.js';
import { parseDsmrTelegram } from '../../../src/meter/dsmr/parser.js';
import { requireCorpus } from '../../helpers/environment.js';
import { corpusFile } from './corpus-cases.js';
import { splitAt } from '../../helpers/chunks.js';

/** Pieces of DSMR syntax, so random input reaches deep into the framer and parser. */
const TOKENS = [
  '/',
  '!',
  '\r\n',
  '\n',
  '\r',
  '(',
  ')',
  '*',
  '*kWh',
  '*m3',
  ':',
  '-',
  '.',
  ' ',
  '0',
  '1',
  '9',
  'A',
  'f',
  '1-0:1.8.1',
  '0-1:24.2.1',
  '0-0:96.1.1',
  '1-0:99.97.0',
  '170102192002W',
  '632525252525S',
  'ISk5\\2MT382',
  '(00.123*kW)',
  '(3)(0-0:96.7.19)',
  '!6EEE\r\n',
];
const piece = fc.oneof(
  fc.constantFrom(...TOKENS),
  fc.integer({ min: 0, max: 255 }).map((byte) => String.fromCharCode(byte)),
);
const dsmrishBytes = fc.array(piece, { maxLength: 80 }).map((parts) => Buffer.from(parts.join(''), 'latin1'));

const KINDS = new Set(['crc', 'parse', 'overflow', 'encryption']);

function assertWellFormed(result: DecodeResult): void {
  if (!result.ok) {
    assert.ok(result.error instanceof MeterDataError, 'typed error');
    assert.ok(KINDS.has(result.error.kind), result.error.kind);
    assert.notEqual(result.error.details.internal, true, `internal error: ${result.error.message}`);
    return;
  }
  const { reading, frame } = result;
  assert.equal(frame[0], 0x2f, 'a reading comes from a frame starting with "/"');
  assert.notEqual(checkDsmrCrc(frame).kind, 'mismatch', 'a CRC mismatch is never applied');
  assert.equal(reading.protocol, 'DSMR');
  for (const [key, value] of reading.values) {
    assert.match(key, /^\d{1,3}\.\d{1,3}\.\d{1,3}$/);
    assert.ok(Number.isFinite(value.value) && typeof value.unit === 'string', key);
  }
  for (const channel of reading.mbus) {
    assert.ok(Number.isInteger(channel.bus) && channel.bus > 0);
    if (channel.cumulative !== undefined) assert.ok(Number.isFinite(channel.cumulative));
  }
}

/** Splits bytes at the given fractions into chunks. */
const chunksOf = (bytes: Buffer, cuts: number[]): Buffer[] =>
  splitAt(
    bytes,
    cuts.map((c) => Math.floor(c * bytes.length)),
  );

const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

test('fuzz: random DSMR-like bytes in random chunks never throw and give well-formed results', () => {
  fc.assert(
    fc.property(dsmrishBytes, cuts, (bytes, points) => {
      const decoder = createDsmrDecoder({ maxFrameBytes: 512 });
      for (const chunk of chunksOf(bytes, points)) decoder.push(chunk, 0).forEach(assertWellFormed);
    }),
    { numRuns: 45_000 },
  );
});

test('fuzz: the parser returns a telegram or throws a typed error for any text', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), (parts) => {
      try {
        const telegram = parseDsmrTelegram(parts.join(''));
        for (const object of telegram.objects) assert.match(object.obis, /^\d+-\d+:\d+\.\d+\.\d+$/);
      } catch (error) {
        assert.ok(error instanceof MeterDataError && error.kind === 'parse', String(error));
      }
    }),
    { numRuns: 30_000 },
  );
});

type Mutation = { at: number; kind: 'flip' | 'insert' | 'delete'; byte: number };
const mutation = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  kind: fc.constantFrom<Mutation['kind']>('flip', 'insert', 'delete'),
  byte: fc.integer({ min: 0, max: 255 }),
});

function mutate(bytes: Buffer, mutations: Mutation[]): Buffer {
  let out = Buffer.from(bytes);
  for (const { at, kind, byte } of mutations) {
    const i = Math.min(out.length - 1, Math.floor(at * out.length));
    if (kind === 'flip') out[i] = byte;
    else if (kind === 'insert') out = Buffer.concat([out.subarray(0, i), Buffer.of(byte), out.subarray(i)]);
    else out = Buffer.concat([out.subarray(0, i), out.subarray(i + 1)]);
  }
  return out;
}

test('fuzz: mutated corpus telegrams never throw and are accepted only with a valid or no CRC', (t) => {
  if (!requireCorpus(t)) return;
  const telegrams = [
    'ndokter_v5.txt',
    'ndokter_fluvius_v171.txt',
    'ndokter_v3.txt',
    'amshan_sweden_kamstrup.txt',
  ].map((name) => corpusFile(name));
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: telegrams.length - 1 }),
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
      cuts,
      (index, mutations, points) => {
        const original = telegrams[index]!;
        const damaged = mutate(original, mutations);
        const decoder = createDsmrDecoder();
        const results = chunksOf(damaged, points).flatMap((chunk) => decoder.push(chunk, 0));
        results.forEach(assertWellFormed);
        for (const result of results) {
          if (!result.ok || result.frame.equals(original)) continue;
          // Accepted only with a matching CRC, or with none at all: DSMR 2.2/3.0 end "!" CR LF,
          // which a damaged CRC whose first digit became a line end is indistinguishable from.
          const kind = checkDsmrCrc(result.frame).kind;
          const afterBang = result.frame[result.frame.indexOf('!') + 1];
          assert.ok(
            kind === 'match' ||
              (kind === 'absent' && (afterBang === undefined || afterBang === 0x0d || afterBang === 0x0a)),
          );
        }
      },
    ),
    { numRuns: 25_000 },
  );
});

test('fuzz: any chunking of a stream of telegrams and garbage gives the same readings', (t) => {
  if (!requireCorpus(t)) return;
  const telegrams = ['ndokter_v5.txt', 'ndokter_v2_2.txt', 'amshan_sweden_landisgyr_e360_a.txt'].map((n) =>
    corpusFile(n),
  );
  const stream = fc.array(fc.oneof(fc.constantFrom(...telegrams), dsmrishBytes), {
    minLength: 1,
    maxLength: 5,
  });
  fc.assert(
    fc.property(stream, cuts, (parts, points) => {
      const bytes = Buffer.concat(parts);
      const describe = (results: DecodeResult[]) =>
        results.map((r) => (r.ok ? r.frame.toString('latin1') : `${r.error.kind}: ${r.error.message}`));
      const whole = describe(createDsmrDecoder().push(bytes, 0));
      const decoder = createDsmrDecoder();
      const chunked = describe(chunksOf(bytes, points).flatMap((chunk) => decoder.push(chunk, 0)));
      assert.deepEqual(chunked, whole);
    }),
    { numRuns: 5_000 },
  );
});
