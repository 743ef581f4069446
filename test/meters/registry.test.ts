import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { MeterInput } from '../../src/meter/meter-input.js';
import { MetersInput } from '../../src/meter/meters-input.js';
import { runOutput } from '../../src/output-runner.js';
import type { ReadingStore } from '../../src/reading/store.js';
import { linesLogger } from '../helpers/log-lines.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../meter/transport/meter-input-harness.js';

registerConfigFormats();

/**
 * The meter registry: one reading store per meter, the primary's untouched; a change of one
 * further meter restarts that meter only, and the others keep their cadence through it.
 */

const INTERVAL_MS = 200;

/** Receive times of a store's readings, from now on. */
function cadence(store: ReadingStore): number[] {
  const times: number[] = [];
  store.on('reading', () => times.push(Date.now()));
  return times;
}

function largestGap(times: readonly number[]): number {
  let gap = 0;
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i]! - times[i - 1]!);
  return gap;
}

test('adding, changing and removing a further meter restarts that meter only; the others read on without a gap', async (t) => {
  const dir = tempDir('mg-registry-');
  const meters = [
    { id: 'pv', name: 'PV', role: 'pv', source: 'simulator' },
    { id: 'ev', name: 'EV', role: 'ev', source: 'simulator', timeout: 5 },
  ];
  const lines: string[] = [];
  const ctx = createAppContext({
    env: {
      METER_GATEWAY_METER_SIMULATOR_INTERVAL: String(INTERVAL_MS / 1000),
      METER_GATEWAY_METERS: JSON.stringify(meters),
    },
    stateDir: dir,
    logger: linesLogger(lines, 'warn'),
  });
  const primary = runOutput(ctx, new MeterInput(ctx, ctx.logger));
  const further = runOutput(ctx, new MetersInput(ctx, ctx.logger));
  t.after(async () => {
    await further.stop();
    await primary.stop();
    ctx.store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await primary.start();
  await further.start();
  assert.deepEqual(ctx.meters.ids(), ['main', 'pv', 'ev']);
  assert.equal(ctx.meters.get('main')!.store, ctx.store, 'the primary keeps the context store');
  const pv = ctx.meters.get('pv')!.store;
  const ev = ctx.meters.get('ev')!.store;
  assert.notEqual(pv, ctx.store);
  assert.notEqual(pv, ev);
  await waitFor('every meter to read', () =>
    [ctx.store, pv, ev].every((store) => store.latest !== undefined),
  );

  const mainTimes = cadence(ctx.store);
  const pvTimes = cadence(pv);
  const watchedFrom = Date.now();
  await sleep(3 * INTERVAL_MS);
  // Change ev (its timeout): ev restarts on a new store, pv and main are not touched.
  const changed = ctx.config.apply(new Map([['meters', [meters[0], { ...meters[1], timeout: 7 }]]]));
  assert.equal(changed.ok, true);
  await waitFor('ev to come back on a new store', () => {
    const store = ctx.meters.get('ev')?.store;
    return store !== undefined && store !== ev && store.latest !== undefined;
  });
  assert.notEqual(ctx.meters.get('ev')!.store, ev, 'ev runs on a new store');
  assert.equal(ctx.meters.get('pv')!.store, pv, 'pv kept its store');
  // Add a virtual meter and a third polled one, remove ev.
  const next = [
    meters[0],
    { id: 'hp', name: 'Heat pump', role: 'heat_pump', source: 'simulator' },
    { id: 'house', name: 'House', role: 'consumer', expression: 'main - pv - hp' },
  ];
  assert.equal(ctx.config.apply(new Map([['meters', next]])).ok, true);
  await waitFor('hp and house to read', () => ctx.meters.get('house')?.store.latest !== undefined);
  assert.deepEqual(ctx.meters.ids(), ['main', 'pv', 'hp', 'house']);
  assert.equal(ctx.meters.get('ev'), undefined);
  assert.equal(ctx.meters.get('pv')!.store, pv);
  await sleep(3 * INTERVAL_MS);
  // Gaps: the simulator's pace, with room for a loaded machine, never a restart's reconnect.
  const expected = Math.floor((Date.now() - watchedFrom) / INTERVAL_MS);
  assert.ok(pvTimes.length >= expected - 2, `pv read on (${pvTimes.length} readings, ${expected} due)`);
  assert.ok(largestGap(pvTimes) < 4 * INTERVAL_MS, `pv gap ${largestGap(pvTimes)} ms`);
  assert.ok(largestGap(mainTimes) < 4 * INTERVAL_MS, `main gap ${largestGap(mainTimes)} ms`);
  assert.deepEqual(
    [...ctx.meters.forMetrics()].map(({ id, role }) => [id, role]),
    [
      ['main', 'grid'],
      ['pv', 'pv'],
      ['hp', 'heat_pump'],
      ['house', 'consumer'],
    ],
  );
});
