// The peak guard's /metrics series carry the guarded meter as the `meter` label, with the allowed,
// limit and headroom values and the month peak's time; the meter's own 1-0:1.4.0 is
// meter_average_demand_import_watts; a virtual meter has no frame or byte counters.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsCollector } from '../../src/metrics/collector.js';
import { MetricsExposition } from '../../src/metrics/exposition.js';
import { peakMetrics, type PeakSource } from '../../src/peak/contributors.js';
import { valuesOf } from '../../src/reading/reading.js';
import { ReadingStore } from '../../src/reading/store.js';
import { BELGIUM, Simulation } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

const NOW = Date.parse('2026-11-25T18:08:00');
const stores: ReadingStore[] = [];
after(() => stores.forEach((store) => store.close()));

function store(): ReadingStore {
  const created = new ReadingStore({ staleAfterMs: 10_000, meterInterface: 'P1', now: () => NOW });
  stores.push(created);
  created.ingest({
    receivedAt: NOW,
    protocol: 'DSMR',
    identity: {},
    values: valuesOf({ '1.8.0': [100, 'kWh'], '1.7.0': [7, 'kW'], '1.4.0': [2.345, 'kW'] }),
    mbus: [],
  });
  return created;
}

function guard(): PeakSource {
  const at = (text: string) => Date.parse(text);
  const sim = Simulation.belgian('2026-11-25T17:44:59', (t) =>
    t <= at('2026-11-25T18:00:00') ? 2 : t <= at('2026-11-25T18:05:00') ? 3 : 7,
  );
  sim.runUntil('2026-11-25T18:08:00');
  return {
    snapshot: () => sim.engine.snapshot(sim.at),
    months: () => sim.engine.monthRecords(),
    settings: BELGIUM,
    guarding: true,
    meterId: 'grid2',
    stateRejections: 0,
  };
}

test('peak series with the meter label, allowed, limit, headroom, month peak time; 1.4.0; no counters of a virtual meter', async () => {
  const source = guard();
  const collector = new MetricsCollector({
    meters: () => [
      { id: 'main', name: 'Home', role: 'grid', kind: 'primary', store: store() },
      { id: 'house', name: 'House', role: 'consumption', kind: 'virtual', store: store() },
    ],
    gateway: { version: '1.2.3' },
    now: () => NOW,
    contributors: [peakMetrics(() => source)],
  });
  const { body } = await new MetricsExposition(collector).render('prometheus', false);
  const lines = body.split('\n').filter((line) => !line.startsWith('#'));
  const value = (series: string) => {
    const line = lines.find((entry) => entry.startsWith(`${series} `));
    assert.ok(line, `${series} in\n${lines.join('\n')}`);
    return Number(line.split(' ')[1]);
  };
  assert.equal(value('meter_average_demand_import_watts{meter="main"}'), 2345);
  assert.equal(value('meter_frames_total{meter="main"}'), 1);
  assert.ok(!lines.some((line) => line.startsWith('meter_frames_total{meter="house"}')));
  assert.ok(!lines.some((line) => line.startsWith('meter_received_bytes_total{meter="house"}')));
  assert.ok(!lines.some((line) => line.startsWith('meter_frame_errors_total{meter="house"')));
  // 18:08 of the Belgian case: allowed 3.429 kW, headroom 3.429 − 7 (30 s mean), limit 4 kW.
  assert.equal(Math.round(value('meter_gateway_peak_allowed_watts{meter="grid2"}')), 3429);
  assert.equal(Math.round(value('meter_gateway_peak_headroom_watts{meter="grid2"}')), -3571);
  assert.equal(value('meter_gateway_peak_limit_watts{meter="grid2"}'), 4000);
  assert.equal(Math.round(value('meter_gateway_peak_running_watts{meter="grid2"}')), 2400);
  // The 17:45 window (2 kW) is the month's peak, stamped at its end, 18:00.
  assert.equal(Math.round(value('meter_gateway_peak_month_watts{meter="grid2"}')), 2000);
  assert.equal(
    value('meter_gateway_peak_month_peak_timestamp_seconds{meter="grid2"}'),
    Date.parse('2026-11-25T18:00:00') / 1000,
  );
  // The import does not follow the shed here: ev is ineffective and nothing is left.
  assert.equal(value('meter_gateway_peak_state{meter="grid2",state="over_limit"}'), 1);
  assert.equal(value('meter_gateway_peak_state_file_rejected_total'), 0);
});
