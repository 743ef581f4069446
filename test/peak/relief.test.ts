// A stage's relief is judged on the power after its shed (the import's mean since the shed went
// out, or the stage's own sub-meter), not on a 30 s mean that straddles a load step just taken:
// the Belgian case (3.0 kW, then 7.0 kW from 18:05) sheds ev at 18:05:10, when the
// prediction crosses L − margin, and ev's 3.7 kW relief is effective, so the idle boiler stays on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PeakEngine } from '../../src/peak/engine.js';
import { BELGIUM, EV, Simulation } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

const at = (text: string) => Date.parse(text);
const BOILER = { ...EV, id: 'boiler', shed: 'boiler_off', restore: 'boiler_on', relief_kw: 2 };

test('3.0 kW then 7.0 kW from 18:05: ev is shed at 18:05:10 and judged effective; the idle boiler is not shed', () => {
  const sim = Simulation.belgian(
    '2026-11-25T17:59:00',
    (t, shed) => (t <= at('2026-11-25T18:05:00') ? 3 : 7 - (shed.includes('ev') ? 3.7 : 0)),
    { stages: [EV, BOILER] },
  );
  sim.runUntil('2026-11-25T18:08:00');
  // running 1.0 + p_now × 590/900 passes 3.9 kW when the 30 s mean holds ten 7 kW seconds.
  assert.deepEqual(
    sim.calls.map((call) => [call.action, new Date(call.at).toISOString()]),
    [['ev_off', new Date(at('2026-11-25T18:05:10')).toISOString()]],
  );
  assert.deepEqual(
    sim.events.filter((event) => event.type === 'ineffective'),
    [],
  );
});

test('a stage with a sub-meter is judged on it: ev falls from 3.7 to 0 kW while the import stays', () => {
  const stage = { ...EV, meter: 'ev' };
  const engine = new PeakEngine({ ...BELGIUM, stages: [stage, BOILER] }, 10_000);
  let kwh = 1000;
  let shedAt: number | undefined;
  const calls: string[] = [];
  const ineffective: string[] = [];
  for (let t = at('2026-11-25T18:00:00'); t <= at('2026-11-25T18:03:00'); t += 1000) {
    // 9 kW throughout: another load takes what ev gave back, as a heat pump starting would.
    kwh += 9 / 3600;
    const evKw = shedAt !== undefined && t > shedAt ? 0 : 3.7;
    const step = engine.reading({ at: t, importKwh: kwh, importKw: 9, meters: { ev: evKw } });
    for (const call of step.calls) {
      calls.push(call.action);
      if (call.stage === 'ev') shedAt = call.at;
    }
    for (const event of step.events) if (event.type === 'ineffective') ineffective.push(event.stage!);
  }
  // ev's relief shows on its meter; the boiler, without one, takes nothing off the import.
  assert.deepEqual(ineffective, ['boiler']);
  // The boiler goes next only because the import is still too high.
  assert.deepEqual(calls, ['ev_off', 'boiler_off']);
});

test('without a sub-meter, a shed that takes nothing off the import is ineffective', () => {
  const sim = Simulation.belgian('2026-11-25T17:59:00', () => 9, { stages: [EV, BOILER] });
  sim.runUntil('2026-11-25T18:02:00');
  assert.deepEqual(
    sim.events.filter((event) => event.type === 'ineffective').map((event) => event.stage),
    ['ev', 'boiler'],
  );
});
