import { test } from 'node:test';
import assert from 'node:assert/strict';
import { M123, M704 } from '../../src/export-limiter/sunspec.js';
import { startRig, switchableExportPrice } from './rig.js';

/** Fail-safe cases of the export limiter (docs/architecture.md#export-limiter). */

test('the first write: model 123 gets FC16 at ID + 5 [160, 0, 120, 0, 1] for 800 W of 5000 W at WMaxLimPct_SF -1', async () => {
  const rig = await startRig({ load: () => 800, inverter: { limitSf: -1 } });
  try {
    await rig.run(1000);
    const first = rig.inverter.writes[0]!;
    assert.equal(first.fc, 16);
    assert.equal(first.address, rig.inverter.address.m123 + 5);
    assert.deepEqual(first.words, [160, 0, 120, 0, 1]);
  } finally {
    await rig.close();
  }
});

test('the first write: model 704 gets FC16 at ID + 14 [1, 160, 0, 1, 0, 120] (revert to 0 % for a zero-export site)', async () => {
  const rig = await startRig({ load: () => 800, inverter: { limitSf: -1, model704: true } });
  try {
    await rig.run(1000);
    const first = rig.inverter.writes[0]!;
    assert.equal(first.fc, 16);
    assert.equal(first.address, rig.inverter.address.m704 + 14);
    assert.deepEqual(first.words, [1, 160, 0, 1, 0, 120]);
  } finally {
    await rig.close();
  }
});

test('meter silent from t0: no write until t0 + 30 s, then exactly one write of safe_pct; state stale', async () => {
  const rig = await startRig({
    load: () => 800,
    env: { METER_GATEWAY_SERVICES_EXPORT_LIMITER_SAFE_PCT: '0' },
  });
  try {
    await rig.run(10_000);
    rig.meterSilent = true;
    const t0 = rig.clock.now() - 1000 + 100; // the last reading came at most one step before
    const lastReading = rig.ctx.store.lastReading!.receivedAt;
    const before = rig.inverter.writes.length;
    await rig.run(29_000 - (rig.clock.now() - lastReading));
    assert.equal(rig.inverter.writes.length, before, 'no write before t0 + 30 s');
    await rig.run(120_000);
    const after = rig.inverter.writes.slice(before);
    assert.equal(after.length, 1, 'exactly one write');
    assert.ok(after[0]!.at >= lastReading + 30_000, 'not before t0 + 30 s');
    assert.equal(after[0]!.words[0], 0, 'WMaxLimPct 0 (safe_pct)');
    assert.equal(rig.limiter!.status().state, 'stale');
    void t0;
  } finally {
    await rig.close();
  }
});

for (const model of [704, 123] as const) {
  test(`gateway killed while limiting at 16 % (model ${model}, revert 120 s): the inverter ${model === 704 ? 'is at 0 %' : 'cancels the limit'} at t + 120 ± 1 s`, async () => {
    const rig = await startRig({ load: () => 800, inverter: { model704: model === 704 } });
    try {
      await rig.run(30_000);
      assert.equal(rig.inverter.limitPctNow(), 16);
      rig.kill();
      const t = rig.inverter.writes.at(-1)!.at;
      await rig.run(t + 119_000 - rig.clock.now());
      assert.equal(rig.inverter.limitPctNow(), 16, 'still 16 % at t + 119 s');
      await rig.run(2000);
      if (model === 704) {
        assert.equal(rig.inverter.limitPctNow(), 0, 'WMaxLimPctRvrt taken at t + 120 s');
      } else {
        assert.equal(
          rig.inverter.register(rig.inverter.address.m123 + M123.WMaxLim_Ena),
          0,
          'limit cancelled',
        );
        assert.equal(rig.inverter.limitPctNow(), 100);
      }
    } finally {
      await rig.close();
    }
  });
}

