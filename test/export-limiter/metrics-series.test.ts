// The export limiter's /metrics series (docs/architecture.md#export-limiter): every state and
// decision as a 0/1 gauge, target and grid power, per inverter its output, the limit held as a
// ratio of WMax, writes and failures; nothing of the loop while it is disabled; the MQTT commands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LimiterStatus } from '../../src/export-limiter/limiter.js';
import { limiterMetrics } from '../../src/export-limiter/metrics.js';
import { MetricsCollector } from '../../src/metrics/collector.js';
import { MetricsExposition } from '../../src/metrics/exposition.js';
import { LimiterCommandCounts, limiterCommandMetrics } from '../../src/mqtt/limiter-commands.js';

const NOW = Date.parse('2026-06-14T12:00:05Z');

const LIMITING: LimiterStatus = {
  enabled: true,
  mode: 'price',
  decision: 'zero_export',
  reason: 'export price -0.05 < 0: zero export',
  state: 'limiting',
  target_w: -100,
  grid_w: -80,
  grid_at: '2026-06-14T12:00:04.000Z',
  limit_w: 800,
  inverters: [
    {
      id: 'roof',
      profile: 'fronius',
      state: 'ok',
      model: 704,
      wmax_w: 5000,
      installer_limit_pct: null,
      reported_w: 810,
      commanded_pct: 16,
      commanded_w: 800,
      last_write: '2026-06-14T12:00:01.000Z',
      writes_per_hour: 1,
      writes: 3,
      refreshes: 1,
      failures: 2,
      error: null,
    },
  ],
};

async function scrape(status: LimiterStatus, counts: LimiterCommandCounts): Promise<string[]> {
  const collector = new MetricsCollector({
    meters: () => [],
    gateway: { version: '1.2.3' },
    now: () => NOW,
    contributors: [limiterMetrics(() => status), limiterCommandMetrics(counts)],
  });
  const { body } = await new MetricsExposition(collector).render('prometheus', false);
  return body.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

test('limiter series: every state and decision 0/1, target, grid, inverter output, limit ratio, writes, failures, MQTT commands', async () => {
  const counts = new LimiterCommandCounts();
  counts.accepted = 2;
  counts.refused = 5;
  const lines = await scrape(LIMITING, counts);
  const value = (series: string) => {
    const line = lines.find((entry) => entry.startsWith(`${series} `));
    assert.ok(line, `${series} in\n${lines.join('\n')}`);
    return Number(line.split(' ')[1]);
  };
  for (const state of ['idle', 'limiting', 'free', 'pv_off', 'stale', 'inverter_lost', 'busy'])
    assert.equal(value(`meter_gateway_export_limiter_state{state="${state}"}`), state === 'limiting' ? 1 : 0);
  for (const decision of ['off', 'zero_export', 'pv_off', 'free'])
    assert.equal(
      value(`meter_gateway_export_limiter_decision{decision="${decision}"}`),
      decision === 'zero_export' ? 1 : 0,
    );
  assert.equal(value('meter_gateway_export_limiter_target_watts'), -100);
  assert.equal(value('meter_gateway_export_limiter_grid_watts'), -80);
  assert.equal(value('meter_gateway_export_limiter_inverter_watts{inverter="roof"}'), 810);
  assert.equal(value('meter_gateway_export_limiter_limit_ratio{inverter="roof"}'), 0.16);
  assert.equal(value('meter_gateway_export_limiter_writes_total{inverter="roof"}'), 3);
  assert.equal(value('meter_gateway_export_limiter_failures_total{inverter="roof"}'), 2);
  assert.equal(value('meter_gateway_export_limiter_mqtt_commands_total{result="accepted"}'), 2);
  assert.equal(value('meter_gateway_export_limiter_mqtt_commands_total{result="refused"}'), 5);
});

test('disabled: no series of the loop, the command counters stay', async () => {
  const lines = await scrape({ ...LIMITING, enabled: false, inverters: [] }, new LimiterCommandCounts());
  const loop = lines.filter(
    (line) =>
      line.startsWith('meter_gateway_export_limiter_') &&
      !line.startsWith('meter_gateway_export_limiter_mqtt_commands_total'),
  );
  assert.deepEqual(loop, []);
  assert.ok(lines.includes('meter_gateway_export_limiter_mqtt_commands_total{result="refused"} 0'));
});
