// The peak guard's quantities and state machine on generated 1 Hz readings and a fake clock
// (Belgium: L = 4.0 kW, stage ev with 3.7 kW relief), tolerance ±0.01 kW.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Simulation, EV } from './simulate.js';
import { marginalEur } from '../../src/peak/months.js';

process.env.TZ = 'Europe/Brussels';

const near = (actual: number | null | undefined, expected: number, what: string) =>
  assert.ok(
    actual !== null && actual !== undefined && Math.abs(actual - expected) <= 0.01,
    `${what}: ${actual} ≠ ${expected}`,
  );
const at = (text: string) => Date.parse(text);

test('3.0 kW then 7.0 kW from 18:05: the issue’s numbers at 18:05 and 18:08, a warning and one ev shed, the window ends at 3.940', () => {
  const sim = Simulation.belgian('2026-11-25T17:59:00', (t) =>
    t <= at('2026-11-25T18:05:00') ? 3 : t <= at('2026-11-25T18:08:00') ? 7 : 3.3,
  );
  sim.runUntil('2026-11-25T18:05:00');
  let q = sim.quantities();
  near(q.running_kw, 1, 'running 18:05');
  near(q.average_kw, 3, 'average 18:05');
  near(q.predicted_kw, 3, 'predicted 18:05');
  near(q.allowed_kw, 4.5, 'allowed 18:05');
  assert.equal(sim.calls.length, 0);
  sim.runUntil('2026-11-25T18:08:00');
  q = sim.quantities();
  near(q.running_kw, 2.4, 'running 18:08');
  near(q.predicted_kw, 5.667, 'predicted 18:08');
  near(q.allowed_kw, 3.429, 'allowed 18:08');
  near(q.headroom_kw, -3.571, 'headroom 18:08');
  assert.ok(sim.events.some((event) => event.type === 'warning'));
  assert.deepEqual(
    sim.calls.map((call) => [call.kind, call.action]),
    [['shed', 'ev_off']],
  );
  sim.runUntil('2026-11-25T18:15:00');
  const closed = sim.engine.snapshot(sim.at).last_window!;
  assert.equal(closed.start, at('2026-11-25T18:00:00'));
  near(closed.kw, 3.94, 'window 18:00–18:15');
});

test('9.0 kW from 18:00: a warning at 18:00:30 without a call, the first shed at 18:01:00', () => {
  const sim = Simulation.belgian('2026-11-25T17:59:00', (t) => (t <= at('2026-11-25T18:00:00') ? 0.5 : 9));
  sim.runUntil('2026-11-25T18:00:30');
  assert.equal(sim.engine.currentState, 'warning');
  assert.equal(sim.calls.length, 0);
  sim.runUntil('2026-11-25T18:00:59');
  assert.equal(sim.calls.length, 0);
  sim.runUntil('2026-11-25T18:01:00');
  assert.deepEqual(
    sim.calls.map((call) => [call.action, call.at]),
    [['ev_off', at('2026-11-25T18:01:00')]],
  );
});

test('at the 18:15 window start with 3.3 kW import, the shed ev stays shed (no blanket restore)', () => {
  // 7 kW from 18:00 until ev is shed (18:01:00), then 3.3 kW: near 18:15 the restore test passes
  // for the rest of the window, but not for the next one.
  const sim = Simulation.belgian('2026-11-25T17:59:00', (t, shed) =>
    t <= at('2026-11-25T18:00:00') ? 0.5 : shed.includes('ev') ? 3.3 : 7,
  );
  sim.runUntil('2026-11-25T18:14:59');
  assert.deepEqual(sim.shed, ['ev']);
  sim.runUntil('2026-11-25T18:20:00');
  assert.deepEqual(sim.shed, ['ev']);
  assert.deepEqual(
    sim.calls.map((call) => call.kind),
    ['shed'],
  );
  near(sim.engine.snapshot(sim.at).quantities!.running_kw, 3.3 / 3, 'running 18:20');
});

