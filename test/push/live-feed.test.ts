// The push's live power feed (power_1s) from the meters' readings: the signed active power in W,
// import positive, at the reading's time, of the meters the registry holds now (a meter added later
// is fed, an edited one on its new store, a removed one stops); unsubscribed, nothing more arrives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LivePower, LivePowerSample } from '../../src/push/push-client.js';
import { PushOutput } from '../../src/push/push-output.js';
import { ReadingStore } from '../../src/reading/store.js';
import { startHttpContext } from '../helpers/http-context.js';
import { meterReading, setClock } from '../history/history-fixture.js';

test('power_1s feed: every reading of a meter as its signed power in W at the reading time', async () => {
  const h = await startHttpContext();
  try {
    const output = new PushOutput(h.ctx, h.ctx.logger, {
      meters: () => [],
      quarters: () => Promise.resolve([]),
    });
    const feed = (output as unknown as { livePower: LivePower }).livePower;
    const got: LivePowerSample[] = [];
    const unsubscribe = feed.subscribe((sample) => got.push(sample));
    const at = Date.now();
    setClock(h, at);
    h.ctx.store.ingest(meterReading(at, { pIn: 1.25, pOut: 0 }));
    setClock(h, at + 1000);
    h.ctx.store.ingest(meterReading(at + 1000, { pIn: 0, pOut: 0.5 }));
    unsubscribe();
    setClock(h, at + 2000);
    h.ctx.store.ingest(meterReading(at + 2000, { pIn: 3, pOut: 0 }));
    assert.deepEqual(got, [
      { meter: 'main', role: 'grid', at, watts: 1250 },
      { meter: 'main', role: 'grid', at: at + 1000, watts: -500 },
    ]);
  } finally {
    await h.close();
  }
});

test('power_1s feed follows the meter registry: a meter added later is fed, an edited one on its new store, a removed one stops', async (t) => {
  const h = await startHttpContext();
  const stores: ReadingStore[] = [];
  t.after(async () => {
    for (const store of stores) store.close();
    await h.close();
  });
  const output = new PushOutput(h.ctx, h.ctx.logger, {
    meters: () => [],
    quarters: () => Promise.resolve([]),
  });
  const feed = (output as unknown as { livePower: LivePower }).livePower;
  const storeOf = (): ReadingStore => {
    const store = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', now: h.clock.now });
    stores.push(store);
    return store;
  };
  const registryListeners = h.ctx.meters.listenerCount('added');
  const got: LivePowerSample[] = [];
  const unsubscribe = feed.subscribe((sample) => got.push(sample));
  const at = Date.now();
  let step = 0;
  const ingest = (store: ReadingStore, pIn: number): number => {
    const time = at + ++step * 1000;
    setClock(h, time);
    store.ingest(meterReading(time, { pIn, pOut: 0 }));
    return time;
  };
  // Added after the feed started: fed under its own id and role.
  const first = storeOf();
  h.ctx.meters.add({ id: 'pv', name: 'PV', role: 'pv', kind: 'polled', store: first, source: () => 'x' });
  const added = ingest(first, 0.5);
  // Edited (the registry removes the old handle, then adds the new one with a new store and role).
  h.ctx.meters.remove('pv');
  const second = storeOf();
  h.ctx.meters.add({
    id: 'pv',
    name: 'PV',
    role: 'consumer',
    kind: 'polled',
    store: second,
    source: () => 'y',
  });
  ingest(first, 9);
  const edited = ingest(second, 0.75);
  // Removed: nothing more of it, and never under another meter's id.
  h.ctx.meters.remove('pv');
  ingest(second, 2);
  const main = ingest(h.ctx.store, 1);
  unsubscribe();
  // After the unsubscribe, a meter added later is not followed either.
  const third = storeOf();
  h.ctx.meters.add({
    id: 'heat',
    name: 'Heat',
    role: 'consumer',
    kind: 'polled',
    store: third,
    source: () => 'z',
  });
  ingest(third, 4);
  ingest(h.ctx.store, 5);
  assert.deepEqual(got, [
    { meter: 'pv', role: 'pv', at: added, watts: 500 },
    { meter: 'pv', role: 'consumer', at: edited, watts: 750 },
    { meter: 'main', role: 'grid', at: main, watts: 1000 },
  ]);
  assert.equal(first.listenerCount('reading'), 0, 'the old store is let go');
  assert.equal(h.ctx.meters.listenerCount('added'), registryListeners, 'the registry is let go');
});
