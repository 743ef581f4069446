import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateLayout, type LayoutIssue } from '../../src/modbus/layout-validate.js';

function issuesOf(input: unknown): LayoutIssue[] {
  const result = validateLayout(input);
  assert.equal(result.ok, false, 'expected the layout to be rejected');
  return result.ok ? [] : result.issues;
}

/** Issues reduced to set/register/field for comparison. */
const where = (issues: LayoutIssue[]) => issues.map(({ set, register, field }) => ({ set, register, field }));

test('each rule is reported with the offending set and register', () => {
  const cases: Array<[string, unknown, Array<{ set?: number; register?: number; field: string }>]> = [
    ['not an array', { start_address: 1 }, [{ set: undefined, register: undefined, field: 'layout' }]],
    ['empty', [], [{ set: undefined, register: undefined, field: 'layout' }]],
    [
      'unknown id',
      [{ start_address: 1, registers: [{ id: '1.8.0' }, { id: '99.9.9' }] }],
      [{ set: 0, register: 1, field: 'id' }],
    ],
    [
      'bad type',
      [{ start_address: 1, registers: [{ id: '1.8.0', type: 'uint' }] }],
      [{ set: 0, register: 0, field: 'type' }],
    ],
    [
      'type on a hex id',
      [{ start_address: 1, registers: [{ id: '96.1.1', type: 'float' }] }],
      [{ set: 0, register: 0, field: 'type' }],
    ],
    [
      'scaler on a hex id',
      [{ start_address: 1, registers: [{ id: 'sys.firmware', scaler: 1 }] }],
      [{ set: 0, register: 0, field: 'scaler' }],
    ],
    [
      'scaler 7',
      [{ start_address: 1, registers: [{ id: '1.8.0', scaler: 7 }] }],
      [{ set: 0, register: 0, field: 'scaler' }],
    ],
    [
      'scaler -7',
      [{ start_address: 1, registers: [{ id: '1.8.0', scaler: -7 }] }],
      [{ set: 0, register: 0, field: 'scaler' }],
    ],
    [
      'scaler 1.5',
      [{ start_address: 1, registers: [{ id: '1.8.0', scaler: 1.5 }] }],
      [{ set: 0, register: 0, field: 'scaler' }],
    ],
    [
      'timestamp as float',
      [{ start_address: 1, registers: [{ id: 'sys.timestamp', type: 'float' }] }],
      [{ set: 0, register: 0, field: 'type' }],
    ],
    [
      'timestamp as long',
      [{ start_address: 1, registers: [{ id: 'report.timestamp', type: 'long' }] }],
      [{ set: 0, register: 0, field: 'type' }],
    ],
    [
      'start 9999',
      [{ start_address: 9999, registers: [{ id: '0', type: 'short' }] }],
      [{ set: 0, register: undefined, field: 'start_address' }],
    ],
    [
      'start -1',
      [{ start_address: -1, registers: [{ id: '0', type: 'short' }] }],
      [{ set: 0, register: undefined, field: 'start_address' }],
    ],
    [
      'start as text',
      [{ start_address: '12', registers: [{ id: '0', type: 'short' }] }],
      [{ set: 0, register: undefined, field: 'start_address' }],
    ],
    [
      'word order',
      [{ start_address: 1, word_order: 'big', registers: [{ id: '1.8.0' }] }],
      [{ set: 0, register: undefined, field: 'word_order' }],
    ],
    [
      'no registers',
      [{ start_address: 1, registers: [] }],
      [{ set: 0, register: undefined, field: 'registers' }],
    ],
    [
      'unknown set field',
      [{ start_address: 1, registers: [{ id: '1.8.0' }], colour: 'red' }],
      [{ set: 0, register: undefined, field: 'colour' }],
    ],
    [
      'unknown register field',
      [{ start_address: 1, registers: [{ id: '1.8.0', unit: 'W' }] }],
      [{ set: 0, register: 0, field: 'unit' }],
    ],
    [
      'wrong detailed address',
      [
        {
          start_address: 1,
          registers: [
            { id: '1.8.0', address: 1 },
            { id: '1.8.0', address: 4 },
          ],
        },
      ],
      [{ set: 0, register: 1, field: 'address' }],
    ],
  ];
  for (const [name, input, expected] of cases) {
    assert.deepEqual(where(issuesOf(input)), expected, name);
  }
});

test('a set running past 9998 names the first register beyond it', () => {
  // 9990 + 2 doubles = 9990..9997; the third double needs 9998..10001.
  const issues = issuesOf([
    { start_address: 9990, registers: [{ id: '1.8.1' }, { id: '1.8.2' }, { id: '2.8.1' }] },
  ]);
  assert.deepEqual(where(issues), [{ set: 0, register: 2, field: 'registers' }]);
  // Exactly up to 9998 is fine: 9995 + one double = 9995..9998.
  assert.ok(validateLayout([{ start_address: 9995, registers: [{ id: '1.8.1' }] }]).ok);
  // Byte arrays count by their fixed size: 96.1.0 is 12 words, 9988..9999 is one too many.
  assert.deepEqual(where(issuesOf([{ start_address: 9988, registers: [{ id: '96.1.0' }] }])), [
    { set: 0, register: 0, field: 'registers' },
  ]);
  assert.ok(validateLayout([{ start_address: 9987, registers: [{ id: '96.1.0' }] }]).ok);
});

test('overlapping sets name the later set, its first overlapping register and the other set', () => {
  const issues = issuesOf([
    {
      start_address: 100,
      registers: [
        { id: '1.8.0', type: 'float' },
        { id: '2.8.0', type: 'float' },
      ],
    }, // 100..103
    {
      start_address: 90,
      registers: [{ id: 'sys.id' }, { id: '0', type: 'long' }, { id: '32.7.0', type: 'float' }],
    }, // 90..92, 93..96, 97..98
    { start_address: 104, registers: [{ id: '0', type: 'short' }] }, // adjacent, fine
    { start_address: 96, registers: [{ id: '42.0.0' }] }, // 96..107 overlaps sets 0, 1 and 2
  ]);
  assert.deepEqual(
    issues.map(({ set, register, other_set }) => ({ set, register, other_set })),
    [
      { set: 3, register: 0, other_set: 1 },
      { set: 3, register: 0, other_set: 0 },
      { set: 3, register: 0, other_set: 2 },
    ],
  );
  const named = issuesOf([
    {
      start_address: 10,
      registers: [
        { id: '0', type: 'double' },
        { id: '0', type: 'double' },
        { id: '1.8.0', type: 'short' },
      ],
    }, // 10..18
    { start_address: 18, registers: [{ id: '0', type: 'short' }] },
  ]);
  assert.deepEqual(where(named), [{ set: 1, register: 0, field: 'start_address' }]);
  const reversed = issuesOf([
    { start_address: 18, registers: [{ id: '0', type: 'short' }] },
    {
      start_address: 10,
      registers: [
        { id: '0', type: 'double' },
        { id: '0', type: 'double' },
        { id: '1.8.0', type: 'short' },
      ],
    },
  ]);
  assert.deepEqual(where(reversed), [{ set: 1, register: 2, field: 'start_address' }]);
});
