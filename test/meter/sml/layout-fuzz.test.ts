import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { crc16Register } from '../../../src/meter/sml/crc16-x25.js';
import { parseSmlCapture } from '../../../src/meter/sml/decoder.js';
import { JsFrameCheck, WasmFrameCheck } from '../../../src/meter/sml/frame-check.js';
import { instantiateFrameCheck } from '../../../src/meter/sml/frame-check-wasm.js';
import { learnFrameLayout } from '../../../src/meter/sml/layout-learner.js';
import { requireCorpus } from '../../helpers/environment.js';
import { frameFields } from './frame-variants.js';
import { outcomesAfter, parsedOutcomes } from './layout-check.js';
import {
  closeResponse,
  getListResponse,
  i,
  list,
  octets,
  openResponse,
  transportFrame,
  u,
  withFixedFrameCrc,
} from './sml-builder.js';
import { corpusFile } from './sml-corpus.js';

/**
 * Property tests of the learnt frame layout: after learning from a frame, any change to it (bytes
 * flipped, inserted, deleted, integers rewritten in other sizes) decodes as the parser decodes
 * it; the WebAssembly and JavaScript checks agree; so do their CRCs.
 */

const HANG_GUARD = { timeout: 300_000 };
const SERVER_ID = Buffer.from('0a01445a47000282225e', 'hex');

const SYNTHETIC = [
  transportFrame(
    Buffer.concat([
      openResponse(SERVER_ID),
      getListResponse(
        SERVER_ID,
        [
          { obis: [1, 0, 1, 8, 0, 255], unit: 30, scaler: -1, value: u(54301577, 8) },
          { obis: [1, 0, 16, 7, 0, 255], unit: 27, scaler: -2, value: i(-29912, 3) },
          { obis: [1, 0, 96, 1, 0, 255], value: octets('1ESY1162232997') },
          { obis: [129, 129, 199, 130, 5, 255], value: octets(Buffer.alloc(24, 0x5a)) },
        ],
        list(u(3, 1), list(u(1_700_000_000, 4), i(60, 2), i(0, 2))),
      ),
      closeResponse(),
    ]),
  ),
];

function seeds(withCorpus: boolean): Buffer[] {
  if (!withCorpus) return SYNTHETIC;
  const real = [
    'smartmeter-obis_emh_ehz.bin',
    'libsml-testing/HOLLEY_DTZ541-ZDBA.bin',
    'libsml-testing/ISKRA_MT631-D1A52-K0z-H01_without_PIN.bin',
    'libsml-testing/DZG_DVS-7420.2V.G2_mtr2_neg.bin',
    'libsml-testing/EMH_eHZ-HW8E2A5L0EK2P.bin',
  ].map((name) => parseSmlCapture(corpusFile(name)).find((result) => result.ok)!.frame);
  return [...SYNTHETIC, ...real];
}

/** Integer elements of a frame: values, second indexes, message CRCs (TL byte at start - 1). */
function integerSpans(frame: Buffer): Array<{ start: number; size: number }> {
  const fields = frameFields(frame);
  return [
    ...fields.values,
    ...fields.secIndexes,
    ...fields.messages.map(({ crc }) => ({ start: crc, size: 2 })),
  ];
}

type Mutation =
  | { op: 'flip'; at: number; mask: number }
  | { op: 'insert'; at: number; bytes: Uint8Array }
  | { op: 'delete'; at: number; count: number }
  | { op: 'integer'; pick: number; size: number; bytes: Uint8Array };

/** Integers rewritten most often: those are the changes a learnt layout must tell apart. */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }),
  }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), count: fc.integer({ min: 1, max: 4 }) }),
  {
    arbitrary: fc.record({
      op: fc.constant('integer' as const),
      pick: fc.nat(),
      size: fc.integer({ min: 0, max: 9 }),
      bytes: fc.uint8Array({ minLength: 9, maxLength: 9 }),
    }),
    weight: 6,
  },
);

