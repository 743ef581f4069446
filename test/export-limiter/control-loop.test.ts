import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startRig } from './rig.js';

test('house 800 W, PV 3000 W, dead time 5 s: grid within ±50 W from dead time + 3 s, limit 800 ± 50 W, at most 1 write per minute once settled', async () => {
  const rig = await startRig({ load: () => 800, inverter: { deadTimeMs: 5000, pv: () => 3000 } });
  try {
    const t0 = rig.clock.now();
    await rig.run(1000);
    const first = rig.writes[0];
    assert.ok(first, 'a limit was written after the first reading');
    const settleBy = first.at + 5000 + 3000;
    await rig.run(settleBy - rig.clock.now());
    let worst = 0;
    await rig.run(120_000, () => (worst = Math.max(worst, Math.abs(rig.gridW()))));
    assert.ok(worst <= 50, `grid stayed within ±50 W after settling (worst ${worst.toFixed(0)} W)`);
    const limitW = (rig.inverter.limitPctNow() / 100) * rig.inverter.wmaxW;
    assert.ok(Math.abs(limitW - 800) <= 50, `limit ${limitW} W`);
    const settled = rig.writesBetween(settleBy, rig.clock.now(), ['limit']);
    assert.ok(settled.length <= 2, `${settled.length} control writes in 2 settled minutes`);
    void t0;
  } finally {
    await rig.close();
  }
});

test('DSMR 4 meter (a reading every 10 s), house 800 W: the limit settles at 800 ± 50 W and the grid within ±50 W', async () => {
  const rig = await startRig({
    load: () => 800,
    meterEveryMs: 10_000,
    inverter: { deadTimeMs: 5000, pv: () => 3000 },
  });
  try {
    await rig.run(60_000);
    const limitW = (rig.inverter.limitPctNow() / 100) * rig.inverter.wmaxW;
    assert.ok(Math.abs(limitW - 800) <= 50, `limit ${limitW} W`);
    assert.ok(Math.abs(rig.gridW()) <= 50, `grid ${rig.gridW()} W`);
    assert.equal(rig.writesBetween(0, Number.POSITIVE_INFINITY, ['limit']).length, 1);
    assert.equal(rig.limiter!.status().state, 'limiting');
  } finally {
    await rig.close();
  }
});

test('the grid reading as DSMR 5 telegrams over a loopback tcp:// source, load 2000 -> 300 W, dead time 5 s: one write, export at most 3.54 Wh', async (t) => {
  let load = 2000;
  const rig = await startRig({
    load: () => load,
    dsmrOverTcp: true,
    inverter: { deadTimeMs: 5000, pv: () => 3000 },
  });
  try {
    await rig.run(60_400);
    assert.equal(rig.ctx.store.lastReading?.protocol, 'DSMR');
    assert.ok(Math.abs(rig.gridW()) <= 50, `settled on 2000 W (grid ${rig.gridW()} W)`);
    const before = rig.writesBetween(0, Number.POSITIVE_INFINITY, ['limit']).length;
    rig.exportWh = 0;
    load = 300;
    await rig.run(60_000);
    const writes = rig.writesBetween(0, Number.POSITIVE_INFINITY, ['limit']).length - before;
    t.diagnostic(`export ${rig.exportWh.toFixed(2)} Wh, ${writes} write(s)`);
    assert.equal(writes, 1);
    assert.ok(rig.exportWh <= 3.54, `export ${rig.exportWh.toFixed(2)} Wh`);
    assert.ok(Math.abs(rig.gridW()) <= 50);
  } finally {
    await rig.close();
  }
});
