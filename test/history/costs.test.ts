// The cost functions (pure) against hand-computed values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bucketCost,
  bucketPrice,
  costTotals,
  parseTimeOfUse,
  priceAtMinute,
  standingCharge,
  type CostSettings,
  type PriceSettings,
} from '../../src/history/costs.js';
import type { HistoryPoint } from '../../src/history/point.js';

process.env.TZ = 'Europe/Amsterdam';

const at = (text: string) => new Date(text).getTime() / 1000;
const fixed = (price: number): PriceSettings => ({ mode: 'fixed', price, t1: 0, t2: 0, time_of_use: '' });
const quarter = (t: number, eIn: number | null, extra: Partial<HistoryPoint> = {}): HistoryPoint => ({
  t,
  n: 900,
  eIn,
  eOut: 0,
  ...extra,
});

test('a time-of-use table: sorted entries; before the first entry of a day the last one applies', () => {
  const table = parseTimeOfUse('22:00=0.21 07:00=0.32');
  assert.deepEqual(table, [
    { minute: 420, price: 0.32 },
    { minute: 1320, price: 0.21 },
  ]);
  assert.deepEqual(
    [0, 419, 420, 1319, 1320, 1439].map((minute) => priceAtMinute(table, minute)),
    [0.21, 0.21, 0.32, 0.32, 0.21, 0.21],
  );
  assert.equal(priceAtMinute([], 0), null);
});

test('bucket prices: fixed, by the tariff readings share, by the time of use of a quarter hour', () => {
  const tariff: PriceSettings = { mode: 'tariff', price: 0, t1: 0.2, t2: 0.3, time_of_use: '' };
  const t = at('2026-11-25T21:45');
  assert.equal(bucketPrice(fixed(0.25), quarter(t, 1), t + 900), 0.25);
  assert.equal(bucketPrice(tariff, quarter(t, 1, { nT1: 900 }), t + 900), 0.2);
  assert.equal(bucketPrice(tariff, quarter(t, 1, { nT2: 900 }), t + 900), 0.3);
  assert.equal(bucketPrice(tariff, quarter(t, 1, { nT1: 450, nT2: 450 }), t + 900), 0.25);
  assert.equal(bucketPrice(tariff, quarter(t, 1), t + 900), 0.2, 'no tariff sent: T1');
  const tou: PriceSettings = { ...tariff, mode: 'time_of_use', time_of_use: '07:00=0.32 22:00=0.21' };
  assert.equal(bucketPrice(tou, quarter(t, 1), t + 900), 0.32);
  assert.equal(bucketPrice(tou, quarter(t + 900, 1), t + 1800), 0.21);
  assert.equal(bucketPrice(tou, quarter(at('2026-11-25T00:00'), 1), at('2026-11-26T00:00')), null, 'a day');
});

test('the standing charge: monthly over the days of the month, a DST day by its 25 hours', () => {
  assert.equal(standingCharge(30, at('2026-11-25T00:00') * 1000, at('2026-11-26T00:00') * 1000), 1);
  assert.equal(standingCharge(28, at('2026-02-01T00:00') * 1000, at('2026-03-01T00:00') * 1000), 28);
  // 25 October 2026 has 25 hours in Amsterdam; its first 12 elapsed hours are 12/25 of 31/31.
  const dst = at('2026-10-25T00:00') * 1000;
  assert.equal(standingCharge(31, dst, dst + 12 * 3_600_000), 0.48);
  assert.equal(standingCharge(0, dst, dst + 86_400_000), 0);
});

test('costs and totals of a known day, tariff import and fixed export, equal the hand computation', () => {
  const settings: CostSettings = {
    enable: true,
    currency: 'EUR',
    import: { mode: 'tariff', price: 0, t1: 0.2, t2: 0.3, time_of_use: '' },
    export: fixed(0.08),
    standing_charge: 30,
  };
  const points = [
    quarter(at('2026-11-25T06:00'), 1, { nT1: 900 }),
    { ...quarter(at('2026-11-25T12:00'), 0.5, { nT2: 900 }), eOut: 2 },
    quarter(at('2026-11-25T21:45'), 0.25, { nT1: 450, nT2: 450 }),
  ];
  const costs = points.map((point) => bucketCost(settings, point, point.t + 900));
  assert.deepEqual(costs, [
    { import: 0.2, export: 0 },
    { import: 0.15, export: 0.16 },
    { import: 0.0625, export: 0 },
  ]);
  const from = at('2026-11-25T00:00') * 1000;
  // 1 × 0.2 + 0.5 × 0.3 + 0.25 × 0.25 = 0.4125; 2 × 0.08 = 0.16; 30 / 30 days = 1.
  assert.deepEqual(costTotals(settings, costs, from, from + 86_400_000), {
    currency: 'EUR',
    import: 0.4125,
    export: 0.16,
    standing: 1,
    capacity: null,
    total: 1.2525,
  });
  const guard = { chargeFor: (f: number, t: number) => (t - f === 86_400_000 ? 0.5 : null) };
  const withCapacity = costTotals(settings, costs, from, from + 86_400_000, guard);
  assert.deepEqual([withCapacity.capacity, withCapacity.total], [0.5, 1.7525]);
});

test('samples count into the tariff they were read in; merging adds the counts', async () => {
  const { addSample, emptyPoint, mergePoints } = await import('../../src/history/point.js');
  let point = emptyPoint(0);
  for (const tariff of [1, 1, 2, undefined]) point = addSample(point, { eIn: 0.1, tariff });
  assert.deepEqual([point.n, point.nT1, point.nT2], [4, 2, 1]);
  const merged = mergePoints(point, addSample(emptyPoint(0), { tariff: 2 }));
  assert.deepEqual([merged.n, merged.nT1, merged.nT2], [5, 2, 2]);
});