/** Applies the mutations to the messages of `frame` (escapes and CRC left in place, CRC fixed). */
function mutate(frame: Buffer, mutations: Mutation[]): Buffer {
  const spans = integerSpans(frame);
  let bytes = Buffer.from(frame);
  for (const change of mutations) {
    const at = 8 + (('at' in change ? change.at : 0) % Math.max(1, bytes.length - 16));
    if (change.op === 'flip') bytes[at] = bytes[at]! ^ change.mask;
    if (change.op === 'insert')
      bytes = Buffer.concat([bytes.subarray(0, at), change.bytes, bytes.subarray(at)]);
    if (change.op === 'delete')
      bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + change.count)]);
    if (
      change.op === 'integer' &&
      change.pick % (spans.length + 1) < spans.length &&
      bytes.length === frame.length
    ) {
      // Rewritten in place (other sizes included): only on the unshifted frame.
      const span = spans[change.pick % (spans.length + 1)]!;
      const tl = (bytes[span.start - 1]! & 0xf0) | (change.size + 1);
      const content = change.bytes.subarray(0, change.size);
      bytes = Buffer.concat([
        bytes.subarray(0, span.start - 1),
        Buffer.from([tl]),
        content,
        bytes.subarray(span.start + span.size),
      ]);
    }
  }
  return withFixedFrameCrc(bytes);
}

test(
  'fuzz: any change after a learnt layout decodes as the parser decodes it (50,000 runs)',
  HANG_GUARD,
  (t) => {
    const all = seeds(requireCorpus(t));
    let byLayout = 0;
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), (pick, mutations) => {
        const seed = all[pick % all.length]!;
        const mutated = mutate(seed, mutations);
        const after = outcomesAfter([seed], mutated);
        assert.deepStrictEqual(after.outcomes, parsedOutcomes(mutated));
        byLayout += after.byLayout;
      }),
      { numRuns: 50_000 },
    );
    t.diagnostic(`${byLayout} changed frames read by the layout`);
    assert.ok(byLayout > 10_000, 'changes the layout accepts were among them');
  },
);

test(
  'fuzz: the WebAssembly and the JavaScript check read the same frames alike (10,000 runs)',
  HANG_GUARD,
  (t) => {
    const module = instantiateFrameCheck();
    assert.ok(module, 'WebAssembly available');
    const wasm = new WasmFrameCheck(module);
    const js = new JsFrameCheck();
    const layouts = seeds(requireCorpus(t)).map((seed) => {
      const [result] = parseSmlCapture(seed);
      assert.ok(result?.ok);
      const pair = [
        learnFrameLayout(seed, result.reading, 'x25', wasm),
        learnFrameLayout(seed, result.reading, 'x25', js),
      ];
      assert.ok(pair[0] && pair[1], 'layout learnt');
      return { seed, wasmLayout: pair[0], jsLayout: pair[1] };
    });
    let read = 0;
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { maxLength: 2 }), (pick, mutations) => {
        const { seed, wasmLayout, jsLayout } = layouts[pick % layouts.length]!;
        const mutated = mutate(seed, mutations);
        const byWasm = wasmLayout.read(mutated, 0);
        assert.deepStrictEqual(byWasm, jsLayout.read(mutated, 0));
        if (byWasm !== undefined) read += 1;
      }),
      { numRuns: 10_000 },
    );
    t.diagnostic(`${read} frames read by both`);
    assert.ok(read > 1000, 'frames that match the layout were checked');
  },
);

test('fuzz: the WebAssembly CRC equals the JavaScript CRC (5,000 runs)', () => {
  const module = instantiateFrameCheck();
  assert.ok(module, 'WebAssembly available');
  new WasmFrameCheck(module); // loads the tables
  const base = 8192;
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 700 }),
      fc.nat(),
      fc.nat(),
      fc.constantFrom(0, 0xffff),
      (data, a, b, init) => {
        const start = a % (data.length + 1);
        const end = start + (b % (data.length - start + 1));
        new Uint8Array(module.memory.buffer).set(data, base);
        assert.equal(module.crc16(base + start, base + end, init), crc16Register(data, start, end, init));
      },
    ),
    { numRuns: 5_000 },
  );
});
