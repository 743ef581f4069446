// A charger budget per stage (src/peak/budget.ts): what the stage may draw this second without the
// window ending above the limit, in W and in A on its phases (0 below its minimum current), as
// `peak.budget.<stage>.w` / `.a`: a `when` quantity and a template variable of an action.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PeakEngine } from '../../src/peak/engine.js';
import { peakVariables } from '../../src/peak/contributors.js';
import { registerPeakConfig } from '../../src/peak/config-rules.js';
import { isDeclaredVariable, sourceNumber, unknownVariables } from '../../src/actions/variables.js';
import { BELGIUM, EV } from './simulate.js';

process.env.TZ = 'Europe/Brussels';
registerPeakConfig();

const at = (text: string) => Date.parse(text);
const CHARGER = { ...EV, meter: 'ev', phases: 3, min_a: 6 };

/** Feeds 1 Hz readings from `from` to `to` with the import and the EV's sub-meter given by the time. */
function run(engine: PeakEngine, from: string, to: string, power: (t: number) => [number, number]): void {
  let kwh = 1000;
  for (let t = at(from) + 1000; t <= at(to); t += 1000) {
    const [importKw, evKw] = power(t);
    kwh += importKw / 3600;
    engine.reading({ at: t, importKwh: kwh, importKw, meters: { ev: evKw } });
  }
}

test('L = 6.0 kW at 18:05, running 1.0 kW, house 1.5 kW, EV idle on 3 phases: allowed 7.5, budget 6.0 kW, 8 A', () => {
  const engine = new PeakEngine({ ...BELGIUM, limit_kw: 6, stages: [CHARGER] }, 10_000);
  // 19/6 kW until 18:04:30, then 1.5 kW: 0.25 kWh by 18:05 (running 1.0 kW), a 30 s mean of 1.5 kW.
  run(engine, '2026-11-25T17:59:59', '2026-11-25T18:05:00', (t) => [
    t <= at('2026-11-25T18:04:30') ? 19 / 6 : 1.5,
    0,
  ]);
  const snapshot = engine.snapshot(at('2026-11-25T18:05:00'));
  assert.ok(Math.abs(snapshot.quantities!.running_kw - 1) < 1e-6);
  assert.ok(Math.abs(snapshot.quantities!.allowed_kw! - 7.5) < 1e-6);
  const stage = snapshot.stages!.find((entry) => entry.id === 'ev')!;
  assert.equal(stage.budget_w, 6000);
  assert.equal(stage.budget_a, 8);
  const variables = peakVariables(() => ({
    snapshot: () => snapshot,
    months: () => [],
    settings: undefined,
    guarding: true,
  }));
  assert.equal(variables.values().get('peak.budget.ev.w'), 6000);
  assert.equal(variables.values().get('peak.budget.ev.a'), 8);
  // A `when` may watch it, a template may name it; a made-up peak name stays unknown.
  assert.ok(isDeclaredVariable('peak.budget.ev.a'));
  assert.equal(sourceNumber([variables], 'peak.budget.ev.a')?.(), 8);
  assert.deepEqual(unknownVariables('${peak.budget.ev.a} ${peak.budget.ev.w} ${peak.budget.ev.x}', {}), [
    'peak.budget.ev.x',
  ]);
});

test('18:08 of the Belgian case: allowed 3.429 kW, import 7.0 kW with the EV drawing 3.7 kW: 129 W, 0 A', () => {
  const engine = new PeakEngine({ ...BELGIUM, stages: [CHARGER] }, 10_000);
  run(engine, '2026-11-25T17:59:00', '2026-11-25T18:08:00', (t) =>
    t <= at('2026-11-25T18:05:00') ? [3, 0] : [7, 3.7],
  );
  const snapshot = engine.snapshot(at('2026-11-25T18:08:00'));
  assert.ok(Math.abs(snapshot.quantities!.allowed_kw! - 3.429) < 0.001);
  const stage = snapshot.stages!.find((entry) => entry.id === 'ev')!;
  assert.ok(Math.abs(stage.budget_w! - 129) <= 1, `${stage.budget_w}`);
  assert.equal(stage.budget_a, 0);
});

test('a budget below the minimum current is 0 A; one phase at 230 V; no budget in the last 10 s', () => {
  const engine = new PeakEngine(
    { ...BELGIUM, limit_kw: 6, stages: [{ ...CHARGER, phases: 1, min_a: 10 }] },
    10_000,
  );
  run(engine, '2026-11-25T17:59:59', '2026-11-25T18:05:00', (t) => [
    t <= at('2026-11-25T18:04:30') ? 19 / 6 : 1.5,
    0,
  ]);
  // 6000 W on one phase: 26 A.
  assert.equal(engine.snapshot(at('2026-11-25T18:05:00')).stages![0]!.budget_a, 26);
  run(engine, '2026-11-25T18:05:00', '2026-11-25T18:14:55', () => [5.8, 0]);
  const late = engine.snapshot(at('2026-11-25T18:14:55')).stages![0]!;
  assert.equal(late.budget_w, null);
  assert.equal(late.budget_a, null);
});
