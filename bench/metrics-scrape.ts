// `/metrics` scrape cost: CPU time of one scrape (collect + prom-client rendering) of a gateway with 4 meters,
// each a three-phase meter sending every table quantity with two tariffs and a gas channel (the most series
// a meter gives). Target (docs/architecture.md#prometheus-metrics): under 5 ms of CPU per scrape.
import { MetricsCollector } from '../src/metrics/collector.js';
import { MetricsExposition, type ExpositionFormat } from '../src/metrics/exposition.js';
import { QUANTITIES } from '../src/reading/quantities.js';
import type { ObisValue, Reading } from '../src/reading/reading.js';
import { ReadingStore } from '../src/reading/store.js';

const METERS = 4;
const SCRAPES = 400;

function fullReading(seed: number): Reading {
  const values = new Map<string, ObisValue>();
  for (const quantity of QUANTITIES)
    values.set(quantity.obis, { value: 1000 * seed + values.size + 0.123, unit: quantity.unit });
  values.set('14.7.0', { value: 50.01, unit: 'Hz' });
  return {
    receivedAt: Date.now(),
    protocol: 'DSMR',
    identity: { prefix: 'ISK', model: 'AM550', id: `E00${seed}` },
    values,
    tariff: 1,
    mbus: [{ bus: 1, deviceType: 3, meterId: `G00${seed}`, cumulative: 1234.567, unit: 'm3' }],
  };
}

export async function runMetricsBench(): Promise<string> {
  const stores = Array.from({ length: METERS }, (_, i) => {
    const store = new ReadingStore({ staleAfterMs: 3_600_000, meterInterface: 'P1' });
    store.ingest(fullReading(i + 1));
    return store;
  });
  const collector = new MetricsCollector({
    meters: () =>
      stores.map((store, i) => ({ id: i === 0 ? 'main' : `m${i}`, name: `meter ${i}`, role: 'grid', store })),
    gateway: {
      version: 'bench',
      sseClients: () => 2,
      modbus: () => [{ server: 'tcp', requests: 12345, exceptions: new Map([[1, 3]]) }],
      mqtt: () => ({ connected: true, published: 999, failed: 1 }),
      actions: () => [{ action: 'boiler', runs: 12, failed: 1 }],
    },
  });
  const exposition = new MetricsExposition(collector);
  const lines: string[] = [];
  for (const format of ['prometheus', 'openmetrics'] as ExpositionFormat[]) {
    let body = '';
    for (let i = 0; i < 50; i++) body = (await exposition.render(format, false)).body; // warm-up
    const start = process.cpuUsage();
    const wall = performance.now();
    for (let i = 0; i < SCRAPES; i++) body = (await exposition.render(format, false)).body;
    const cpu = process.cpuUsage(start);
    const cpuMs = (cpu.user + cpu.system) / 1000 / SCRAPES;
    const wallMs = (performance.now() - wall) / SCRAPES;
    const series = body.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
    lines.push(
      `${format.padEnd(12)} ${METERS} meters: ${series} series, ${body.length} bytes; ` +
        `${cpuMs.toFixed(2)} ms CPU per scrape (wall ${wallMs.toFixed(2)} ms), target < 5 ms: ${cpuMs < 5 ? 'met' : 'MISSED'}`,
    );
  }
  for (const store of stores) store.close();
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await runMetricsBench());
