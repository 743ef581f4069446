// Costs with day-ahead prices (mode dynamic): each quarter priced from the series, a quarter without
// a market price by the fallback and flagged estimated, a day from its quarters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketCost, roundMoney, type CostSettings, type PriceSettings } from '../../src/history/costs.js';
import { pointCosts } from '../../src/history/history-costs.js';
import type { HistoryPoint } from '../../src/history/point.js';
import { compileFormula } from '../../src/prices/formula.js';
import type { PriceSignal, QuarterPrice } from '../../src/price-signal.js';

process.env.TZ = 'Europe/Amsterdam';

const NL_2026 = { a: 1, markup: 0.0182, vat: 0.21, tax: 0.0916 * 1.21, zones: '', b: 1, fee: 0 };
const dynamic = (fallback: 'fixed' | 'time_of_use', price = 0.3): PriceSettings => ({
  mode: 'dynamic',
  price,
  t1: 0,
  t2: 0,
  time_of_use: '00:00=0.25 20:00=0.35',
  fallback,
});
const settings = (fallback: 'fixed' | 'time_of_use' = 'fixed'): CostSettings => ({
  enable: true,
  currency: 'EUR',
  import: dynamic(fallback),
  export: dynamic('fixed', 0.05),
  standing_charge: 0,
});

/** A series of the given spot prices (EUR/MWh) by quarter start, through the NL formula. */
function series(spots: Map<number, number>): PriceSignal {
  const formula = compileFormula(NL_2026);
  const quarter = (start: number): QuarterPrice | undefined => {
    const spot = spots.get(start);
    return spot === undefined
      ? undefined
      : {
          start,
          end: start + 900_000,
          import: formula.importPrice(spot, start),
          export: formula.exportPrice(spot),
          estimated: false,
        };
  };
  return {
    quarterAt: (time) => quarter(time - (time % 900_000)),
    quarters: () => [],
    onChange: () => () => undefined,
  };
}

const at = (text: string) => Date.parse(text) / 1000;
const point = (t: number, eIn: number, eOut = 0): HistoryPoint => ({ t, n: 900, eIn, eOut });

test('0.25 kWh imported 20:00-20:15 CEST at spot 81.92 with the NL 2026 formula costs EUR 0.05800', () => {
  const t = at('2026-06-01T20:00:00+02:00');
  const prices = series(new Map([[t * 1000, 81.92]]));
  const cost = bucketCost(settings(), point(t, 0.25), t + 900, prices);
  // 0.25 x 0.2319812 = 0.0579953: EUR 0.05800 to the cent's thousandth.
  assert.equal(Math.round(cost.import! * 1e5) / 1e5, 0.058);
  assert.equal(cost.estimated, undefined);
});

test('a quarter without a market price is priced by the fallback and flagged estimated', () => {
  const t = at('2026-06-01T20:00:00+02:00');
  const none = series(new Map());
  assert.deepEqual(bucketCost(settings('fixed'), point(t, 1, 2), t + 900, none), {
    import: 0.3,
    export: 0.1,
    estimated: true,
  });
  assert.deepEqual(bucketCost(settings('time_of_use'), point(t, 1), t + 900, none), {
    import: 0.35,
    export: 0,
    estimated: true,
  });
  // Without a series at all (no price store): the fallback too, never 0.
  assert.equal(bucketCost(settings(), point(t, 1), t + 900).import, 0.3);
});

test('a daily point is the sum of its quarters, each at its own dynamic price', async () => {
  const day = at('2026-06-01T00:00:00+02:00');
  const q1 = at('2026-06-01T10:00:00+02:00');
  const q2 = at('2026-06-01T13:00:00+02:00');
  const prices = series(
    new Map([
      [q1 * 1000, 81.92],
      [q2 * 1000, -150],
    ]),
  );
  const quarters = [point(q1, 1), point(q2, 2)];
  const [cost] = await pointCosts(settings(), '1d', [point(day, 3)], async () => quarters, prices);
  const expected =
    1 * compileFormula(NL_2026).importPrice(81.92, q1 * 1000) +
    2 * compileFormula(NL_2026).importPrice(-150, q2 * 1000);
  assert.equal(roundMoney(cost!.import!), roundMoney(expected));
  assert.equal(cost!.estimated, undefined);
});