for (const profile of ['sunspec', 'sma'] as const) {
  test(`10 minutes of steady limiting (${profile}): at least 10 refresh writes${profile === 'sma' ? ', none to the enable register' : ''}`, async () => {
    const rig = await startRig({
      load: () => 800,
      profile,
      // SMA: the installer enabled the limit once (it lives in non-volatile memory).
      inverter: profile === 'sma' ? { installerPct: 100 } : {},
    });
    try {
      await rig.run(1000);
      const first = rig.writes[0]!;
      await rig.run(first.at + 600_000 + 1000 - rig.clock.now());
      const refreshes = rig.writesBetween(first.at + 1, first.at + 600_001, ['refresh']);
      assert.ok(refreshes.length >= 10, `${refreshes.length} refreshes`);
      // Refreshes keep the inverter's revert timer from firing: the limit never lapsed.
      assert.equal(rig.inverter.limitPctNow(), 16);
      if (profile === 'sma') {
        const enable = rig.inverter.address.m123 + M123.WMaxLim_Ena;
        const touching = rig.inverter.writes.filter(
          (write) => write.address <= enable && write.address + write.words.length > enable,
        );
        assert.equal(touching.length, 0, 'no write to WMaxLim_Ena');
        assert.ok(
          rig.inverter.writes.every(
            (write) =>
              write.words.length === 1 && write.address === rig.inverter.address.m123 + M123.WMaxLimPct,
          ),
        );
      }
    } finally {
      await rig.close();
    }
  });
}

test("an installer's 70 % limit present at start: never commanded above 70 %; free restores 70 %", async () => {
  const prices = switchableExportPrice(-0.1);
  let load = 800;
  const rig = await startRig({
    load: () => load,
    prices,
    inverter: { installerPct: 70, pv: () => 5000, model704: true },
    env: { METER_GATEWAY_SERVICES_EXPORT_LIMITER_MODE: 'price' },
  });
  const m704 = rig.inverter.address.m704;
  try {
    await rig.run(20_000);
    assert.equal(rig.inverter.limitPctNow(), 16);
    load = 4800;
    await rig.run(60_000);
    load = 6000;
    await rig.run(60_000);
    for (const write of rig.inverter.writes)
      assert.ok(write.words[1]! <= 700, `commanded ${write.words[1]! / 10} %`);
    assert.equal(rig.inverter.limitPctNow(), 70);
    prices.setExport(0.1);
    load = 800;
    await rig.run(5000);
    assert.equal(rig.limiter!.status().state, 'free');
    const last = rig.inverter.writes.at(-1)!;
    assert.equal(last.address, m704 + M704.WMaxLimPctEna);
    assert.deepEqual(last.words.slice(0, 4), [1, 700, 700, 1], 'the installer limit written back, enabled');
    assert.deepEqual(last.words.slice(4), [0, 0], 'with no revert timer');
    assert.equal(rig.inverter.limitPctNow(), 70);
    const count = rig.inverter.writes.length;
    await rig.run(180_000);
    assert.equal(rig.inverter.writes.length, count, 'free: no further writes');
    assert.equal(rig.inverter.limitPctNow(), 70);
  } finally {
    await rig.close();
  }
});

test("after the gateway was killed, its own 16 % is not taken for an installer's limit: the restarted limiter raises it", async () => {
  let load = 800;
  const rig = await startRig({ load: () => load, inverter: { model704: true } });
  try {
    await rig.run(30_000);
    assert.equal(rig.inverter.limitPctNow(), 16);
    rig.kill();
    await rig.run(10_000);
    await rig.restart();
    load = 2000;
    await rig.run(30_000);
    assert.equal(rig.limiter!.status().inverters[0]!.installer_limit_pct, null);
    assert.equal(rig.inverter.limitPctNow(), 40, 'the limit follows the load above the old 16 %');
  } finally {
    await rig.close();
  }
});

test('mode off: the limiter writes nothing, not even safe_pct when the meter goes silent', async () => {
  const rig = await startRig({ load: () => 800, env: { METER_GATEWAY_SERVICES_EXPORT_LIMITER_MODE: 'off' } });
  try {
    await rig.run(10_000);
    rig.meterSilent = true;
    await rig.run(60_000);
    assert.equal(rig.inverter.writes.length, 0);
    assert.equal(rig.limiter!.status().state, 'idle');
  } finally {
    await rig.close();
  }
});

test('a clean stop while limiting writes safe_pct once, with no revert timer (model 704)', async () => {
  const rig = await startRig({
    load: () => 800,
    inverter: { model704: true },
    env: { METER_GATEWAY_SERVICES_EXPORT_LIMITER_SAFE_PCT: '0' },
  });
  try {
    await rig.run(5000);
    assert.equal(rig.inverter.limitPctNow(), 16);
    const before = rig.inverter.writes.length;
    await rig.limiter!.stop();
    const after = rig.inverter.writes.slice(before);
    assert.equal(after.length, 1);
    assert.deepEqual(after[0]!.words, [1, 0, 0, 1, 0, 0]);
    assert.equal(rig.inverter.limitPctNow(), 0);
  } finally {
    await rig.close();
  }
});
