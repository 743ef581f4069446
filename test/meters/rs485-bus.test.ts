import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { MetersInput } from '../../src/meter/meters-input.js';
import { interFrameSilenceMs } from '../../src/modbus-protocol/rtu-bus.js';
import { runOutput } from '../../src/output-runner.js';
import type { ReadingStore } from '../../src/reading/store.js';
import { requireCommand, requirePeer } from '../helpers/environment.js';
import { linesLogger } from '../helpers/log-lines.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../meter/transport/meter-input-harness.js';
import { hasPymodbus } from '../modbus/rtu-rig.js';
import { Rs485Bus, unitValues } from './rs485-bus-rig.js';

registerConfigFormats();

/**
 * Three Modbus meters on one RS485 bus (three independent pymodbus servers behind one pty pair):
 * one opener, one request at a time with the inter-frame silence, a fair share for every unit,
 * and a dead unit that costs the others nothing but its own attempts.
 */

function times(store: ReadingStore): number[] {
  const at: number[] = [];
  store.on('reading', (reading) => at.push(reading.receivedAt));
  return at;
}

function intervals(at: readonly number[]): number[] {
  return at.slice(1).map((time, i) => time - at[i]!);
}

/**
 * The file's bus of units 1, 2 and 3, started by the first test that needs it and stopped after
 * the last: a test that stopped a unit leaves it stopped, the next one starts it again.
 */
let sharedBus: Promise<Rs485Bus> | undefined;
function threeUnitBus(): Promise<Rs485Bus> {
  sharedBus ??= (async () => {
    const bus = new Rs485Bus();
    await bus.start([1, 2, 3]);
    return bus;
  })();
  return sharedBus;
}
after(async () => {
  const bus = await sharedBus?.catch(() => undefined);
  await bus?.stop();
});

/** Whether pymodbus is installed, asked once per file (a python start). */
let pymodbusThere: Promise<boolean> | undefined;
function pymodbusInstalled(): Promise<boolean> {
  pymodbusThere ??= hasPymodbus();
  return pymodbusThere;
}

test('the RTU silence is 3.5 character times of 11 bits, 1.75 ms above 19200 baud', () => {
  assert.equal(interFrameSilenceMs(9600).toFixed(3), '4.010');
  assert.equal(interFrameSilenceMs(19200).toFixed(3), '2.005');
  assert.equal(interFrameSilenceMs(38400), 1.75);
});

test(
  'three units on one bus: each reads its own meter; a dead unit goes NO DATA alone while the others keep their 1 s cadence',
  { timeout: 90_000 },
  async (t) => {
    if (!requireCommand(t, 'socat') || !requirePeer(t, await pymodbusInstalled(), 'python3-pymodbus')) return;
    const bus = await threeUnitBus();
    await bus.restartUnit(2);
    const dir = tempDir('mg-bus-meters-');
    const source = (unit: number) =>
      `modbus-rtu:${bus.hostPath}?unit=${unit}&profile=sdm630&baud=9600&interval=1`;
    const ctx = createAppContext({
      env: {
        METER_GATEWAY_METERS: JSON.stringify(
          [1, 2, 3].map((unit) => ({
            id: `m${unit}`,
            name: `Meter ${unit}`,
            role: 'other',
            source: source(unit),
            timeout: 3,
          })),
        ),
      },
      stateDir: dir,
      logger: linesLogger([], 'error'),
    });
    const meters = runOutput(ctx, new MetersInput(ctx, ctx.logger));
    t.after(async () => {
      await meters.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    await meters.start();
    const store = (unit: number) => ctx.meters.get(`m${unit}`)!.store;
    await waitFor('all three units to read', () =>
      [1, 2, 3].every((unit) => store(unit).latest !== undefined),
    );
    for (const unit of [1, 2, 3]) {
      const values = unitValues(unit);
      const reading = store(unit).latest!;
      // SDM630 30053 total W and 30073 import kWh, as the peer serves them (W -> kW).
      assert.equal(
        reading.values.get('1.7.0')?.value,
        Number((values[0x34]! / 1000).toPrecision(10)),
        `unit ${unit} power`,
      );
      assert.equal(
        reading.values.get('1.8.0')?.value,
        Number(values[0x48]!.toPrecision(10)),
        `unit ${unit} import`,
      );
      assert.equal(
        reading.values.get('32.7.0')?.value,
        Number(values[0]!.toPrecision(10)),
        `unit ${unit} V L1`,
      );
    }
    const live = [1, 3].map((unit) => times(store(unit)));
    await sleep(4000);
    // One request at a time, with the silence: never a request before the previous reply ended + t3.5.
    assert.ok(
      bus.traffic.shortestSilenceMs >= interFrameSilenceMs(9600),
      `silence ${bus.traffic.shortestSilenceMs} ms`,
    );
    const served = [1, 2, 3].map((unit) => bus.traffic.requests.filter(([, id]) => id === unit).length);
    assert.ok(Math.max(...served) - Math.min(...served) <= 3, `fair share of requests: ${served.join(', ')}`);

    await bus.stopUnit(2);
    const stoppedAt = performance.now();
    const from = live.map((at) => at.length);
    await waitFor('unit 2 to be NO DATA', () => store(2).meter.status === 'NO DATA');
    assert.equal(store(2).latest, undefined);
    await sleep(8000);
    // Unit 2 was still tried (and timed out) meanwhile: the others' cadence held through its attempts.
    const attempts = bus.traffic.requests.filter(([at, id]) => id === 2 && at > stoppedAt).length;
    console.log(`# unit 2 attempts while dead: ${attempts}`);
    assert.ok(attempts >= 2, `unit 2 attempts while dead: ${attempts}`);
    // Its timeouts are counted on unit 2 alone.
    assert.ok(store(2).counters.timeouts >= 2, `unit 2 timeouts: ${store(2).counters.timeouts}`);
    for (const unit of [1, 3]) assert.equal(store(unit).counters.timeouts, 0, `unit ${unit} timeouts`);
    for (const [k, unit] of [1, 3].entries()) {
      assert.equal(store(unit).meter.status, 'OK', `unit ${unit} stays OK`);
      const gaps = intervals(live[k]!.slice(from[k]! - 1));
      const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      console.log(
        `# unit ${unit} with unit 2 dead: ${gaps.length} intervals, mean ${mean.toFixed(0)} ms, max ${Math.max(...gaps)} ms`,
      );
      assert.ok(mean < 1150, `unit ${unit} mean interval ${mean} ms`);
      // A poll queued behind a dead unit's 1 s response timeout comes up to that much later.
      assert.ok(Math.max(...gaps) < 2500, `unit ${unit} longest interval ${Math.max(...gaps)} ms`);
      assert.equal(
        store(unit).counters.parseErrors + store(unit).counters.crcErrors,
        0,
        `no errors counted on unit ${unit}`,
      );
    }
  },
);

/** Blocks this process's event loop for `ms` (a loaded machine: the loop gets no turn meanwhile). */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: no timer, no I/O callback runs
  }
}

