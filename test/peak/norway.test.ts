// Norway's no_top3_days model on generated 1 Hz readings (Europe/Oslo): the month value is the mean
// of the three highest day maxima, billed in price steps; keep_step and keep_average raise the
// limit to what the month already costs. Every expected number is worked out by hand in the
// comments, tolerance ±0.01 kW.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PeakEngine } from '../../src/peak/engine.js';
import type { PeakPersisted, PeakSettings } from '../../src/peak/engine-types.js';
import { MonthPeaks } from '../../src/peak/months.js';
import { NORWAY_STEPS } from '../../src/config/peak-schema.js';
import { BELGIUM, Simulation, type Profile } from './simulate.js';

process.env.TZ = 'Europe/Oslo';

const near = (actual: number | null | undefined, expected: number, what: string) =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= 0.01,
    `${what}: ${actual} ≠ ${expected}`,
  );
const at = (text: string) => Date.parse(text);

const NORWAY: PeakSettings = {
  ...BELGIUM,
  model: 'no_top3_days',
  window_s: 3600,
  limit_kw: 3,
  floor_kw: 0,
  steps: NORWAY_STEPS,
};

/** November 2026 so far: day maxima 6.0 (2nd), 4.0 (3rd), 3.0 (4th), plus `today` on the 25th. */
function november(today?: number): PeakPersisted {
  const top = [
    { at: at('2026-11-02T18:00'), kw: 6 },
    { at: at('2026-11-03T18:00'), kw: 4 },
    { at: at('2026-11-04T18:00'), kw: 3 },
    ...(today === undefined ? [] : [{ at: at('2026-11-25T10:00'), kw: today }]),
  ].sort((a, b) => b.kw - a.kw);
  return { version: 1, shed: [], restoredAt: {}, ineffective: [], months: [{ month: '2026-11', top }] };
}

function norway(settings: Partial<PeakSettings>, persisted: PeakPersisted, profile: Profile) {
  const engine = new PeakEngine({ ...NORWAY, ...settings }, 10_000, persisted);
  return new Simulation(engine, at('2026-11-25T17:59:00'), profile);
}

test('keep_step: month value (6+4+3)/3 = 4.333 is in step 2–5 kW; the limit is 3×5 − (6+4) = 5.000 kW, so 4.5 kW is not shed', () => {
  const sim = norway({ mode: 'keep_step' }, november(), () => 4.5);
  sim.runUntil('2026-11-25T18:30:00');
  const snapshot = sim.engine.snapshot(sim.at);
  near(snapshot.month_value_kw, 4.333, 'month value');
  assert.deepEqual(snapshot.step, { index: 1, from_kw: 2, to_kw: 5, price: 375 });
  near(snapshot.effective_limit_kw, 5, 'effective limit');
  near(sim.quantities().predicted_kw, 4.5, 'predicted');
  assert.deepEqual(sim.calls, []);
  assert.equal(snapshot.state, 'idle');
});

test('fixed at 3 kW sheds the same 4.5 kW hour; keep_step sheds 5.5 kW (it would reach step 5–10 kW)', () => {
  const fixed = norway({ mode: 'fixed' }, november(), () => 4.5);
  fixed.runUntil('2026-11-25T18:02:00');
  near(fixed.engine.snapshot(fixed.at).effective_limit_kw, 3, 'fixed limit');
  assert.deepEqual(
    fixed.calls.map((call) => [call.action, call.at]),
    [['ev_off', at('2026-11-25T18:01:00')]],
  );
  const high = norway({ mode: 'keep_step' }, november(), () => 5.5);
  high.runUntil('2026-11-25T18:02:00');
  assert.deepEqual(
    high.calls.map((call) => call.action),
    ['ev_off'],
  );
  // With 5.5 kW the month value would be (6+5.5+4)/3 = 5.167: step 5–10 kW, 437.5 − 375 = 62.5 a month.
  const snapshot = high.engine.snapshot(at('2026-11-25T18:00:30'));
  assert.equal(Math.round(snapshot.marginal_eur * 100) / 100, 62.5);
});

