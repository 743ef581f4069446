// Every configured stage in the peak view with its actions, relief and the times of its last shed
// and restore call (the web interface's stage list), kept across a restart through the state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PeakEngine } from '../../src/peak/engine.js';
import { peakView } from '../../src/peak/view.js';
import { localIso } from '../../src/peak/window.js';
import { BELGIUM, EV, Simulation } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

const at = (text: string) => Date.parse(text);

test('the view lists every stage with its last shed and last restore time, also after a restart', () => {
  const boiler = { ...EV, id: 'boiler', shed: 'boiler_off', restore: 'boiler_on', relief_kw: 2 };
  const spare = { ...EV, id: 'spare', shed: 'spare_off', restore: 'spare_on', relief_kw: 1 };
  const stages = [EV, boiler, spare];
  const sim = Simulation.belgian(
    '2026-11-25T18:00:00',
    // From 18:20 the base load and the boiler (its thermostat satisfied) draw nothing, so ev fits
    // a whole window again and comes back.
    (t, shed) =>
      (t < at('2026-11-25T18:20:00') ? 2.5 : 0) +
      (shed.includes('ev') ? 0 : 3.7) +
      (shed.includes('boiler') || t >= at('2026-11-25T18:20:00') ? 0 : 2),
    { stages },
  );
  sim.runUntil('2026-11-25T18:28:00');
  const last = (kind: 'shed' | 'restore', stage: string) => {
    const call = sim.calls.filter((item) => item.kind === kind && item.stage === stage).at(-1);
    return call ? localIso(call.at) : null;
  };
  assert.ok(
    last('shed', 'ev') && last('restore', 'ev') && last('restore', 'boiler'),
    'both shed and restored',
  );
  const expected = stages.map((stage) => ({
    id: stage.id,
    shed: stage.shed,
    restore: stage.restore,
    relief_kw: stage.relief_kw,
    last_shed: last('shed', stage.id),
    last_restore: last('restore', stage.id),
  }));
  assert.equal(expected[2]!.last_shed, null, 'spare was never shed');
  const times = (engine: PeakEngine) =>
    peakView(engine.snapshot(sim.at), 'be_quarter').stages!.map(
      ({ budget_w: _w, budget_a: _a, ...stage }) => stage,
    );
  assert.deepEqual(times(sim.engine), expected);
  const restarted = new PeakEngine({ ...BELGIUM, stages }, 10_000, sim.engine.persisted());
  assert.deepEqual(times(restarted), expected);
});
