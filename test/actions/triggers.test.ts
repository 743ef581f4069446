import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeCapture } from '../../src/meter/protocols.js';
import type { Reading } from '../../src/reading/reading.js';
import { corpusDir, requireCorpus } from '../helpers/environment.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';
import { recordingServer, startActionsRig } from './rig.js';
import { nodeCron } from '../../src/config/cron.js';

test(
  'a schedule with a seconds field runs the action every second until it is disabled',
  { timeout: 60_000 },
  async () => {
    const target = await recordingServer(200);
    const rig = await startActionsRig();
    try {
      const action = {
        id: 'tick',
        schedule: '* * * * * *',
        requests: [{ http: { url: `${target.url}/tick` } }],
      };
      assert.equal((await rig.post({ actions: [action] })).status, 200);
      await waitFor(
        'three scheduled runs',
        () => target.requests.length,
        (count) => count >= 3,
      );
      assert.ok(rig.logLines.some((line) => line.includes('action tick (schedule) done: code 200')));
      assert.equal((await rig.post({ actions: [{ ...action, enable: false }] })).status, 200);
      // A run that had started may still land; after that nothing more comes.
      await quietPeriod(300);
      const settled = target.requests.length;
      await quietPeriod(2500);
      assert.equal(target.requests.length, settled);
    } finally {
      await rig.close();
      await target.close();
    }
  },
);

test('two definitions written back to back leave one cron task per schedule, not one per write', async () => {
  const target = await recordingServer(200);
  const rig = await startActionsRig();
  // The scheduler's own node-cron instance, whose registry holds the tasks it made.
  const cron = nodeCron();
  const ours = () => [...cron.getTasks().values()].filter((task) => task.name === 'action burst');
  try {
    const action = (minute: number) => ({
      id: 'burst',
      schedule: `${minute} 3 * * *`,
      requests: [{ http: { url: `${target.url}/burst` } }],
    });
    // Both writes start reconciles before either has finished: node-cron loads and the old tasks
    // are destroyed asynchronously, so overlapping reconciles would each add a task.
    const applied = [1, 2].map((minute) => {
      const result = rig.ctx.config.apply(new Map([['actions.definition', { actions: [action(minute)] }]]));
      assert.ok(result.ok);
      return result.settled;
    });
    assert.deepEqual(await Promise.all(applied), [[], []]);
    const tasks = ours().filter((task) => task.getStatus() !== 'destroyed');
    assert.equal(tasks.length, 1, 'one task for the one scheduled action');
  } finally {
    await rig.close();
    await target.close();
  }
});

/** The one telegram of a corpus capture, decoded by the project's DSMR decoder. */
function captured(name: string): Reading {
  const results = decodeCapture(readFileSync(join(corpusDir, 'dsmr', name)), 'dsmr');
  const reading = results.find((result) => result.ok)?.reading;
  assert.ok(reading, `${name} has a valid telegram`);
  return reading;
}

test('a when condition fires once per crossing, never across stale data, and not again within min_interval', async (t) => {
  if (!requireCorpus(t)) return;
  // Two recorded telegrams: export power 0 kW and 2.601 kW (1-0:2.7.0).
  const low = captured('ndokter_v5.txt');
  const high = captured('ndokter_v5_eon_hungary.txt');
  assert.equal(low.values.get('2.7.0')?.value, 0);
  assert.equal(high.values.get('2.7.0')?.value, 2.601);
  const target = await recordingServer(200);
  const rig = await startActionsRig({ env: { METER_GATEWAY_METER_TIMEOUT: '5' }, staleAfterMs: 5000 });
  const replay = (reading: Reading, advanceMs = 1000) => {
    rig.clock.advance(advanceMs);
    rig.ctx.store.ingest({ ...reading, receivedAt: rig.clock.now() });
  };
  const fired = () => target.requests.length;
  try {
    rig.clock.freeze();
    const answer = await rig.post({
      actions: [
        {
          id: 'surplus',
          when: { value: 'P_Out', above: 1.5, for: 3 },
          min_interval: 60,
          requests: [{ http: { url: `${target.url}/on` } }],
        },
      ],
    });
    assert.equal(answer.status, 200);
    replay(low);
    replay(high); // the hold starts
    replay(high, 8000); // 8 s without data: the meter was stale (timeout 5 s), the hold breaks
    replay(high);
    await quietPeriod(200);
    assert.equal(fired(), 0, 'a hold never spans stale data');
    replay(high); // held 2 s since the gap
    await quietPeriod(200);
    assert.equal(fired(), 0, 'not before the hold time');
    replay(high); // held 3 s
    await waitFor('the crossing to fire the action', fired, (count) => count === 1);
    replay(high);
    replay(high);
    await quietPeriod(200);
    assert.equal(fired(), 1, 'once per crossing');

    // Below and above again: a new crossing, held long enough, but min_interval (60 s) is not over.
    replay(low);
    for (let i = 0; i < 5; i += 1) replay(high);
    await quietPeriod(200);
    assert.equal(fired(), 1, 'not again within min_interval');

    replay(high, 55_000); // a 55 s gap is stale too: the hold restarts after it
    replay(high);
    replay(high);
    replay(high); // held 3 s, and min_interval is over
    await waitFor('the second crossing after min_interval', fired, (count) => count === 2);
    assert.equal(
      (
        (await (await fetch(`${rig.baseUrl}/api/v1/actions/recent`)).json()) as {
          counters: Record<string, { runs: number }>;
        }
      ).counters.surplus!.runs,
      2,
    );
  } finally {
    await rig.close();
    await target.close();
  }
});