test('keep_step early in the month: one day at 9.0 kW is a month value of 9/3 = 3.000 (missing days count 0), step 2–5 kW: the limit is 3×5 − 9 = 6.000 kW', () => {
  const persisted = november();
  persisted.months[0]!.top = [{ at: at('2026-11-02T18:00'), kw: 9 }];
  const engine = new PeakEngine({ ...NORWAY, mode: 'keep_step' }, 10_000, persisted);
  const sim = new Simulation(engine, at('2026-11-25T18:00:00'), () => 1);
  sim.runUntil('2026-11-25T18:00:10');
  const snapshot = sim.engine.snapshot(sim.at);
  near(snapshot.month_value_kw, 3, 'month value');
  assert.equal(snapshot.step?.to_kw, 5);
  near(snapshot.effective_limit_kw, 6, 'effective limit');
});

test('keep_average: today already reached 3.5 kW and the third day is 3.0, so the limit is max(3, 3.5, 3.0) = 3.500 kW', () => {
  const sim = norway({ mode: 'keep_average' }, november(3.5), (t) =>
    t <= at('2026-11-25T18:10:00') ? 3.3 : 3.8,
  );
  sim.runUntil('2026-11-25T18:10:00');
  const snapshot = sim.engine.snapshot(sim.at);
  // Month value: top 3 of 6, 4, 3.5, 3 = (6+4+3.5)/3 = 4.5.
  near(snapshot.month_value_kw, 4.5, 'month value');
  near(snapshot.effective_limit_kw, 3.5, 'effective limit');
  // 3.3 kW all along: predicted 3.3 ≤ 3.5 − 0.1, nothing shed (fixed at 3 kW would shed).
  assert.equal(sim.calls.length, 0);
  // 3.8 kW from 18:10: at 18:10:30 the 30 s mean is 3.8, running (3.3×600 + 3.8×30)/3600 = 0.582,
  // predicted 0.582 + 3.8 × 2970/3600 = 3.717 > 3.5 − 0.1 → one shed.
  sim.runUntil('2026-11-25T18:11:00');
  assert.deepEqual(
    sim.calls.map((call) => call.action),
    ['ev_off'],
  );
});

test('keep_average without a day of its own yet: the third day maximum 3.0 is below L, the limit stays 3.000', () => {
  const sim = norway({ mode: 'keep_average' }, november(), () => 1);
  sim.runUntil('2026-11-25T18:00:05');
  near(sim.engine.snapshot(sim.at).effective_limit_kw, 3, 'effective limit');
});

test('distinct days: two hours of one day keep that day’s maximum only; the month value counts it once', () => {
  const peaks = new MonthPeaks([], { n: 3, days: true });
  peaks.record({ at: at('2026-11-25T18:00'), kw: 3 });
  peaks.record({ at: at('2026-11-25T19:00'), kw: 4 });
  peaks.record({ at: at('2026-11-25T20:00'), kw: 2 });
  peaks.record({ at: at('2026-11-26T08:00'), kw: 1 });
  assert.deepEqual(
    peaks.topOf(at('2026-11-26T09:00')).map((window) => window.kw),
    [4, 1],
  );
  // Through the engine: hourly windows of 3.0 then 4.0 kW on the 25th, 2.0 kW on the 26th at 00:00.
  const sim = new Simulation(
    new PeakEngine({ ...NORWAY, limit_kw: 20 }, 10_000),
    at('2026-11-25T22:00:00'),
    (t) => (t <= at('2026-11-25T23:00:00') ? 3 : t <= at('2026-11-26T00:00:00') ? 4 : 2),
  );
  sim.runUntil('2026-11-26T01:00:00');
  const [month] = sim.engine.monthRecords();
  assert.deepEqual(
    month!.top.map((window) => [new Date(window.at).getDate(), Math.round(window.kw * 1000) / 1000]),
    [
      [25, 4],
      [26, 2],
    ],
  );
  // (4 + 2 + 0) / 3: the third day is still missing and counts 0.
  near(sim.engine.snapshot(sim.at).month_value_kw, 2, 'month value');
  assert.equal(sim.engine.snapshot(sim.at).window!.seconds, 3600);
});
