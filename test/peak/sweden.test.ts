// Sweden's se_max_hour model and the custom model on generated 1 Hz readings (Europe/Stockholm):
// hours outside the day-time, weekday and month filters never count for the peak and never cause
// shedding (state idle, with the reason shown); top N and the aggregation make the month value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PeakEngine } from '../../src/peak/engine.js';
import type { PeakSettings } from '../../src/peak/engine-types.js';
import { BELGIUM, Simulation, type Profile } from './simulate.js';

process.env.TZ = 'Europe/Stockholm';

const at = (text: string) => Date.parse(text);
const near = (actual: number | null | undefined, expected: number, what: string) =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= 0.01,
    `${what}: ${actual} ≠ ${expected}`,
  );

/** Karlskoga Energi's höglast: Monday–Friday, 07–19 here, November to March. */
const SWEDEN: PeakSettings = {
  ...BELGIUM,
  model: 'se_max_hour',
  window_s: 3600,
  floor_kw: 0,
  filter: { hours_from: 7, hours_to: 19, weekdays_only: true, months: [11, 12, 1, 2, 3] },
};

function sweden(start: string, profile: Profile, settings: Partial<PeakSettings> = {}) {
  return new Simulation(new PeakEngine({ ...SWEDEN, ...settings }, 10_000), at(start), profile);
}

for (const [what, start, mid, until, reason] of [
  ['a Saturday', '2026-11-28T11:59:00', '2026-11-28T12:30:00', '2026-11-28T13:00:00', /weekend/],
  [
    'a weekday evening',
    '2026-11-25T19:59:00',
    '2026-11-25T20:30:00',
    '2026-11-25T21:00:00',
    /hour 20 is outside 7–19/,
  ],
  ['a weekday in June', '2026-06-10T09:59:00', '2026-06-10T10:30:00', '2026-06-10T11:00:00', /month 6/],
] as const) {
  test(`${what} at 9 kW: no shed call, state idle with the reason, the hour is not in the month`, () => {
    const sim = sweden(start, () => 9);
    sim.runUntil(mid);
    const snapshot = sim.engine.snapshot(sim.at);
    assert.equal(snapshot.state, 'idle');
    assert.match(snapshot.not_counted ?? '', reason);
    assert.equal(snapshot.marginal_eur, 0);
    assert.deepEqual(sim.calls, []);
    sim.runUntil(until);
    const month = sim.engine.monthRecords().flatMap((record) => record.top);
    assert.deepEqual(month, []);
  });
}

test('a counted weekday hour at 9 kW sheds at the arm time; the 19:00 hour does not count and ev comes back after hold_s', () => {
  const sim = sweden('2026-11-25T17:59:00', (t) => (t <= at('2026-11-25T18:00:00') ? 0.5 : 9));
  sim.runUntil('2026-11-25T18:01:00');
  assert.equal(sim.engine.snapshot(sim.at).not_counted, null);
  assert.deepEqual(
    sim.calls.map((call) => [call.action, call.at]),
    [['ev_off', at('2026-11-25T18:01:00')]],
  );
  sim.runUntil('2026-11-25T19:02:00');
  assert.deepEqual(
    sim.calls.map((call) => [call.action, call.at]),
    [
      ['ev_off', at('2026-11-25T18:01:00')],
      // 19:00 is outside 07–19: the restore test holds from 19:00:00, hold_s 60 s later.
      ['ev_on', at('2026-11-25T19:01:00')],
    ],
  );
  const snapshot = sim.engine.snapshot(sim.at);
  assert.equal(snapshot.state, 'idle');
  assert.match(snapshot.not_counted ?? '', /hour 19/);
  // The 18:00 hour is the month's highest: 0.5 kW for 1 s, then 9 kW → (0.5 + 9 × 3599)/3600; the
  // 19:00 hour (9 kW too) is not in the month.
  const [month] = sim.engine.monthRecords();
  assert.deepEqual(
    month!.top.map((window) => window.at),
    // The 17:00 hour, seen only from 17:59:01, is not recorded.
    [at('2026-11-25T18:00:00')],
  );
  near(month!.top[0]!.kw, (0.5 + 9 * 3599) / 3600, '18:00 hour');
  near(snapshot.month_value_kw, 8.9975, 'month value (top 1)');
});

test('top_n 2 with mean: the month value of hours 4 and 6 kW is 5.000; the limit mode fixed is unchanged', () => {
  const sim = sweden(
    '2026-11-25T09:00:00',
    (t) => (t <= at('2026-11-25T10:00:00') ? 4 : t <= at('2026-11-25T11:00:00') ? 6 : 1),
    { top_n: 2, limit_kw: 20 },
  );
  sim.runUntil('2026-11-25T11:00:10');
  const snapshot = sim.engine.snapshot(sim.at);
  near(snapshot.month_value_kw, 5, 'month value');
  near(snapshot.effective_limit_kw, 20, 'limit');
  assert.equal(snapshot.step, null);
});

test('custom: 1800 s windows, top 2 on distinct days, floor 3 kW in the rolling value', () => {
  const sim = new Simulation(
    new PeakEngine(
      {
        ...BELGIUM,
        model: 'custom',
        window_s: 1800,
        top_n: 2,
        aggregation: 'mean_distinct_days',
        floor_kw: 3,
        limit_kw: 20,
      },
      10_000,
    ),
    at('2026-11-25T10:00:00'),
    (t) => (t <= at('2026-11-25T10:30:00') ? 2 : t <= at('2026-11-25T11:00:00') ? 1 : 0.5),
  );
  sim.runUntil('2026-11-25T11:00:10');
  const snapshot = sim.engine.snapshot(sim.at);
  assert.equal(snapshot.window!.seconds, 1800);
  assert.equal(snapshot.window!.start, at('2026-11-25T11:00:00'));
  // One day: its maximum 2.0 (10:00–10:30), the second day missing: (2 + 0) / 2 = 1.0.
  near(snapshot.month_value_kw, 1, 'month value');
  // Rolling: the month value floored at 3 kW.
  near(snapshot.rolling.kw, 3, 'rolling');
  assert.deepEqual(
    // The 10:30 window (1.0 kW) is of the same day: the day keeps 2.0 (first reading 10:00:01).
    sim.engine.monthRecords()[0]!.top.map((window) => Math.round(window.kw * 100) / 100),
    [2],
  );
});
