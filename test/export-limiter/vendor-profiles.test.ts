import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { RETRY_MIN_MS } from '../../src/export-limiter/limiter.js';
import { HUAWEI, SOLAREDGE, VICTRON } from '../../src/export-limiter/vendors.js';
import type { Vendor } from '../helpers/simulated-inverter.js';
import { startRig, switchableExportPrice } from './rig.js';

/**
 * The vendor profiles (docs/architecture.md#export-limiter): the exact register writes of each, and
 * the control loop closed through each on a house of 800 W with 3000 W of PV on a 5000 W inverter.
 */

const writesOf = (rig: Awaited<ReturnType<typeof startRig>>) =>
  rig.inverter.writes.map((write) => ({ address: write.address, words: write.words }));

test('solaredge: command timeout and fallback once (0xF310 [120, 0, 0, 0]), EnableDynamicPowerControl 1, then 0xF322 float32 16 % low word first; refreshes write 0xF322 alone', async () => {
  const rig = await startRig({ load: () => 800, profile: 'solaredge', inverter: { vendor: 'solaredge' } });
  try {
    await rig.run(1000);
    assert.deepEqual(writesOf(rig).slice(0, 3), [
      { address: SOLAREDGE.COMMAND_TIMEOUT, words: [120, 0, 0, 0] },
      { address: SOLAREDGE.ENABLE_DPC, words: [1] },
      { address: SOLAREDGE.DYNAMIC_LIMIT, words: [0x0000, 0x4180] },
    ]);
    await rig.run(300_000);
    const later = rig.inverter.writes.slice(3);
    assert.ok(later.length >= 4, `${later.length} refreshes in 5 minutes`);
    for (const write of later) assert.equal(write.address, SOLAREDGE.DYNAMIC_LIMIT);
    assert.equal(rig.inverter.limitPctNow(), 16);
  } finally {
    await rig.close();
  }
});

test('solaredge with advanced power control off (0xF142 0): nothing written, the state says why', async () => {
  const rig = await startRig({
    load: () => 800,
    profile: 'solaredge',
    inverter: { vendor: 'solaredge', advancedPowerControl: false },
  });
  try {
    await rig.run(30_000);
    assert.equal(rig.inverter.writes.length, 0);
    const status = rig.limiter!.status();
    assert.equal(status.inverters[0]!.state, 'inverter_lost');
    assert.match(status.inverters[0]!.error ?? '', /advanced power control is off/);
  } finally {
    await rig.close();
  }
});

test('solaredge serves one Modbus TCP client: held by another, state busy with "inverter busy", retries no faster than 5 s', async () => {
  const rig = await startRig({
    load: () => 800,
    profile: 'solaredge',
    inverter: { vendor: 'solaredge', singleClient: true },
  });
  try {
    await rig.run(5000);
    assert.equal(rig.limiter!.status().state, 'limiting');
    rig.inverter.dropClients();
    const other = connect(rig.inverter.port, '127.0.0.1');
    await once(other, 'connect');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const attempts: number[] = [];
    let refused = rig.inverter.refused;
    await rig.run(60_000, () => {
      if (rig.inverter.refused > refused) {
        refused = rig.inverter.refused;
        attempts.push(rig.clock.now());
      }
    });
    const status = rig.limiter!.status();
    assert.equal(status.state, 'busy', JSON.stringify(status));
    assert.match(status.inverters[0]!.error ?? '', /inverter busy/);
    assert.ok(attempts.length >= 2, `${attempts.length} attempts`);
    for (let index = 1; index < attempts.length; index++)
      assert.ok(attempts[index]! - attempts[index - 1]! >= RETRY_MIN_MS, `attempts ${attempts.join(', ')}`);
    other.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await rig.run(90_000);
    assert.equal(rig.limiter!.status().state, 'limiting');
  } finally {
    await rig.close();
  }
});

test('solaredge: the gateway killed while limiting at 16 %: the inverter takes the fallback (safe_pct 0) at t + 120 ± 1 s', async () => {
  const rig = await startRig({ load: () => 800, profile: 'solaredge', inverter: { vendor: 'solaredge' } });
  try {
    await rig.run(30_000);
    assert.equal(rig.inverter.limitPctNow(), 16);
    rig.kill();
    const t = rig.inverter.writes.at(-1)!.at;
    await rig.run(t + 119_000 - rig.clock.now());
    assert.equal(rig.inverter.limitPctNow(), 16);
    await rig.run(2000);
    assert.equal(rig.inverter.limitPctNow(), 0);
  } finally {
    await rig.close();
  }
});

test('solaredge handed back (free, no installer limit): EnableDynamicPowerControl 0, and no fallback to safe_pct when the timeout runs out', async () => {
  const prices = switchableExportPrice(-0.1);
  const rig = await startRig({
    load: () => 800,
    profile: 'solaredge',
    prices,
    env: { METER_GATEWAY_SERVICES_EXPORT_LIMITER_MODE: 'price' },
    inverter: { vendor: 'solaredge' },
  });
  try {
    await rig.run(10_000);
    assert.equal(rig.inverter.limitPctNow(), 16);
    prices.setExport(0.1);
    await rig.run(5000);
    assert.deepEqual(writesOf(rig).at(-1), { address: SOLAREDGE.ENABLE_DPC, words: [0] });
    await rig.run(200_000);
    assert.equal(rig.inverter.limitPctNow(), 100, 'no fallback to 0 % after the command timeout');
    assert.equal(rig.limiter!.status().state, 'free');
  } finally {
    await rig.close();
  }
});

