import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Clock } from '../../src/clock.js';
import { ModbusLink } from '../../src/export-limiter/modbus-link.js';
import { SunSpecDriver } from '../../src/export-limiter/sunspec-driver.js';
import { startRig, type LimiterRig } from './rig.js';

/**
 * The load-step cases of the export limiter (docs/architecture.md#export-limiter): house load steps
 * with PV 3000 W available, target 0, deadband ±50 W, meter every second, against a simulated
 * inverter with a dead time; the bounds are those of the limiter's acceptance cases.
 */

interface StepOutcome {
  exportWh: number;
  importWh: number;
  limitWrites: number;
  /** Time after the step from which the grid stayed within ±50 W (ms), or Infinity. */
  settledAfterMs: number;
}

/** Runs `rig` 60 s after a step of its load from `from` to `to` W, taken 400 ms after a meter reading. */
async function stepOutcome(
  rig: LimiterRig,
  from: number,
  to: number,
  controller?: () => Promise<void>,
): Promise<StepOutcome> {
  let load = from;
  rig.load = () => load;
  // Settle on the first load, then step just after a reading (the meter sees it up to 1 s late).
  await rig.run(60_000);
  await rig.run(400);
  const stepAt = rig.clock.now();
  const writesBefore = rig.inverter.writes.length;
  rig.exportWh = 0;
  rig.importWh = 0;
  load = to;
  let lastOutside = stepAt;
  let sinceCommand = 0;
  await rig.run(60_000, () => {
    if (Math.abs(rig.gridW()) > 50) lastOutside = rig.clock.now();
    sinceCommand += 100;
    if (controller && sinceCommand >= 1000) {
      sinceCommand = 0;
      void controller();
    }
  });
  // Refreshes (the same limit written again) are not control writes.
  const writes = rig.inverter.writes.slice(writesBefore);
  const distinct = writes.filter(
    (write, index) => index === 0 || write.words.join() !== writes[index - 1]!.words.join(),
  );
  return {
    exportWh: rig.exportWh,
    importWh: rig.importWh,
    limitWrites: distinct.length,
    settledAfterMs: lastOutside - stepAt,
  };
}

const BOUNDS = [
  { deadTimeMs: 2000, exportWh: 2.13 },
  { deadTimeMs: 5000, exportWh: 3.54 },
  { deadTimeMs: 10_000, exportWh: 5.9 },
];

for (const bound of BOUNDS) {
  test(`load 2000 -> 300 W, dead time ${bound.deadTimeMs / 1000} s: export at most ${bound.exportWh} Wh, one write, settled by dead time + 3 s`, async (t) => {
    const rig = await startRig({ inverter: { deadTimeMs: bound.deadTimeMs, pv: () => 3000 } });
    try {
      const outcome = await stepOutcome(rig, 2000, 300);
      t.diagnostic(JSON.stringify(outcome));
      assert.ok(outcome.exportWh <= bound.exportWh, `export ${outcome.exportWh.toFixed(2)} Wh`);
      assert.equal(outcome.limitWrites, 1, 'one limit write in the 60 s after the step');
      assert.ok(
        outcome.settledAfterMs <= bound.deadTimeMs + 3000,
        `settled after ${outcome.settledAfterMs} ms`,
      );
    } finally {
      await rig.close();
    }
  });
}

test('load 300 -> 2300 W, dead time 5 s: import at most 4.17 Wh, one write', async (t) => {
  const rig = await startRig({ inverter: { deadTimeMs: 5000, pv: () => 3000 } });
  try {
    const outcome = await stepOutcome(rig, 300, 2300);
    t.diagnostic(JSON.stringify(outcome));
    assert.ok(outcome.importWh <= 4.17, `import ${outcome.importWh.toFixed(2)} Wh`);
    assert.equal(outcome.limitWrites, 1);
  } finally {
    await rig.close();
  }
});

test('load 2000 -> 300 W with a slow ramp (300 W/s) and an inverter reporting its output 2 s late: still one write', async (t) => {
  const rig = await startRig({
    inverter: { deadTimeMs: 5000, pv: () => 3000, rampWPerS: 300, reportLagMs: 2000 },
  });
  try {
    const outcome = await stepOutcome(rig, 2000, 300);
    t.diagnostic(JSON.stringify(outcome));
    assert.equal(
      outcome.limitWrites,
      1,
      'no second write while the inverter has not shown the effect of the first',
    );
  } finally {
    await rig.close();
  }
});

/**
 * limit = last command + grid power, written every second: what peers that oscillate do. In the
 * same rig (dead time 5 s) it fails the 2000 -> 300 W case: it keeps writing while the inverter has
 * not yet answered, overshoots to 0 and swings.
 */
test('a naive integrator (last command + grid, every second) fails the 2000 -> 300 W case in the same rig', async (t) => {
  const rig = await startRig({ noLimiter: true, inverter: { deadTimeMs: 5000, pv: () => 3000 } });
  const link = new ModbusLink({ host: '127.0.0.1', port: rig.inverter.port, unit: 1 }, rig.clock as Clock);
  const driver = new SunSpecDriver(link, 'sunspec');
  await driver.probe(undefined);
  let lastW = 5000;
  const naive = async () => {
    lastW = Math.min(5000, Math.max(0, lastW + rig.gridW()));
    await driver.writeLimit((lastW / 5000) * 100, 0, 120);
  };
  let pending: Promise<void> = Promise.resolve();
  const step = () => {
    pending = pending.then(naive);
    return pending;
  };
  try {
    // The naive loop also runs during the settling minute.
    rig.load = () => 2000;
    for (let second = 0; second < 60; second++) {
      await rig.run(1000);
      await step();
    }
    const outcome = await stepOutcome(rig, 2000, 300, step);
    await pending;
    t.diagnostic(JSON.stringify(outcome));
    const failures = [
      outcome.exportWh > 3.54 && `export ${outcome.exportWh.toFixed(2)} Wh > 3.54`,
      outcome.limitWrites !== 1 && `${outcome.limitWrites} writes`,
      outcome.settledAfterMs > 8000 && `not settled by 8 s (${outcome.settledAfterMs} ms)`,
    ].filter(Boolean);
    assert.ok(failures.length > 0, 'the naive integrator met every bound');
    assert.ok(outcome.limitWrites > 1, `the naive integrator wrote ${outcome.limitWrites} times`);
  } finally {
    await link.close();
    await rig.close();
  }
});
