import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';
import { freePort } from '../helpers/ports.js';
import { setClock } from '../history/history-fixture.js';
import { flushVictoriaMetrics, startVictoriaMetrics, vmExport, vmQuery } from './engines.js';
import {
  pushClient,
  QUARTER_MS,
  quarterEnd,
  quarterHoursAgo,
  startMeter,
  stopMeter,
  ZERO_COUNTS,
} from './push-fixture.js';

const IMPORT = 'meter_active_energy_import_joules_total';
const EXPORT = 'meter_active_energy_export_joules_total';

test('remote_write into VictoriaMetrics: increase() over each quarter is the energy of that quarter', async (t) => {
  if (!requireCommand(t, 'victoria-metrics')) return;
  const vm = await startVictoriaMetrics(t);
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    const first = quarterHoursAgo(3);
    const wh = [1_000_000, 1_000_250, 1_000_500, 1_001_000, 1_001_100];
    for (const [i, value] of wh.entries())
      await quarterEnd(h, [{ meter: main, eIn: value / 1000 }], first + i * QUARTER_MS);
    setClock(h, Date.now());
    const client = pushClient(h, [main], { kind: 'remote_write', url: `${vm.base}/api/v1/write` });
    assert.equal(await client.drain(), 'empty');
    assert.equal(client.status().counts.sent, 5);
    await flushVictoriaMetrics(vm);
    const increases: number[] = [];
    for (let i = 1; i < wh.length; i++) {
      const [result] = await vmQuery(vm, `increase(${IMPORT}{meter="main"}[15m])`, first + i * QUARTER_MS);
      increases.push(Math.round(Number(result!.value[1]) / 3600));
      assert.deepEqual(
        { site: result!.metric.site, gateway: result!.metric.gateway, role: result!.metric.role },
        { site: 'test-site', gateway: 'A1B2C3D4E5F6', role: 'grid' },
      );
    }
    assert.deepEqual(increases, [250, 250, 500, 100]);
  } finally {
    await stopMeter(main);
    await h.close();
    await vm.stop();
  }
});

test('receiver down 6 hours: the backlog of 2 meters goes out oldest first when it returns, equal to the local tier; a re-sent batch is stored once', async (t) => {
  if (!requireCommand(t, 'victoria-metrics')) return;
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  const pv = await startMeter(h, 'pv', 'pv');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/api/v1/write`;
  try {
    const first = quarterHoursAgo(7);
    // The receiver is down (nothing listens) while 24 quarters pass.
    const client = pushClient(h, [main, pv], { kind: 'remote_write', url });
    for (let i = 1; i <= 24; i++) {
      await quarterEnd(
        h,
        [
          { meter: main, eIn: 5000 + i * 0.4, eOut: 700 + i * 0.1 },
          { meter: pv, eIn: 10 + i * 0.001, eOut: 3000 + i * 0.6 },
        ],
        first + i * QUARTER_MS,
      );
      assert.equal(await client.drain(), 'retry');
    }
    assert.equal(client.status().state, 'backoff');
    assert.equal(client.status().counts.sent, 0);
    setClock(h, Date.now());
    const vm = await startVictoriaMetrics(t, port);
    try {
      assert.equal(await client.drain(), 'empty');
      const status = client.status();
      assert.equal(status.counts.sent, 96);
      // The cursor is on disk: the last quarter's start.
      const stored = JSON.parse(readFileSync(join(h.stateDir, 'push', 'fleet.json'), 'utf8')) as {
        cursor: number;
      };
      assert.equal(stored.cursor, (first + 24 * QUARTER_MS - QUARTER_MS) / 1000);
      await flushVictoriaMetrics(vm);
      const local = async (meter: typeof main) =>
        (await meter.recorder.quarters(0, Date.now() / 1000, 1000))!;
      for (const meter of [main, pv])
        for (const [name, key] of [
          [IMPORT, 'eIn'],
          [EXPORT, 'eOut'],
        ] as const) {
          const [series] = await vmExport(vm, `${name}{meter="${meter.id}"}`);
          const expected = (await local(meter)).map((q) => ({
            t: (q.counters.t + 900) * 1000,
            v: Math.round(q.counters[key]! * 3.6e6 * 1e6) / 1e6,
          }));
          assert.equal(expected.length, 24);
          assert.deepEqual(
            series!.timestamps.map((ts, i) => ({ t: ts, v: series!.values[i] })),
            expected,
          );
        }
      // Re-sending acknowledged batches (a cursor set back, as after a kill before its write).
      const before = await vmQuery(vm, `increase(${IMPORT}{meter="main"}[6h])`, first + 24 * QUARTER_MS);
      writeFileSync(
        join(h.stateDir, 'push', 'fleet.json'),
        JSON.stringify({ version: 1, cursor: first / 1000 + 3600, counts: ZERO_COUNTS }),
      );
      const again = pushClient(h, [main, pv], { kind: 'remote_write', url });
      assert.equal(await again.drain(), 'empty');
      assert.ok(again.status().counts.sent > 0);
      await flushVictoriaMetrics(vm);
      const counts = await vmQuery(
        vm,
        `count_over_time(${IMPORT}{meter="main"}[8h])`,
        first + 24 * QUARTER_MS,
      );
      assert.equal(Number(counts[0]!.value[1]), 24);
      const after = await vmQuery(vm, `increase(${IMPORT}{meter="main"}[6h])`, first + 24 * QUARTER_MS);
      assert.equal(after[0]!.value[1], before[0]!.value[1]);
    } finally {
      await vm.stop();
    }
  } finally {
    await stopMeter(main);
    await stopMeter(pv);
    await h.close();
  }
});

test('a clock 3 days ahead of the receiver pushes nothing (clock_unsynced); once it agrees the spool drains', async (t) => {
  if (!requireCommand(t, 'victoria-metrics')) return;
  const vm = await startVictoriaMetrics(t);
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    const first = quarterHoursAgo(2);
    for (let i = 1; i <= 4; i++) await quarterEnd(h, [{ meter: main, eIn: 100 + i }], first + i * QUARTER_MS);
    const ahead = 3 * 86_400_000;
    setClock(h, Date.now() + ahead);
    const client = pushClient(h, [main], { kind: 'remote_write', url: `${vm.base}/api/v1/write` });
    assert.equal(await client.drain(), 'unsynced');
    assert.equal(client.status().state, 'clock_unsynced');
    assert.equal(client.status().counts.sent, 0);
    await flushVictoriaMetrics(vm);
    assert.deepEqual(await vmExport(vm, `${IMPORT}`), []);
    h.clock.advance(Date.now() - h.clock.now());
    assert.equal(await client.drain(), 'empty');
    assert.equal(client.status().counts.sent, 4);
    await flushVictoriaMetrics(vm);
    assert.equal((await vmExport(vm, IMPORT))[0]!.values.length, 4);
  } finally {
    await stopMeter(main);
    await h.close();
    await vm.stop();
  }
});
