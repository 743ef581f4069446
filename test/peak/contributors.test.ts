// What the peak guard gives other modules: `peak.*` variables in an action's request (sent to a
// loopback server), its /metrics series, and the capacity charge of the costs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  peakCapacityCharge,
  peakMetrics,
  peakVariables,
  type PeakSource,
} from '../../src/peak/contributors.js';
import { unknownVariables } from '../../src/actions/variables.js';
import { Simulation, BELGIUM } from './simulate.js';
import { recordingServer, startActionsRig } from '../actions/rig.js';
import { valuesOf } from '../../src/reading/reading.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';

process.env.TZ = 'Europe/Brussels';

/** A source over a simulated engine at 18:08 of the Belgian case (predicted 5.667 kW; the import
 * does not follow the shed, so ev is ineffective and the state over_limit). */
function belgianSource(): PeakSource {
  const at = (text: string) => Date.parse(text);
  const sim = Simulation.belgian('2026-11-25T17:59:00', (t) =>
    t <= at('2026-11-25T18:05:00') ? 3 : t <= at('2026-11-25T18:08:00') ? 7 : 3.3,
  );
  sim.runUntil('2026-11-25T18:08:00');
  return {
    snapshot: () => sim.engine.snapshot(sim.at),
    months: () => sim.engine.monthRecords(),
    settings: BELGIUM,
    guarding: true,
  };
}

test('peak.* variables are known to the definition check and rendered into an action request', async () => {
  assert.deepEqual(unknownVariables('${peak.allowed_kw} ${peak.state} ${peak.nope}', {}), ['peak.nope']);
  const target = await recordingServer(200);
  const rig = await startActionsRig();
  const source = belgianSource();
  rig.actions.addVariableSource(peakVariables(() => source));
  try {
    const answer = await rig.post({
      actions: [
        {
          id: 'budget',
          requests: [
            {
              http: {
                url: `${target.url}/budget?kw=\${peak.allowed_kw}&p=\${peak.predicted_kw}&s=\${peak.state}`,
              },
            },
          ],
        },
      ],
    });
    assert.equal(answer.status, 200, await answer.text());
    await rig.callAndWait('budget');
    assert.deepEqual(
      target.requests.map((request) => request.url),
      ['/budget?kw=3.429&p=5.667&s=over_limit'],
    );
  } finally {
    await rig.close();
    await target.close();
  }
});

test('the metrics contributor gives the window in watts and the state', () => {
  const source = belgianSource();
  const samples: [string, Record<string, string>, number][] = [];
  peakMetrics(() => source).collect((family, labels, value) => samples.push([family.name, labels, value]));
  const value = (name: string) => samples.find(([family]) => family === name)?.[2];
  assert.equal(Math.round(value('meter_gateway_peak_running_watts')!), 2400);
  assert.equal(Math.round(value('meter_gateway_peak_predicted_watts')!), 5667);
  assert.deepEqual(
    samples.find(([family]) => family === 'meter_gateway_peak_state'),
    ['meter_gateway_peak_state', { meter: 'main', state: 'over_limit' }, 1],
  );
  const none: unknown[] = [];
  peakMetrics(() => undefined).collect((...sample) => none.push(sample));
  assert.equal(none.length, 0);
});

test('the capacity charge: rolling average × price / 12 per month, prorated; null while off', () => {
  const at = (text: string) => Date.parse(text);
  const source: PeakSource = {
    snapshot: () => ({ state: 'off' }),
    months: () => [
      { month: '2026-10', top: [{ at: at('2026-10-10T18:00'), kw: 5 }] },
      { month: '2026-11', top: [{ at: at('2026-11-10T18:00'), kw: 2 }] },
    ],
    settings: BELGIUM,
    guarding: true,
  };
  const charge = peakCapacityCharge(() => source);
  // October: rolling 5 kW; November: mean of 5 and 2.5 (floor) = 3.75 kW.
  assert.ok(
    Math.abs(charge.chargeFor(at('2026-10-01T00:00'), at('2026-11-01T00:00'))! - (5 * 40.4) / 12) < 1e-9,
  );
  const half = charge.chargeFor(at('2026-11-01T00:00'), at('2026-11-16T00:00'))!;
  assert.ok(Math.abs(half - (3.75 * 40.4) / 12 / 2) < 1e-9);
  assert.equal(peakCapacityCharge(() => ({ ...source, guarding: false })).chargeFor(0, 1), null);
});

test('a when condition on peak.predicted_kw fires once when the prediction crosses its threshold', async () => {
  const target = await recordingServer(200);
  const rig = await startActionsRig();
  let predicted: number | null = 3;
  const source: PeakSource = {
    snapshot: () =>
      ({ ...belgianSource().snapshot(), quantities: { predicted_kw: predicted } }) as ReturnType<
        PeakSource['snapshot']
      >,
    months: () => [],
    settings: BELGIUM,
    guarding: true,
  };
  rig.actions.addVariableSource(peakVariables(() => source));
  const reading = () => {
    rig.clock.advance(1000);
    rig.ctx.store.ingest({
      receivedAt: rig.clock.now(),
      protocol: 'DSMR',
      identity: {},
      values: valuesOf({ '1.7.0': [1, 'kW'] }),
      mbus: [],
    });
  };
  try {
    rig.clock.freeze();
    const answer = await rig.post({
      actions: [
        {
          id: 'slow_ev',
          when: { value: 'peak.predicted_kw', above: 5, for: 0 },
          requests: [{ http: { url: `${target.url}/slow?p=\${peak.predicted_kw}` } }],
        },
      ],
    });
    assert.equal(answer.status, 200, await answer.text());
    reading();
    await quietPeriod(100);
    assert.equal(target.requests.length, 0);
    predicted = 5.667;
    reading();
    await waitFor(
      'the when trigger',
      () => target.requests.length,
      (count) => count === 1,
    );
    reading();
    await quietPeriod(100);
    assert.deepEqual(
      target.requests.map((request) => request.url),
      ['/slow?p=5.667'],
    );
    const bad = await rig.post({
      actions: [{ id: 'x', when: { value: 'peak.nope', above: 1 }, requests: [] }],
    });
    assert.equal(bad.status, 400);
  } finally {
    await rig.close();
    await target.close();
  }
});