test('restore newest first only after the restore test held for hold_s', () => {
  const boiler = { ...EV, id: 'boiler', shed: 'boiler_off', restore: 'boiler_on', relief_kw: 2 };
  // 8 kW with both loads; each shed stage takes its relief off; at 18:20 the base load falls.
  const sim = Simulation.belgian(
    '2026-11-25T18:00:00',
    (t, shed) =>
      (t < at('2026-11-25T18:20:00') ? 2.5 : 0.2) +
      (shed.includes('ev') ? 0 : 3.7) +
      (shed.includes('boiler') ? 0 : 2),
    { stages: [EV, boiler] },
  );
  sim.runUntil('2026-11-25T18:19:59');
  assert.deepEqual(sim.shed, ['ev', 'boiler']);
  sim.runUntil('2026-11-25T18:28:00');
  // 18:10:17 the boiler back would fit the rest of the window (2.25 + 4.5 × 290/900 ≤ 3.7) but not
  // the next one (2.5 + 2 > 3.7): it stays shed instead of being shed again once that one is
  // armed. After 18:20 (base 0.2 kW) the newest, the boiler, comes back; ev stays shed, since
  // 0.2 + 2 + 3.7 kW does not fit a window below L − hysteresis.
  assert.deepEqual(
    sim.calls.map((call) => call.action),
    ['ev_off', 'boiler_off', 'boiler_on'],
  );
  const restores = sim.calls.filter((call) => call.kind === 'restore' && call.at > at('2026-11-25T18:20:00'));
  assert.ok(restores[0]!.at - at('2026-11-25T18:20:00') >= 60_000, 'held for hold_s');
});

test('an ineffective stage lets the next one go; with none left: over_limit, one unavoidable event, no more calls', () => {
  const small = { ...EV, id: 'heat', shed: 'heat_off', restore: 'heat_on', relief_kw: 2 };
  // 6.0 kW; shedding heat takes only 0.2 kW off, ev nothing.
  const sim = Simulation.belgian('2026-11-25T17:59:00', (_t, shed) => (shed.includes('heat') ? 5.8 : 6), {
    stages: [small, EV],
  });
  sim.runUntil('2026-11-25T18:01:00');
  assert.deepEqual(
    sim.calls.map((call) => call.action),
    ['heat_off'],
  );
  sim.runUntil('2026-11-25T18:01:30');
  assert.ok(sim.events.some((event) => event.type === 'ineffective' && event.stage === 'heat'));
  assert.deepEqual(
    sim.calls.map((call) => call.action),
    ['heat_off', 'ev_off'],
  );
  sim.runUntil('2026-11-25T18:14:59');
  assert.equal(sim.engine.currentState, 'over_limit');
  assert.equal(sim.events.filter((event) => event.type === 'unavoidable').length, 1);
  assert.equal(sim.calls.length, 2);
});

test('no reading for the meter timeout while predicted > L: stale, no shed, no restore; resumes after', () => {
  const sim = Simulation.belgian('2026-11-25T17:59:00', () => 9, { arm_after_s: 60 });
  sim.runUntil('2026-11-25T18:00:20');
  assert.equal(sim.calls.length, 0);
  for (let t = sim.at + 1000; t <= sim.at + 120_000; t += 1000) sim.engine.tick(t);
  assert.equal(sim.engine.currentState, 'stale');
  assert.equal(sim.calls.length, 0);
  sim.at += 120_000;
  sim.runUntil('2026-11-25T18:02:21');
  assert.notEqual(sim.engine.currentState, 'stale');
  assert.deepEqual(
    sim.calls.map((call) => call.action),
    ['ev_off'],
  );
});

test('stale data with ev shed: no restore (on_stale hold); restore_all brings it back', () => {
  for (const onStale of ['hold', 'restore_all'] as const) {
    const sim = Simulation.belgian('2026-11-25T17:59:00', () => 9, { on_stale: onStale });
    sim.runUntil('2026-11-25T18:01:00');
    const step = sim.engine.tick(sim.at + 11_000);
    assert.equal(sim.engine.currentState, 'stale');
    assert.deepEqual(
      step.calls.map((call) => call.action),
      onStale === 'hold' ? [] : ['ev_on'],
    );
  }
});

test('marginal cost: month peak 4.000, predicted 5.667, 40.4 EUR/kW/year gives 5.61 EUR', () => {
  assert.equal(Number(marginalEur(5.667, 4, 2.5, 40.4).toFixed(2)), 5.61);
  assert.equal(marginalEur(3, 4, 2.5, 40.4), 0);
  assert.equal(
    Number(marginalEur(3, undefined, 2.5, 40.4).toFixed(4)),
    Number(((0.5 * 40.4) / 12).toFixed(4)),
  );
});