test('huawei: 47415 = 7 (power-limited, %) once, then 47418 = 160 (16.0 %, gain 10); refreshes write 47418 alone', async () => {
  const rig = await startRig({ load: () => 800, profile: 'huawei', inverter: { vendor: 'huawei' } });
  try {
    await rig.run(1000);
    assert.deepEqual(writesOf(rig).slice(0, 2), [
      { address: HUAWEI.CONTROL_MODE, words: [7] },
      { address: HUAWEI.FEED_GRID_PCT, words: [160] },
    ]);
    await rig.run(300_000);
    for (const write of rig.inverter.writes.slice(2)) assert.equal(write.address, HUAWEI.FEED_GRID_PCT);
    assert.ok(rig.inverter.writes.length >= 6);
  } finally {
    await rig.close();
  }
});

test("huawei: an installer's 70 % (47415 = 7, 47418 = 700) is the ceiling and the mode is not written again", async () => {
  let load = 800;
  const rig = await startRig({
    load: () => load,
    profile: 'huawei',
    inverter: { vendor: 'huawei', installerPct: 70, pv: () => 5000 },
  });
  try {
    await rig.run(20_000);
    assert.equal(rig.limiter!.status().inverters[0]!.installer_limit_pct, 70);
    load = 6000;
    await rig.run(60_000);
    for (const write of rig.inverter.writes)
      if (write.address === HUAWEI.FEED_GRID_PCT) assert.ok(write.words[0]! <= 700, `${write.words[0]}`);
    assert.ok(
      !rig.inverter.writes.some((write) => write.address === HUAWEI.CONTROL_MODE),
      'mode 7 was there',
    );
  } finally {
    await rig.close();
  }
});

test('victron_ess: the grid setpoint 2700 = target_w (FC16 [0]), refreshed every refresh_s; a stale meter writes nothing; free restores the setpoint found (50 W)', async () => {
  const prices = switchableExportPrice(-0.1);
  const rig = await startRig({
    load: () => 800,
    profile: 'victron_ess',
    prices,
    env: { METER_GATEWAY_SERVICES_EXPORT_LIMITER_MODE: 'price' },
    inverter: { vendor: 'victron', load: () => 800, setpointW: 50 },
  });
  try {
    await rig.run(1000);
    assert.deepEqual(writesOf(rig), [{ address: VICTRON.GRID_SETPOINT, words: [0] }]);
    await rig.run(300_000);
    const refreshes = rig.inverter.writes.slice(1);
    assert.ok(refreshes.length >= 4 && refreshes.length <= 6, `${refreshes.length} refreshes in 5 minutes`);
    for (const write of refreshes) assert.deepEqual(write.words, [0]);
    assert.equal(rig.limiter!.status().state, 'limiting');
    assert.equal(rig.limiter!.status().inverters[0]!.commanded_w, 0);
    // The meter goes silent: the GX holds the setpoint on its own meter, the gateway writes nothing.
    rig.meterSilent = true;
    const count = rig.inverter.writes.length;
    await rig.run(120_000);
    assert.equal(rig.limiter!.status().state, 'stale');
    assert.equal(rig.inverter.writes.length, count);
    assert.equal(rig.inverter.setpointW(), 0);
    rig.meterSilent = false;
    prices.setExport(0.1);
    await rig.run(5000);
    assert.deepEqual(rig.inverter.writes.at(-1)!.words, [50]);
    assert.equal(rig.inverter.setpointW(), 50);
  } finally {
    await rig.close();
  }
});

for (const [profile, vendor] of [
  ['solaredge', 'solaredge'],
  ['huawei', 'huawei'],
  ['victron_ess', 'victron'],
] as const satisfies readonly (readonly [string, Vendor])[]) {
  test(`control loop through ${profile}: house 800 W, PV 3000 W: grid within ±50 W once settled${vendor === 'victron' ? '' : ', limit 800 ± 50 W'}`, async () => {
    const rig = await startRig({
      load: () => 800,
      profile,
      inverter: { vendor, deadTimeMs: 5000, pv: () => 3000, load: () => 800 },
    });
    try {
      await rig.run(15_000);
      let worst = 0;
      await rig.run(60_000, () => (worst = Math.max(worst, Math.abs(rig.gridW()))));
      assert.ok(worst <= 50, `grid within ±50 W (worst ${worst.toFixed(0)} W)`);
      if (vendor !== 'victron') {
        const limitW = (rig.inverter.limitPctNow() / 100) * rig.inverter.wmaxW;
        assert.ok(Math.abs(limitW - 800) <= 50, `limit ${limitW} W`);
      }
      assert.equal(rig.limiter!.status().state, 'limiting');
      assert.ok(Math.abs(rig.limiter!.status().inverters[0]!.reported_w! - 800) <= 50);
    } finally {
      await rig.close();
    }
  });
}
