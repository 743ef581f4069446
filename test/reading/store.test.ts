import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { ReadingStore } from '../../src/reading/store.js';
import type { MeterState } from '../../src/reading/meter-state.js';

function reading(at: number, power = 1.5): Reading {
  return {
    receivedAt: at,
    protocol: 'DSMR',
    identity: { id: 'E1' },
    values: valuesOf({ '1.7.0': [power, 'kW'] }),
    mbus: [],
  };
}

test('status, report id, interval and counters follow the readings', () => {
  let now = 1_000_000;
  const store = new ReadingStore({ staleAfterMs: 5000, meterInterface: 'P1', now: () => now });
  const statuses: string[] = [];
  store.on('meter', (meter: MeterState) => statuses.push(meter.status));
  assert.equal(store.meter.status, 'NOT CONNECTED');
  assert.equal(store.latest, undefined);
  store.setStatus('OK');
  assert.equal(store.meter.status, 'NO DATA', 'a transport cannot claim OK before a valid frame');

  store.ingest(reading(now));
  now += 1002;
  store.ingest(reading(now, 2));
  store.reject('crc');
  store.reject('parse');
  store.reject('overflow');
  store.receiveBytes(Buffer.alloc(10));
  assert.equal(store.meter.status, 'OK');
  assert.equal(store.meter.protocol, 'DSMR');
  assert.equal(store.meter.identity.id, 'E1');
  assert.equal(store.reportId, 2);
  assert.equal(store.interval, 1.002);
  assert.equal((store.latest as Reading | undefined)?.values.get('1.7.0')?.value, 2);
  assert.deepEqual(store.counters, {
    framesOk: 2,
    crcErrors: 1,
    parseErrors: 1,
    overflows: 1,
    encryptionErrors: 0,
    timeouts: 0,
    bytes: 10,
  });
  assert.deepEqual(statuses, ['NO DATA', 'OK']);
  store.close();
});

test('no valid frame within the timeout: NO DATA and no stale reading passed off as current', async () => {
  const store = new ReadingStore({ staleAfterMs: 50, meterInterface: 'P1' });
  const seen = new Promise<string>((resolve) =>
    store.on('meter', (m: MeterState) => m.status === 'NO DATA' && resolve(m.status)),
  );
  store.ingest(reading(Date.now()));
  assert.equal(store.meter.status, 'OK');
  assert.equal(await seen, 'NO DATA');
  assert.equal(store.latest, undefined);
  assert.equal(store.isStale(), true);
  store.close();
});

test('stale before the timer fires: one NO DATA view per state, no reading, and views at a given time', () => {
  let now = 2_000_000;
  const store = new ReadingStore({ staleAfterMs: 5000, meterInterface: 'P1', now: () => now });
  store.ingest(reading(now));
  const fresh = store.meter;
  assert.equal(fresh.status, 'OK');
  now += 5001; // past the limit; the store's own timer has not fired yet
  const stale = store.meter;
  assert.equal(stale.status, 'NO DATA');
  assert.equal(stale.identity.id, 'E1');
  assert.equal(
    store.meter,
    stale,
    'the same view while nothing changes (the report cache compares identities)',
  );
  assert.equal(store.latest, undefined);
  assert.equal(store.meterAt(now - 5001), fresh);
  assert.equal(store.latestAt(now - 5001)?.values.get('1.7.0')?.value, 1.5);
  store.ingest(reading(now, 3));
  assert.equal(store.meter.status, 'OK');
  now += 5001;
  assert.equal(store.meter.status, 'NO DATA');
  assert.equal(store.latest, undefined);
  store.close();
});

test('reading events carry derived totals', () => {
  const store = new ReadingStore({ staleAfterMs: 5000, meterInterface: 'P1' });
  const got: Reading[] = [];
  store.on('reading', (r) => got.push(r));
  store.ingest({ ...reading(Date.now()), values: valuesOf({ '1.8.1': [1, 'kWh'], '1.8.2': [2, 'kWh'] }) });
  assert.equal(got[0]?.values.get('1.8.0')?.value, 3);
  store.close();
});
