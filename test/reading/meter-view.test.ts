import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveValues } from '../../src/reading/derive.js';
import { meterView, viewOfValues } from '../../src/reading/meter-view.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';

function reading(entries: Record<string, [number, string]>): Reading {
  return {
    receivedAt: 1_700_000_000_000,
    protocol: 'DSMR',
    identity: {},
    values: deriveValues(valuesOf(entries)),
    mbus: [],
  };
}

test('a DSMR meter importing: W import positive, currents positive, what it does not send null', () => {
  const view = meterView(
    reading({
      '1.7.0': [1.234, 'kW'],
      '2.7.0': [0, 'kW'],
      '21.7.0': [1.234, 'kW'],
      '22.7.0': [0, 'kW'],
      '31.7.0': [5, 'A'],
      '32.7.0': [230.1, 'V'],
    }),
  );
  assert.deepEqual(view.total, { w: 1234, var: null, va: null, pf: null, hz: null });
  assert.deepEqual(view.phases[0], { line: 'l1', w: 1234, var: null, va: null, pf: null, v: 230.1, a: 5 });
  // A single-phase meter: phases 2 and 3 are not invented.
  for (const phase of view.phases.slice(1))
    assert.deepEqual([phase.w, phase.var, phase.va, phase.pf, phase.v, phase.a], Array(6).fill(null));
});

test('export on one phase: that phase W and A negative, the others and the total by the same rule', () => {
  const view = meterView(
    reading({
      '1.7.0': [0, 'kW'],
      '2.7.0': [0.5, 'kW'],
      '21.7.0': [0, 'kW'],
      '22.7.0': [2.1, 'kW'],
      '41.7.0': [0.8, 'kW'],
      '42.7.0': [0, 'kW'],
      '61.7.0': [0.8, 'kW'],
      '62.7.0': [0, 'kW'],
      '31.7.0': [9, 'A'],
      '51.7.0': [3.5, 'A'],
      '71.7.0': [3.5, 'A'],
      '3.7.0': [0.1, 'kvar'],
      '4.7.0': [0.3, 'kvar'],
    }),
  );
  assert.equal(view.total.w, -500);
  assert.equal(view.total.var, (0.1 - 0.3) * 1000);
  assert.deepEqual(
    view.phases.map((phase) => [phase.w, phase.a]),
    [
      [-2100, -9],
      [800, 3.5],
      [800, 3.5],
    ],
  );
});

test('a meter that sends signed values (SML 16.7.0 / 36.7.0 and signed currents): the sign is kept, never flipped twice', () => {
  const view = meterView(
    reading({
      '16.7.0': [-1.5, 'kW'],
      '36.7.0': [-1.5, 'kW'],
      '56.7.0': [0.25, 'kW'],
      '31.7.0': [-6.5, 'A'],
      '51.7.0': [-1.1, 'A'],
    }),
  );
  assert.equal(view.total.w, -1500);
  assert.equal(view.phases[0].w, -1500);
  assert.equal(view.phases[0].a, -6.5);
  // Phase 2 imports: its current is positive whatever sign the meter gave it.
  assert.equal(view.phases[1].w, 250);
  assert.equal(view.phases[1].a, 1.1);
  assert.equal(view.phases[2].w, null);
  assert.equal(view.phases[2].a, null);
});

test("the meter's signed active power wins over an import register alone (no export register sent)", () => {
  const view = viewOfValues(valuesOf({ '16.7.0': [-0.7, 'kW'], '1.7.0': [0, 'kW'] }));
  assert.equal(view.total.w, -700);
});

test('VA is a magnitude of either direction, PF and Hz as sent; absent without a register', () => {
  const view = viewOfValues(
    valuesOf({
      '9.7.0': [0, 'kVA'],
      '10.7.0': [2.5, 'kVA'],
      '29.7.0': [1.2, 'kVA'],
      '33.7.0': [0.97, ''],
      '13.7.0': [0.95, ''],
      '14.7.0': [49.98, 'Hz'],
    }),
  );
  assert.equal(view.total.va, 2500);
  assert.equal(view.total.pf, 0.95);
  assert.equal(view.total.hz, 49.98);
  assert.equal(view.total.w, null);
  assert.equal(view.phases[0].va, 1200);
  assert.equal(view.phases[0].pf, 0.97);
  assert.equal(view.phases[1].va, null);
  assert.equal(view.phases[1].pf, null);
});

test('computed once per reading: every consumer gets the same object; a new reading gets its own', () => {
  const first = reading({ '1.7.0': [1, 'kW'] });
  const second = reading({ '1.7.0': [2, 'kW'] });
  assert.equal(meterView(first), meterView(first));
  assert.notEqual(meterView(first), meterView(second));
  assert.equal(meterView(second).total.w, 2000);
});
