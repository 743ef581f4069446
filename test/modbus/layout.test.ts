import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_LAYOUT, toDetailed, type DetailedSet } from '../../src/modbus/layout.js';
import { validateLayout } from '../../src/modbus/layout-validate.js';

/**
 * The whatwatt Go's default register layout, worked out by hand: [start, size, word-addressed non-padding
 * registers].
 */
const SPEC_DEFAULT: Array<
  [number, number, Array<[id: string, type: string, scaler: number, address: number]>]
> = [
  [
    1,
    42,
    [
      ['32.7.0', 'float', 0, 1],
      ['52.7.0', 'float', 0, 3],
      ['72.7.0', 'float', 0, 5],
      ['current.l1', 'float', 0, 13],
      ['current.l2', 'float', 0, 15],
      ['current.l3', 'float', 0, 17],
      ['power.active.l1', 'float', 3, 25],
      ['power.active.l2', 'float', 3, 27],
      ['power.active.l3', 'float', 3, 29],
      ['power.reactive.l1', 'float', 3, 31],
      ['power.reactive.l2', 'float', 3, 33],
      ['power.reactive.l3', 'float', 3, 35],
    ],
  ],
  [
    55,
    16,
    [
      ['9.7.0', 'float', 3, 63],
      ['power.active', 'float', 3, 65],
      ['power.reactive', 'float', 3, 67],
      ['13.7.0', 'float', 3, 69],
    ],
  ],
  [205, 16, [['96.14.0', 'int', 0, 211]]],
  [
    501,
    20,
    [
      ['1.7.0', 'float', 3, 501],
      ['3.7.0', 'float', 3, 503],
      ['2.7.0', 'float', 3, 505],
      ['4.7.0', 'float', 3, 507],
    ],
  ],
  [
    549,
    8,
    [
      ['1.8.0', 'float', 3, 549],
      ['3.8.0', 'float', 3, 551],
      ['2.8.0', 'float', 3, 553],
      ['4.8.0', 'float', 3, 555],
    ],
  ],
  [
    801,
    160,
    ['1.8.1', '1.8.2', '2.8.1', '2.8.2', '3.8.1', '3.8.2', '4.8.1', '4.8.2'].map((id, i) => [
      id,
      'double',
      3,
      801 + 4 * i,
    ]),
  ],
];

test('the default layout is the spec table: starts, sizes, ids, types, scalers, addresses, msw', () => {
  const detailed = toDetailed(DEFAULT_LAYOUT, 'dec');
  assert.equal(detailed.length, SPEC_DEFAULT.length);
  SPEC_DEFAULT.forEach(([start, size, registers], i) => {
    const set = detailed[i]!;
    assert.equal(set.start_address, start);
    assert.equal(set.size, size);
    assert.equal(set.end_address, start + size);
    assert.equal(set.word_order, 'msw');
    const named = set.registers.filter((r) => r.id !== '0').map((r) => [r.id, r.type, r.scaler, r.address]);
    assert.deepEqual(named, registers);
    // Everything else in the set is zero padding of the set's types.
    const padded = set.registers.filter((r) => r.id === '0').reduce((words, r) => words + r.size, 0);
    const used = registers.reduce((words, [, type]) => words + (type === 'double' ? 4 : 2), 0);
    assert.equal(padded + used, size);
  });
  // Spot checks of the padding types the default layout uses: set 205 int, set 501 ends in 2 int paddings,
  // 801 double.
  assert.deepEqual(
    detailed[3]!.registers.slice(-2).map((r) => [r.id, r.type, r.address]),
    [
      ['0', 'int', 517],
      ['0', 'int', 519],
    ],
  );
  assert.equal(detailed[5]!.registers.filter((r) => r.id === '0' && r.type === 'double').length, 32);
});

test('detailed hex form renders addresses as "0x" + 4 upper-case hex digits; sizes stay numbers', () => {
  const [set] = toDetailed(
    [
      {
        start_address: 55,
        word_order: 'lsw',
        registers: [{ id: '96.1.0' }, { id: '1.8.0', type: 'long', scaler: 3 }],
      },
    ],
    'hex',
  ) as [DetailedSet];
  assert.deepEqual(set, {
    start_address: '0x0037',
    end_address: '0x0047',
    size: 16,
    word_order: 'lsw',
    registers: [
      { id: '96.1.0', address: '0x0037', size: 12 },
      { id: '1.8.0', type: 'long', scaler: 3, address: '0x0043', size: 4 },
    ],
  });
  assert.equal(
    toDetailed([{ start_address: 9990, word_order: 'msw', registers: [{ id: 'sys.id' }] }], 'hex')[0]!
      .end_address,
    '0x2709',
  );
});

test('a valid layout is normalised to the compact form: defaults filled, timestamps default to int', () => {
  const result = validateLayout([
    {
      start_address: 0,
      registers: [{ id: '1.8.0' }, { id: 'report.timestamp' }, { id: 'sys.id' }, { id: '1', type: 'short' }],
    },
  ]);
  assert.ok(result.ok);
  assert.deepEqual(result.layout, [
    {
      start_address: 0,
      word_order: 'msw',
      registers: [
        { id: '1.8.0', type: 'double', scaler: 0 },
        { id: 'report.timestamp', type: 'int', scaler: 0 },
        { id: 'sys.id' },
        { id: '1', type: 'short', scaler: 0 },
      ],
    },
  ]);
});

test('compact and detailed (dec and hex) output validate back to the same layout', () => {
  for (const form of [DEFAULT_LAYOUT, toDetailed(DEFAULT_LAYOUT, 'dec'), toDetailed(DEFAULT_LAYOUT, 'hex')]) {
    const result = validateLayout(JSON.parse(JSON.stringify(form)));
    assert.ok(result.ok, JSON.stringify(!result.ok && result.issues));
    assert.deepEqual(result.layout, DEFAULT_LAYOUT);
  }
});
