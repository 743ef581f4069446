// what: ["quarters", "minutes"] into VictoriaMetrics: the closed minutes of the 1-minute tier go out
// after the quarters, as mean powers stamped at each minute's end, with their own cursor that
// survives a restart of the client.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';
import { meterReading, setClock } from '../history/history-fixture.js';
import { flushVictoriaMetrics, startVictoriaMetrics, vmExport } from './engines.js';
import { pushClient, startMeter, stopMeter } from './push-fixture.js';

const MINUTE_MS = 60_000;

test('minutes into VictoriaMetrics: mean powers of each closed minute, their own cursor, nothing sent twice', async (t) => {
  if (!requireCommand(t, 'victoria-metrics')) return;
  const vm = await startVictoriaMetrics(t);
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    // Ten minutes ending 5 minutes ago: in minute i two readings of i and i + 1 kW (mean i + 0.5).
    const first = Math.floor((Date.now() - 15 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
    for (let i = 0; i < 10; i++) {
      for (const [offset, kw] of [
        [10_000, i],
        [40_000, i + 1],
      ] as const) {
        setClock(h, first + i * MINUTE_MS + offset);
        main.ctx.store.ingest(
          meterReading(first + i * MINUTE_MS + offset, { pIn: kw, pOut: 0, eIn: 100 + i }),
        );
      }
      setClock(h, first + (i + 1) * MINUTE_MS + 50);
      main.recorder.tick(first + (i + 1) * MINUTE_MS + 50);
      await main.recorder.idle();
    }
    setClock(h, Date.now());
    const make = () =>
      pushClient(h, [main], {
        kind: 'remote_write',
        url: `${vm.base}/api/v1/write`,
        what: ['quarters', 'minutes'],
      });
    const client = make();
    assert.equal(await client.drain(), 'empty');
    const sentFirst = client.status().counts.sent;
    // 10 minutes x (import, export) at least; the quarters' registers besides.
    assert.ok(sentFirst >= 20, `sent ${sentFirst}`);
    const file = JSON.parse(readFileSync(join(h.stateDir, 'push', 'fleet.json'), 'utf8')) as {
      minutes_cursor?: number;
    };
    assert.ok(file.minutes_cursor !== undefined && file.minutes_cursor >= (first + 9 * MINUTE_MS) / 1000);
    // A new client on the same cursor file sends no minute again.
    const again = make();
    assert.equal(await again.drain(), 'empty');
    assert.equal(again.status().counts.sent, sentFirst);
    await flushVictoriaMetrics(vm);
    const [series] = await vmExport(vm, 'meter_minute_active_power_import_watts{meter="main"}');
    assert.ok(series, 'the minute series is stored');
    const byTime = new Map(series.timestamps.map((ts, i) => [ts, series.values[i]!]));
    for (let i = 0; i < 10; i++)
      assert.equal(byTime.get(first + (i + 1) * MINUTE_MS), (i + 0.5) * 1000, `minute ${i}`);
    assert.equal(series.timestamps.length, new Set(series.timestamps).size);
    assert.equal(series.metric.role, 'grid');
  } finally {
    await stopMeter(main);
    await h.close();
    await vm.stop();
  }
});
