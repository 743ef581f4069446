// The `cheapest` trigger on the virtual clock against a fixed price series: the chosen quarters, the
// on and off times, contiguous and inverse choices, a window across midnight and the fail-safe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseBlocks, CheapestTriggers, windowAt } from '../../src/actions/cheapest.js';
import type { CheapestTrigger } from '../../src/actions/definition.js';
import { createAppContext, type AppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import type { PriceSignal, QuarterPrice } from '../../src/price-signal.js';
import { linesLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

process.env.TZ = 'Europe/Brussels';
registerConfigFormats();

const Q = 900_000;
const local = (text: string) => new Date(text).getTime();

/** A series whose quarters in [from, to) cost `price(start)`; `listeners` get the changes. */
function series(
  from: number,
  to: number,
  price: (start: number) => number,
): PriceSignal & { set(to: number): void; changed(): void } {
  const listeners = new Set<() => void>();
  let until = to;
  const quarter = (start: number): QuarterPrice => ({
    start,
    end: start + Q,
    import: price(start),
    export: price(start),
    estimated: false,
  });
  return {
    quarterAt: (time) => (time >= from && time < until ? quarter(time - (time % Q)) : undefined),
    quarters(a, b) {
      const out: QuarterPrice[] = [];
      for (let start = Math.max(a, from); start < Math.min(b, until); start += Q) out.push(quarter(start));
      return out;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(to) {
      until = to;
    },
    changed() {
      for (const listener of listeners) listener();
    },
  };
}

function rig(t: { after(fn: () => void): void }, start: number, prices: PriceSignal) {
  const clock = new VirtualClock(start);
  const lines: string[] = [];
  const ctx: AppContext = createAppContext({
    clock,
    stateDir: tempDir('mg-cheapest-', t),
    logger: linesLogger(lines),
    prices,
  });
  const fired: Array<[string, string, string]> = [];
  const triggers = new CheapestTriggers(ctx, ctx.logger);
  t.after(() => triggers.clear());
  const fire = (id: string, trigger: string) =>
    fired.push([id, new Date(clock.now()).toISOString(), trigger]);
  const apply = (cheapest: CheapestTrigger) => triggers.apply([{ id: 'on', cheapest }, { id: 'off' }], fire);
  return { clock, fired, apply, triggers, lines };
}

// 2026-06-10 in Brussels (CEST): every quarter positive except 13:00-15:00 local.
const DAY = { from: local('2026-06-10T00:00:00+02:00'), to: local('2026-06-11T00:00:00+02:00') };
const negativeAfternoon = (start: number) => {
  const hour = new Date(start).getHours();
  return hour >= 13 && hour < 15 ? -0.01 - (start % (4 * Q)) / Q / 1000 : 0.2 + ((start / Q) % 7) / 100;
};

test('cheapest 8 quarters of 10:00-18:00 on a day negative only 13:00-15:00: on at 13:00:00, off at 15:00:00', async (t) => {
  const r = rig(t, local('2026-06-10T09:00:00+02:00'), series(DAY.from, DAY.to, negativeAfternoon));
  r.apply({ quarters: 8, window: '10:00-18:00', off: 'off' });
  assert.deepEqual(
    [...r.triggers.chosen().get('on')!],
    [{ start: local('2026-06-10T13:00:00+02:00'), end: local('2026-06-10T15:00:00+02:00') }],
  );
  await r.clock.advance(10 * 3_600_000);
  assert.deepEqual(
    r.fired.map(([id, at]) => [id, at]),
    [
      ['on', '2026-06-10T11:00:00.000Z'],
      ['off', '2026-06-10T13:00:00.000Z'],
    ],
  );
});

test('contiguous picks the cheapest block; inverse the most expensive; price_limit leaves out the rest', () => {
  const start = local('2026-06-10T10:00:00+02:00');
  const prices = [5, 1, 9, 2, 2, 8, 0, 7].map((price, i) => ({
    start: start + i * Q,
    end: start + (i + 1) * Q,
    import: price,
    export: price,
    estimated: false,
  }));
  const at = (i: number) => start + i * Q;
  assert.deepEqual(chooseBlocks(prices, { quarters: 2, window: '10:00-12:00', contiguous: true }), [
    { start: at(3), end: at(5) },
  ]);
  assert.deepEqual(chooseBlocks(prices, { quarters: 2, window: '10:00-12:00' }), [
    { start: at(1), end: at(2) },
    { start: at(6), end: at(7) },
  ]);
  assert.deepEqual(chooseBlocks(prices, { quarters: 1, window: '10:00-12:00', inverse: true }), [
    { start: at(2), end: at(3) },
  ]);
  assert.deepEqual(chooseBlocks(prices, { quarters: 4, window: '10:00-12:00', price_limit: 1 }), [
    { start: at(1), end: at(2) },
    { start: at(6), end: at(7) },
  ]);
});

test('a window across midnight: 21:00-07:00 is one occurrence from 21:00 to 07:00 next day', () => {
  assert.deepEqual(windowAt('21:00-07:00', local('2026-06-10T22:30:00+02:00')), {
    start: local('2026-06-10T21:00:00+02:00'),
    end: local('2026-06-11T07:00:00+02:00'),
  });
  assert.deepEqual(windowAt('21:00-07:00', local('2026-06-11T03:00:00+02:00')), {
    start: local('2026-06-10T21:00:00+02:00'),
    end: local('2026-06-11T07:00:00+02:00'),
  });
  assert.deepEqual(
    windowAt('21:00-07:00', local('2026-06-11T08:00:00+02:00')).start,
    local('2026-06-11T21:00:00+02:00'),
  );
});

test("failsafe: tomorrow's prices missing at failsafe_start, the action runs from then for its length and logs failsafe", async (t) => {
  const prices = series(DAY.from, DAY.to, () => 0.2);
  const r = rig(t, local('2026-06-10T20:00:00+02:00'), prices);
  r.apply({ quarters: 4, window: '21:00-07:00', failsafe_start: '02:00', off: 'off' });
  await r.clock.advance(7 * 3_600_000);
  assert.deepEqual(
    r.fired.map(([id, at]) => [id, at]),
    [
      ['on', '2026-06-11T00:00:00.000Z'],
      ['off', '2026-06-11T01:00:00.000Z'],
    ],
  );
  assert.ok(r.lines.some((line) => line.includes('"event":"failsafe"')));
});

test('prices that come before failsafe_start are used instead', async (t) => {
  const prices = series(DAY.from, DAY.to, (start) => (new Date(start).getHours() === 4 ? -1 : 0.2));
  const r = rig(t, local('2026-06-10T20:00:00+02:00'), prices);
  r.apply({ quarters: 4, window: '21:00-07:00', failsafe_start: '02:00', off: 'off' });
  await r.clock.advance(30 * 60_000);
  prices.set(local('2026-06-12T00:00:00+02:00'));
  prices.changed();
  await r.clock.advance(10 * 3_600_000);
  assert.deepEqual(
    r.fired.slice(0, 2).map(([id, at]) => [id, at]),
    [
      ['on', '2026-06-11T02:00:00.000Z'],
      ['off', '2026-06-11T03:00:00.000Z'],
    ],
  );
  assert.ok(!r.lines.some((line) => line.includes('failsafe')));
});
