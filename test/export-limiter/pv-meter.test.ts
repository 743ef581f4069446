import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valuesOf } from '../../src/reading/reading.js';
import { ReadingStore } from '../../src/reading/store.js';
import type { AppContext } from '../../src/context.js';
import { startRig, type LimiterRig } from './rig.js';

/**
 * `pv_meter` (docs/architecture.md#export-limiter): the inverter's present output is the named
 * meter's power, looked up in the registry on every step; a meter that is missing is a state of the
 * inverter (no write), never the primary meter instead.
 */

function pvStore(clock: { now: () => number }): ReadingStore {
  return new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', now: clock.now });
}

function addPvMeter(ctx: AppContext, store: ReadingStore): void {
  ctx.meters.add({ id: 'pv', name: 'pv', role: 'pv', kind: 'polled', store, source: () => 'x' });
}

/** One reading of the PV meter: the inverter's true output as exported power (kW). */
function feedPv(rig: LimiterRig, store: ReadingStore, watts: number): void {
  store.ingest({
    receivedAt: rig.clock.now(),
    protocol: 'MODBUS',
    identity: {},
    values: valuesOf({ '1.7.0': [0, 'kW'], '2.7.0': [watts / 1000, 'kW'] }),
    mbus: [],
  });
}

test('pv_meter: the output is the PV meter power (800 W), not the inverter report (half of it); an edited meter is followed', async () => {
  let store: ReadingStore | undefined;
  const rig = await startRig({
    load: () => 800,
    inverter: { reportScale: 0.5 },
    inverterSetting: { pv_meter: 'pv' },
    setup: (ctx) => {
      store = pvStore(ctx.clock);
      addPvMeter(ctx, store);
    },
  });
  const stores = [store!];
  try {
    let stepsSinceFeed = 0;
    const feed = () => {
      if (++stepsSinceFeed < 10) return;
      stepsSinceFeed = 0;
      feedPv(rig, store!, rig.inverter.outputW());
    };
    await rig.run(60_000, feed);
    const status = rig.limiter!.status();
    assert.equal(status.state, 'limiting', JSON.stringify(status));
    const reported = status.inverters[0]!.reported_w!;
    assert.ok(
      Math.abs(reported - 800) <= 50,
      `reported ${reported} W (the inverter's own register says ${rig.inverter.register(rig.inverter.address.m103 + 14)} W)`,
    );
    assert.ok(Math.abs(rig.gridW()) <= 50, `grid ${rig.gridW()} W`);
    // The meter is edited: a new handle with its own store replaces it; the old store goes quiet at 123 W.
    feedPv(rig, store!, 123);
    rig.ctx.meters.remove('pv');
    store = pvStore(rig.clock);
    stores.push(store);
    addPvMeter(rig.ctx, store);
    await rig.run(20_000, feed);
    const after = rig.limiter!.status().inverters[0]!;
    assert.equal(after.state, 'ok');
    assert.ok(Math.abs(after.reported_w! - 800) <= 50, `reported ${after.reported_w} W from the new meter`);
  } finally {
    await rig.close();
    stores.forEach((entry) => entry.close());
  }
});

test('pv_meter naming no meter: state pv_meter_missing, no write, no fallback to the primary meter or the inverter report', async () => {
  const rig = await startRig({ load: () => 800, inverterSetting: { pv_meter: 'nope' } });
  try {
    await rig.run(30_000);
    const status = rig.limiter!.status();
    assert.equal(status.inverters[0]!.state, 'pv_meter_missing');
    assert.match(status.inverters[0]!.error ?? '', /pv_meter "nope" is not a configured meter/);
    assert.equal(status.inverters[0]!.reported_w, null);
    assert.equal(status.state, 'inverter_lost');
    assert.equal(rig.inverter.writes.length, 0);
  } finally {
    await rig.close();
  }
});
