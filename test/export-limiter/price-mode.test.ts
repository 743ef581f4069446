import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PriceSignal, QuarterPrice } from '../../src/price-signal.js';
import { startRig } from './rig.js';

/** Price mode of the export limiter (docs/architecture.md#export-limiter), on a fixed price series. */

const QUARTER = 900_000;

function series(price: (start: number) => Pick<QuarterPrice, 'import' | 'export'> | undefined): PriceSignal {
  const quarterAt = (time: number): QuarterPrice | undefined => {
    const start = Math.floor(time / QUARTER) * QUARTER;
    const slot = price(start);
    return slot && { start, end: start + QUARTER, ...slot, estimated: false };
  };
  return {
    quarterAt,
    quarters: (from, to) => {
      const list: QuarterPrice[] = [];
      for (let start = Math.floor(from / QUARTER) * QUARTER; start < to; start += QUARTER) {
        const slot = quarterAt(start);
        if (slot) list.push(slot);
      }
      return list;
    },
    onChange: () => () => undefined,
  };
}

const PRICE_ENV = { METER_GATEWAY_SERVICES_EXPORT_LIMITER_MODE: 'price' };

test(
  'price mode: export price negative 12:00-16:00 local, house 800 W: zero export within 2 s of each boundary, window export at most 0.2 kWh',
  { timeout: 180_000 },
  async (t) => {
    const day = new Date(2026, 5, 15);
    const noon = new Date(day.getFullYear(), day.getMonth(), day.getDate(), 12).getTime();
    const four = new Date(day.getFullYear(), day.getMonth(), day.getDate(), 16).getTime();
    const prices = series((start) => ({
      import: 0.28,
      export: start >= noon && start < four ? -0.05 : 0.06,
    }));
    // Four hours of virtual time: steps of 250 ms (the meter still sends every second).
    const rig = await startRig({
      start: noon - 120_000,
      load: () => 800,
      prices,
      env: PRICE_ENV,
      stepMs: 250,
    });
    try {
      await rig.run(119_000);
      assert.equal(rig.inverter.writes.length, 0, 'free before noon: no write');
      assert.equal(rig.limiter!.status().state, 'free');
      await rig.run(1000);
      rig.exportWh = 0;
      await rig.run(four - noon);
      const windowExportWh = rig.exportWh;
      await rig.run(60_000);
      const first = rig.writes[0]!;
      assert.ok(first.at >= noon && first.at <= noon + 2000, `zero export on at +${first.at - noon} ms`);
      const release = rig.writes.find((write) => write.kind === 'cancel' || write.kind === 'restore');
      assert.ok(release, 'the limit released after 16:00');
      assert.ok(release.at >= four && release.at <= four + 2000, `off at +${release.at - four} ms`);
      assert.equal(rig.inverter.limitPctNow(), 100);
      t.diagnostic(
        `export 12:00-16:00: ${(windowExportWh / 1000).toFixed(4)} kWh (8.8 kWh without the limiter); ${rig.writes.length} writes`,
      );
      assert.ok(windowExportWh <= 200, `export ${windowExportWh.toFixed(1)} Wh`);
    } finally {
      await rig.close();
    }
  },
);

test('price mode: a negative import price turns PV off (0 %), unless the peak guard predicts the window above its limit', async () => {
  const prices = series(() => ({ import: -0.02, export: -0.1 }));
  let predicted = 3;
  const rig = await startRig({
    load: () => 800,
    prices,
    env: PRICE_ENV,
    peak: () => ({ predictedKw: predicted, limitKw: 4 }),
  });
  try {
    await rig.run(5000);
    assert.equal(rig.limiter!.status().decision, 'pv_off');
    assert.equal(rig.limiter!.status().state, 'pv_off');
    assert.equal(rig.inverter.limitPctNow(), 0);
    predicted = 5;
    await rig.run(20_000);
    const status = rig.limiter!.status();
    assert.equal(status.decision, 'zero_export');
    assert.match(status.reason, /PV off suppressed: the peak guard predicts 5 kW above 4 kW/);
    assert.equal(rig.inverter.limitPctNow(), 16, 'zero export: the house load still covered by PV');
  } finally {
    await rig.close();
  }
});

test('price mode with no known price for the quarter: zero export (documented choice)', async () => {
  const rig = await startRig({ load: () => 800, prices: series(() => undefined), env: PRICE_ENV });
  try {
    await rig.run(5000);
    const status = rig.limiter!.status();
    assert.equal(status.decision, 'zero_export');
    assert.match(status.reason, /price unknown/);
    assert.equal(rig.inverter.limitPctNow(), 16);
  } finally {
    await rig.close();
  }
});
