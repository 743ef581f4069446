// what: ["power_1s"] into VictoriaMetrics: the readings' live power goes out in batches as the
// /metrics series meter_active_power_watts at each reading's time; it is held in memory only, at
// most LIVE_BUFFER samples (the oldest dropped), and never read from the history.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIVE_BUFFER } from '../../src/push/push-client.js';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';
import { setClock } from '../history/history-fixture.js';
import { flushVictoriaMetrics, startVictoriaMetrics, vmExport } from './engines.js';
import { pushClient, startMeter, stopMeter } from './push-fixture.js';

test('power_1s into VictoriaMetrics: every held live sample stored at its time, the buffer bounded', async (t) => {
  if (!requireCommand(t, 'victoria-metrics')) return;
  const vm = await startVictoriaMetrics(t);
  const h = await startHttpContext();
  const main = await startMeter(h, 'main', 'grid');
  try {
    setClock(h, Date.now());
    const client = pushClient(h, [main], {
      kind: 'remote_write',
      url: `${vm.base}/api/v1/write`,
      what: ['power_1s'],
    });
    // More than the buffer holds, one a second ending a minute ago, import and export alternating.
    const total = LIVE_BUFFER + 25;
    const first = Math.floor(Date.now() / 1000) * 1000 - 60_000 - (total - 1) * 1000;
    for (let i = 0; i < total; i++)
      client.addLive({ meter: 'main', role: 'grid', at: first + i * 1000, watts: i % 2 === 0 ? i : -i });
    assert.equal(await client.drain(), 'empty');
    assert.equal(client.status().counts.sent, LIVE_BUFFER);
    // Nothing is held any more: a second drain sends nothing.
    assert.equal(await client.drain(), 'empty');
    assert.equal(client.status().counts.sent, LIVE_BUFFER);
    await flushVictoriaMetrics(vm);
    const [series] = await vmExport(vm, 'meter_active_power_watts{meter="main"}');
    assert.ok(series, 'the live series is stored');
    assert.equal(series.values.length, LIVE_BUFFER);
    // The oldest 25 were dropped; the rest at their own time with their sign.
    assert.equal(series.timestamps[0], first + 25 * 1000);
    const byTime = new Map(series.timestamps.map((ts, i) => [ts, series.values[i]!]));
    assert.equal(byTime.get(first + 26 * 1000), 26);
    assert.equal(byTime.get(first + 27 * 1000), -27);
    assert.equal(series.metric.role, 'grid');
    assert.equal(series.metric.site, 'test-site');
  } finally {
    await stopMeter(main);
    await h.close();
    await vm.stop();
  }
});
