import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pointView, type HistoryPoint, type PointView } from '../../src/history/point.js';
import { feed, setClock, withRecorders } from './history-fixture.js';

process.env.TZ = 'Europe/Amsterdam';

/** 2026-11-26 10:00 local (09:00Z): a quarter-hour start, well inside a local day. */
const T0 = Date.parse('2026-11-26T09:00:00Z');
const MIN = 60_000;
const IN = [0.5, 1, 1.5, 2];
const pIn = (i: number) => IN[i % 4]!;
const pOut = (i: number) => (i % 3 === 0 ? 0.25 : 0);
const eIn = (i: number) => 5000 + 0.125 * i;
const eOut = (i: number) => 100 + 0.0625 * Math.floor(i / 3);

const views = (points: HistoryPoint[] | undefined) => (points ?? []).map(pointView);

/** Reference aggregation of readings i in [first, last], written out independently of src/. */
function reference(t: number, first: number, last: number): PointView {
  const ins: number[] = [];
  const outs: number[] = [];
  let energyIn = 0;
  let energyOut = 0;
  for (let i = first; i <= last; i++) {
    ins.push(pIn(i));
    outs.push(pOut(i));
    if (i > 0) {
      energyIn += eIn(i) - eIn(i - 1);
      energyOut += eOut(i) - eOut(i - 1);
    }
  }
  const stats = (xs: number[]) => ({
    min: Math.min(...xs),
    mean: Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1e6) / 1e6,
    max: Math.max(...xs),
  });
  return { t, n: last - first + 1, p_in: stats(ins), p_out: stats(outs), e_in: energyIn, e_out: energyOut };
}

test('readings every 10 s: exact 1-minute points, quarter-hour and day roll-ups, open buckets as partial points', async () => {
  await withRecorders(T0 - 1000, async (h, { recorder, ctx }) => {
    await recorder.start();
    for (let i = 0; i < 120; i++)
      feed(h, ctx, T0 + i * 10_000, { pIn: pIn(i), pOut: pOut(i), eIn: eIn(i), eOut: eOut(i) });
    setClock(h, T0 + 20 * MIN + 50);
    recorder.tick();
    await recorder.idle();

    const minutes = views(await recorder.query('1m', T0, T0 + 20 * MIN));
    assert.equal(minutes.length, 20);
    const t0 = T0 / 1000;
    // Minute 0: import 0.5, 1, 1.5, 2, 0.5, 1; export 0.25 at readings 0 and 3; five 0.125 kWh steps.
    // Minute 1: import 1.5, 2, 0.5, 1, 1.5, 2; six 0.125 kWh steps; export register +0.0625 twice.
    const kW = (min: number, mean: number, max: number) => ({ min, mean, max });
    assert.deepEqual(
      minutes.slice(0, 2).map((p) => [p.t - t0, p.n, p.p_in, p.p_out, p.e_in, p.e_out]),
      [
        [0, 6, kW(0.5, 1.083333, 2), kW(0, 0.083333, 0.25), 0.625, 0.0625],
        [60, 6, kW(0.5, 1.416667, 2), kW(0, 0.083333, 0.25), 0.75, 0.125],
      ],
    );
    minutes.forEach((point, m) =>
      assert.deepEqual(point, reference(t0 + m * 60, m * 6, m * 6 + 5), `minute ${m}`),
    );

    const quarters = views(await recorder.query('15m', T0, T0 + 20 * MIN));
    assert.deepEqual(quarters, [reference(t0, 0, 89), reference(t0 + 900, 90, 119)]);
    const days = views(await recorder.query('1d', T0, T0 + 20 * MIN));
    const dayStart = Date.parse('2026-11-25T23:00:00Z') / 1000; // local midnight, CET
    assert.deepEqual(days, [reference(dayStart, 0, 119)]);

    // One more reading: the open minute shows at once, inside the open quarter-hour and day.
    feed(h, ctx, T0 + 20 * MIN + 5000, { pIn: 3, pOut: 0, eIn: eIn(120), eOut: eOut(120) });
    const open = views(await recorder.query('1m', T0 + 20 * MIN, T0 + 21 * MIN));
    assert.deepEqual(
      open.map((p) => [p.t - t0, p.n, p.p_in, p.p_out, p.e_in, p.e_out]),
      [[1200, 1, kW(3, 3, 3), kW(0, 0, 0), 0.125, 0.0625]],
    );
    const openQuarter = views(await recorder.query('15m', T0 + 16 * MIN, T0 + 21 * MIN));
    assert.equal(openQuarter.length, 1);
    assert.equal(openQuarter[0]!.n, 31);
    assert.equal(openQuarter[0]!.p_in!.max, 3);
    const openDay = views(await recorder.query('1d', T0, T0 + 21 * MIN));
    assert.equal(openDay[0]!.n, 121);
    assert.equal(openDay[0]!.e_in, 15);
    // Ranges select overlapping buckets only.
    assert.deepEqual(
      views(await recorder.query('1m', T0 + 5 * MIN + 30_000, T0 + 7 * MIN)).map((p) => p.t),
      [t0 + 300, t0 + 360, t0 + 420],
    );
  });
});

test('register resets, implausible jumps and a meter change add no energy; a gap counts with the next reading', async () => {
  await withRecorders(T0 - 1000, async (h, { recorder, ctx }) => {
    await recorder.start();
    const registers: Array<[number, string?]> = [
      [1000], // base
      [1000.5], // +0.5
      [0.25], // reset: nothing, new base
      [0.75], // +0.5
      [90_000.75], // +90,000 kWh in 10 s: a replaced meter, nothing
      [90_001], // +0.25
      [20, 'OTHER-METER'], // another meter: nothing, new base
      [20.5, 'OTHER-METER'], // +0.5
    ];
    registers.forEach(([value, id], i) => feed(h, ctx, T0 + i * 10_000, { pIn: 1, eIn: value, eOut: 7, id }));
    // No reading for 10 minutes (NO DATA), then 1 kWh more: 6 kW on average, counted in 10:11.
    feed(h, ctx, T0 + 11 * MIN, { pIn: 1, eIn: 21.5, eOut: 7, id: 'OTHER-METER' });
    setClock(h, T0 + 12 * MIN);
    recorder.tick();
    const points = views(await recorder.query('1m', T0, T0 + 12 * MIN));
    assert.deepEqual(
      points.map((p) => [p.t - T0 / 1000, p.n, p.e_in, p.e_out, p.p_out]),
      [
        [0, 6, 1.25, 0, null],
        [60, 2, 0.5, 0, null],
        [660, 1, 1, 0, null],
      ],
    );
    const quarter = views(await recorder.query('15m', T0, T0));
    assert.equal(quarter[0]!.e_in, 2.75);
  });
});

test('a reading without energy registers has power only; e_in and e_out stay null', async () => {
  await withRecorders(T0 - 1000, async (h, { recorder, ctx }) => {
    await recorder.start();
    feed(h, ctx, T0, { pIn: 0.75 });
    feed(h, ctx, T0 + 1000, { pIn: 0.25 });
    assert.deepEqual(views(await recorder.query('1m', T0, T0)), [
      { t: T0 / 1000, n: 2, p_in: { min: 0.25, mean: 0.5, max: 0.75 }, p_out: null, e_in: null, e_out: null },
    ]);
  });
});
