// The price series as action variables, `when` quantities and /metrics samples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { priceMetrics, priceVariables, rankAt } from '../../src/prices/contributors.js';
import type { PriceSignal, QuarterPrice } from '../../src/price-signal.js';

process.env.TZ = 'Europe/Amsterdam';

const Q = 900_000;
const DAY = Date.parse('2026-06-10T00:00:00+02:00');
/** Quarter i of the day costs prices[i % prices.length]; export half of it. */
function series(prices: number[]): PriceSignal {
  const at = (i: number): QuarterPrice => ({
    start: DAY + i * Q,
    end: DAY + (i + 1) * Q,
    import: prices[i % prices.length]!,
    export: prices[i % prices.length]! / 2,
    estimated: false,
  });
  return {
    quarterAt: (time) => (time >= DAY && time < DAY + 96 * Q ? at(Math.floor((time - DAY) / Q)) : undefined),
    quarters: (from, to) =>
      Array.from({ length: 96 }, (_, i) => at(i)).filter((q) => q.end > from && q.start < to),
    onChange: () => () => undefined,
  };
}

test('price variables: now, export_now, rank among today, next; null outside the series', () => {
  const signal = series([0.3, 0.1, 0.2, 0.4]);
  const values = priceVariables(
    () => signal,
    () => DAY + 2 * Q + 60_000,
  ).values();
  assert.equal(values.get('price.now'), 0.2);
  assert.equal(values.get('price.export_now'), 0.1);
  assert.equal(values.get('price.next'), 0.4);
  // 24 quarters at 0.1 are cheaper: rank 25.
  assert.equal(values.get('price.rank'), 25);
  assert.equal(values.get('price_rank'), 25);
  assert.equal(values.get('price'), 0.2);
  assert.equal(rankAt(signal, DAY + Q), 1);
  const outside = priceVariables(
    () => signal,
    () => DAY - 1,
  ).values();
  assert.equal(outside.get('price.now'), null);
  assert.equal(outside.get('price.rank'), null);
});

test('/metrics: meter_gateway_price_eur_per_kwh by direction, absent while unknown', () => {
  const samples: Array<[string, Record<string, string>, number]> = [];
  priceMetrics(
    () => series([-0.05]),
    () => DAY,
  ).collect((family, labels, value) => samples.push([family.name, labels, value]));
  assert.deepEqual(samples, [
    ['meter_gateway_price_eur_per_kwh', { direction: 'import' }, -0.05],
    ['meter_gateway_price_eur_per_kwh', { direction: 'export' }, -0.025],
  ]);
  samples.length = 0;
  priceMetrics(
    () => series([1]),
    () => DAY - 1,
  ).collect((family, labels, value) => samples.push([family.name, labels, value]));
  assert.deepEqual(samples, []);
});