test(
  'a loaded machine: event-loop stalls longer than the response timeout count no timeout on the live units',
  { timeout: 90_000 },
  async (t) => {
    if (!requireCommand(t, 'socat') || !requirePeer(t, await pymodbusInstalled(), 'python3-pymodbus')) return;
    const bus = await threeUnitBus();
    await bus.restartUnit(2);
    const dir = tempDir('mg-bus-load-');
    const ctx = createAppContext({
      env: {
        METER_GATEWAY_METERS: JSON.stringify(
          [1, 2, 3].map((unit) => ({
            id: `m${unit}`,
            name: `Meter ${unit}`,
            role: 'other',
            source: `modbus-rtu:${bus.hostPath}?unit=${unit}&profile=sdm630&baud=9600&interval=0.3`,
            timeout: 30,
          })),
        ),
      },
      stateDir: dir,
      logger: linesLogger([], 'error'),
    });
    const meters = runOutput(ctx, new MetersInput(ctx, ctx.logger));
    t.after(async () => {
      await meters.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    await meters.start();
    const store = (unit: number) => ctx.meters.get(`m${unit}`)!.store;
    await waitFor('all three units to read', () =>
      [1, 2, 3].every((unit) => store(unit).latest !== undefined),
    );
    await bus.stopUnit(2);
    const readings = [1, 3].map((unit) => store(unit).counters.framesOk);
    // Each stall of 1.3 s (the response timeout is 1 s) starts right after a request to a live unit
    // left the gateway: its reply arrives while the loop is blocked, and the timers come first
    // when it runs again. No CPU burners beside it: the simulated meters (socat, pymodbus) would
    // share the CPU with them, which a hardware meter never does, and beside the suite's other
    // files two burners once starved a meter's reply past the response timeout.
    for (let i = 0; i < 8; i++) {
      await sleep(150 + ((i * 37) % 200));
      const seen = bus.traffic.requests.length;
      await waitFor(
        'a request to a live unit',
        () => bus.traffic.requests.slice(seen).some(([, unit]) => unit !== 2),
        Boolean,
        { intervalMs: 1 },
      );
      stall(1300);
    }
    await sleep(1500);
    console.log(
      `# timeouts with stalls: ${[1, 2, 3].map((unit) => `unit ${unit}: ${store(unit).counters.timeouts}`).join(', ')}`,
    );
    for (const [k, unit] of [1, 3].entries()) {
      assert.equal(store(unit).counters.timeouts, 0, `unit ${unit} timeouts`);
      assert.ok(store(unit).counters.framesOk > readings[k]! + 5, `unit ${unit} kept reading`);
    }
    assert.ok(store(2).counters.timeouts >= 1, 'the dead unit still times out');
  },
);
