import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { requireCorpus } from '../../helpers/environment.js';
import { createD0Decoder } from '../../../src/meter/d0/decoder.js';
import { d0CorpusCases } from './corpus-files.js';
import { assertCountersAddUp } from './counters.js';
import { flushBoth, GeneralDecoder, pushBoth } from './general-decoder.js';
import {
  bumpedBy,
  withBlockCheck,
  withByteEdit,
  withChangedValues,
  type ByteEdit,
} from './readout-variants.js';
import { splitAtCuts } from '../../helpers/chunks.js';
import { dataSetsText, fullAddress, generatedSet } from './generated-sets.js';

/**
 * The decoder (framer, or a whole chunk of a learnt layout without the framer; learnt layouts, or
 * the general path) against GeneralDecoder (framer and general path only): after every push the
 * same results (Readings, value order, rejection kinds, frames) and the same counters.
 */

const RUNS = { generated: 4000, corpus: 4000 };

test('corpus streams: whole readouts, variants, splits, garbage decode like the general path', (t) => {
  if (!requireCorpus(t)) return;
  let wholeChunkReads = 0;
  for (const { name, bytes } of d0CorpusCases()) {
    for (const verifyBlockCheck of [true, false]) {
      const decoder = createD0Decoder({ verifyBlockCheck });
      const reference = new GeneralDecoder({ verifyBlockCheck });
      const push = (chunk: Buffer, label: string) => pushBoth(decoder, reference, chunk, `${name} ${label}`);
      push(bytes, 'whole');
      for (let n = 1; n <= 6; n++) {
        const variant = withChangedValues(bytes, bumpedBy(n));
        const [first] = push(variant, `variant ${n}`);
        if (first?.frame === variant) wholeChunkReads++;
        push(Buffer.concat([variant, variant.subarray(0, 9)]), `variant ${n} and a start`);
        for (const chunk of splitAtCuts(variant, [n * 5, n * 37, n * 101])) push(chunk, `variant ${n} split`);
        push(Buffer.from('\0noise\r\n'), 'noise');
      }
      flushBoth(decoder, reference, `${name} flush`);
      assertCountersAddUp(
        decoder,
        decoder.counters.readings + Object.values(decoder.counters.rejected).reduce((a, b) => a + b, 0),
      );
    }
  }
  t.diagnostic(`whole-chunk reads without the framer: ${wholeChunkReads}`);
  assert.ok(wholeChunkReads > 0);
});

const dataSet = generatedSet(
  fc.oneof(
    fullAddress([9, 9, 99, 20, 9], '*255'),
    fc
      .tuple(fc.nat({ max: 99 }), fc.nat({ max: 20 }), fc.nat({ max: 9 }))
      .map(([c, d, e]) => `${c}.${d}.${e}`),
    fc.constantFrom('F.F', 'C.1.0', '0.0.0', '96.14.0', '0-0:C.1.0*255', '1.8.0*01'),
  ),
  fc.oneof(
    fc.stringMatching(/^[+-]?[0-9]{1,18}(\.[0-9]{1,6})?$/),
    fc.stringMatching(/^[0-9]{2,4}-[0-9]{2}&[0-9]{2}:[0-9]{2}$/),
    fc.constantFrom('', ' 12 ', '1ISK006', 'R'),
  ),
  ['', 'kWh', 'kW', 'Wh', 'W', 'V', 'A', 'kvarh', 'm3', 'Hz', 'X1'],
);

const generatedReadout = fc
  .record({
    sets: fc.array(dataSet, { minLength: 1, maxLength: 12 }),
    identification: fc.constantFrom(
      '',
      '/ABC5MODEL\r\n',
      '/EMH5----eHZ-E0018E\r\n\r\n',
      '/ISk5\\2MT174\r\n\x06050\r\n',
    ),
    withStx: fc.boolean(),
    oneLine: fc.boolean(),
  })
  .map(({ sets, identification, withStx, oneLine }) => {
    const body = dataSetsText(sets, oneLine);
    const data = withStx ? `\x02${body}\r\n!\r\n\x03\x00` : `${body}\r\n!\r\n`;
    return withBlockCheck(Buffer.from(identification + data, 'latin1'));
  });

type Change = { kind: 'values'; n: number } | ByteEdit;

/** Bytes that steer the framer and parser, and digits and letters; flips favour them. */
const steering = fc.constantFrom(...Buffer.from('\x02\x03\x06\n\r!/()*&#.-+: 0123456789AkW', 'latin1'));

const change: fc.Arbitrary<Change> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('values' as const), n: fc.nat({ max: 1_000_000 }) }),
  },
  fc.record({
    kind: fc.constant('flip' as const),
    at: fc.nat(),
    byte: fc.oneof(steering, fc.nat({ max: 255 })),
  }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.array(steering, { maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
);

function applied(readout: Buffer, c: Change): Buffer {
  return c.kind === 'values' ? withChangedValues(readout, bumpedBy(c.n)) : withByteEdit(readout, c);
}

/** The template, then readouts each derived from it by one or two changes, in whole or cut chunks. */
function checkStream(
  template: Buffer,
  next: readonly { changes: Change[]; cuts: number[] }[],
  verify: boolean,
): void {
  const decoder = createD0Decoder({ verifyBlockCheck: verify });
  const reference = new GeneralDecoder({ verifyBlockCheck: verify });
  pushBoth(decoder, reference, template, 'template');
  pushBoth(decoder, reference, template, 'template again');
  for (const [k, { changes, cuts }] of next.entries()) {
    const readout = changes.reduce(applied, template);
    for (const chunk of splitAtCuts(readout, cuts)) pushBoth(decoder, reference, chunk, `readout ${k}`);
  }
  flushBoth(decoder, reference, 'flush');
}

const stream = fc.array(
  fc.record({
    changes: fc.array(change, { minLength: 1, maxLength: 2 }),
    cuts: fc.oneof({ weight: 3, arbitrary: fc.constant<number[]>([]) }, fc.array(fc.nat(), { maxLength: 3 })),
  }),
  { minLength: 1, maxLength: 6 },
);

test(
  'generated readouts, then changed values and bytes: decoder equals the general path',
  { timeout: 120_000 },
  () => {
    fc.assert(
      fc.property(generatedReadout, stream, fc.boolean(), (template, next, verify) => {
        checkStream(template, next, verify);
      }),
      { numRuns: RUNS.generated, seed: 62060 },
    );
  },
);

test(
  'corpus readouts, then changed values and bytes: decoder equals the general path',
  { timeout: 120_000 },
  (t) => {
    if (!requireCorpus(t)) return;
    const sources = d0CorpusCases().map((c) => c.bytes);
    fc.assert(
      fc.property(fc.nat({ max: sources.length - 1 }), stream, fc.boolean(), (index, next, verify) => {
        checkStream(sources[index]!, next, verify);
      }),
      { numRuns: RUNS.corpus, seed: 62061 },
    );
  },
);
