import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';
import { setClock } from '../history/history-fixture.js';
import { flushVictoriaMetrics, startInfluxDb, startVictoriaMetrics, vmExport } from './engines.js';
import {
  pushClient,
  QUARTER_MS,
  quarterEnd,
  quarterHoursAgo,
  startMeter,
  stopMeter,
  type TestMeter,
} from './push-fixture.js';
import type { HttpTestContext } from '../helpers/http-context.js';

const IMPORT = 'meter_active_energy_import_joules_total';

/** Four quarters of one meter; the registers' values in joules as the engines must give them back. */
async function fourQuarters(
  h: HttpTestContext,
  meter: TestMeter,
): Promise<{ first: number; joules: number[] }> {
  const first = quarterHoursAgo(2);
  const kwh = [12345.678, 12345.9, 12346.25, 12347.001];
  for (const [i, value] of kwh.entries())
    await quarterEnd(h, [{ meter, eIn: value, eOut: 1 }], first + (i + 1) * QUARTER_MS);
  setClock(h, Date.now());
  return { first, joules: kwh.map((value) => Math.round(value * 3.6e6 * 1e6) / 1e6) };
}

const timestampsOf = (first: number) => [1, 2, 3, 4].map((i) => first + i * QUARTER_MS);

test('Influx line protocol into InfluxDB 1.x: the same values back from its query API', async (t) => {
  if (!requireCommand(t, 'influxd')) return;
  const influx = await startInfluxDb(t);
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    await fetch(`${influx.base}/query?q=${encodeURIComponent('CREATE DATABASE fleet')}`, { method: 'POST' });
    const { first, joules } = await fourQuarters(h, main);
    const client = pushClient(h, [main], { kind: 'influx_line', url: `${influx.base}/write?db=fleet` });
    assert.equal(await client.drain(), 'empty');
    const q = `SELECT value FROM "${IMPORT}" WHERE meter='main' AND site='test-site'`;
    const answer = (await (
      await fetch(`${influx.base}/query?db=fleet&epoch=ms&q=${encodeURIComponent(q)}`)
    ).json()) as {
      results: Array<{ series?: Array<{ values: Array<[number, number]> }> }>;
    };
    const values = answer.results[0]!.series![0]!.values;
    assert.deepEqual(
      values.map(([ts]) => ts),
      timestampsOf(first),
    );
    assert.deepEqual(
      values.map(([, v]) => v),
      joules,
    );
  } finally {
    await stopMeter(main);
    await h.close();
    await influx.stop();
  }
});

test('Influx line protocol into VictoriaMetrics /write and JSON lines into /api/v1/import: the same values back', async (t) => {
  if (!requireCommand(t, 'victoria-metrics')) return;
  const vm = await startVictoriaMetrics(t);
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    const { first, joules } = await fourQuarters(h, main);
    const lines = pushClient(h, [main], {
      id: 'lines',
      kind: 'influx_line',
      url: `${vm.base}/write`,
      extra_labels: { via: 'line' },
    });
    const jsonLines = pushClient(h, [main], {
      id: 'json',
      kind: 'vm_import',
      url: `${vm.base}/api/v1/import`,
      extra_labels: { via: 'json' },
    });
    assert.equal(await lines.drain(), 'empty');
    assert.equal(await jsonLines.drain(), 'empty');
    await flushVictoriaMetrics(vm);
    for (const via of ['line', 'json']) {
      const [series] = await vmExport(vm, `${IMPORT}{via="${via}",meter="main"}`);
      assert.ok(series, `series sent by ${via}`);
      assert.deepEqual(series.timestamps, timestampsOf(first));
      assert.deepEqual(series.values, joules);
    }
  } finally {
    await stopMeter(main);
    await h.close();
    await vm.stop();
  }
});
