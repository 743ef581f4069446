import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MeterRegistry } from '../../src/reading/meter-registry.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { ReadingStore } from '../../src/reading/store.js';
import { combineReadings } from '../../src/reading/virtual-combine.js';
import { VirtualMeter } from '../../src/reading/virtual-meter.js';

/**
 * Virtual meters: power combines as signed sums (per phase only when every term has phases),
 * counters come from the terms' counters, and the virtual meter is stale whenever a term is.
 */

function reading(values: Record<string, [number, string]>, receivedAt = 0): Reading {
  return { receivedAt, protocol: 'DSMR', identity: {}, values: valuesOf(values), mbus: [] };
}

const GRID = reading({
  '1.7.0': [2, 'kW'],
  '2.7.0': [0, 'kW'],
  '21.7.0': [1, 'kW'],
  '41.7.0': [0.5, 'kW'],
  '61.7.0': [0.5, 'kW'],
  '22.7.0': [0, 'kW'],
  '42.7.0': [0, 'kW'],
  '62.7.0': [0, 'kW'],
  '1.8.0': [100, 'kWh'],
  '2.8.0': [50, 'kWh'],
  '32.7.0': [230, 'V'],
});
const EV = reading({ '1.7.0': [1.5, 'kW'], '2.7.0': [0, 'kW'], '1.8.0': [30, 'kWh'], '2.8.0': [0, 'kWh'] });
const PV = reading({
  '1.7.0': [0, 'kW'],
  '2.7.0': [3, 'kW'],
  '21.7.0': [0, 'kW'],
  '41.7.0': [0, 'kW'],
  '61.7.0': [0, 'kW'],
  '22.7.0': [1, 'kW'],
  '42.7.0': [1, 'kW'],
  '62.7.0': [1, 'kW'],
  '1.8.0': [1, 'kWh'],
  '2.8.0': [400, 'kWh'],
});

function value(r: Reading, obis: string): number | undefined {
  return r.values.get(obis)?.value;
}

test('main - ev: net power, counters from the counters with the taken-away meter swapped; no phases when a term has none', () => {
  const house = combineReadings(
    [
      { factor: 1, reading: GRID },
      { factor: -1, reading: EV },
    ],
    5,
  );
  assert.equal(value(house, '1.7.0'), 0.5);
  assert.equal(value(house, '2.7.0'), 0);
  assert.equal(value(house, '21.7.0'), undefined, 'ev has no phases');
  assert.equal(value(house, '1.8.0'), 100);
  assert.equal(value(house, '2.8.0'), 80);
  assert.equal(
    value(house, '1.8.0')! - value(house, '2.8.0')!,
    100 - 50 - 30,
    'net energy is the arithmetic of the terms',
  );
  assert.equal(value(house, '32.7.0'), undefined, 'voltages are not combined');
  assert.equal(house.protocol, 'VIRTUAL');
  assert.equal(house.receivedAt, 5);
});

test('main - 2 * pv: per phase when every term has phases; export when the sum is negative; constant factors', () => {
  const total = combineReadings(
    [
      { factor: 1, reading: GRID },
      { factor: -2, reading: PV },
    ],
    0,
  );
  // grid net 2 kW, pv net -3 kW: 2 - 2 * (-3) = 8 kW import.
  assert.equal(value(total, '1.7.0'), 8);
  assert.equal(value(total, '21.7.0'), 3);
  assert.equal(value(total, '41.7.0'), 2.5);
  assert.equal(value(total, '1.8.0'), 100 + 2 * 400);
  assert.equal(value(total, '2.8.0'), 50 + 2 * 1);
  const exporting = combineReadings([{ factor: 1, reading: PV }], 0);
  assert.equal(value(exporting, '1.7.0'), 0);
  assert.equal(value(exporting, '2.7.0'), 3);
  assert.equal(value(exporting, '22.7.0'), 1);
});

test('a virtual meter follows its terms and is NO DATA the moment any term is stale or failed', () => {
  let now = 1_000_000;
  const clock = () => now;
  const main = new ReadingStore({ staleAfterMs: 10_000, meterInterface: 'P1', now: clock });
  const ev = new ReadingStore({ staleAfterMs: 3_000, meterInterface: 'RS485', now: clock });
  const registry = new MeterRegistry({
    id: 'main',
    name: 'Main',
    role: 'grid',
    kind: 'primary',
    store: main,
    source: () => 'simulator',
  });
  registry.add({ id: 'ev', name: 'EV', role: 'ev', kind: 'polled', store: ev, source: () => 'x' });
  const house = new VirtualMeter('main - ev', registry, clock);
  house.start();
  try {
    assert.equal(house.store.latest, undefined, 'no reading before every term has one');
    main.ingest({ ...GRID, receivedAt: now });
    assert.equal(house.store.latest, undefined);
    ev.ingest({ ...EV, receivedAt: now });
    assert.equal(house.store.meter.status, 'OK');
    assert.equal(value(house.store.latest!, '1.7.0'), 0.5);
    // ev goes silent past its own timeout while main reads on: the sum is not passed off as current.
    now += 4_000;
    main.ingest({ ...GRID, receivedAt: now });
    assert.equal(house.store.latest, undefined);
    assert.equal(house.store.meter.status, 'NO DATA');
    ev.ingest({ ...EV, receivedAt: now });
    assert.equal(house.store.meter.status, 'OK');
    // ev's timeout passes with no event at all (its staleness timer has not run yet): read at that
    // instant, the sum is not current either.
    now += 3_001;
    assert.equal(ev.meter.status, 'NO DATA');
    assert.equal(house.store.latest, undefined);
    assert.equal(house.store.meter.status, 'NO DATA');
    ev.ingest({ ...EV, receivedAt: now });
    assert.equal(house.store.meter.status, 'OK');
    // A term that fails (port gone) makes it NO DATA at once, before any timeout.
    ev.sourceFailed('NOT CONNECTED');
    assert.equal(house.store.latest, undefined);
    assert.equal(house.store.meter.status, 'NO DATA');
  } finally {
    house.stop();
    main.close();
    ev.close();
  }
});
