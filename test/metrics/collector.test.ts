import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { MetricsCollector, type CollectorSources } from '../../src/metrics/collector.js';
import { MetricsExposition } from '../../src/metrics/exposition.js';
import type { MetricsContributor } from '../../src/metrics/gateway-samples.js';
import { valuesOf, type MbusReading } from '../../src/reading/reading.js';
import { ReadingStore } from '../../src/reading/store.js';

const NOW = Date.UTC(2026, 0, 1);
const stores: ReadingStore[] = [];
after(() => stores.forEach((store) => store.close()));

function storeWith(values: Record<string, [number, string]>, mbus: MbusReading[] = []): ReadingStore {
  const store = new ReadingStore({ staleAfterMs: 10_000, meterInterface: 'OPTICAL', now: () => NOW });
  stores.push(store);
  store.ingest({ receivedAt: NOW, protocol: 'SML', identity: {}, values: valuesOf(values), mbus });
  return store;
}

async function lines(
  sources: Partial<CollectorSources> & Pick<CollectorSources, 'meters'>,
): Promise<string[]> {
  const collector = new MetricsCollector({ gateway: { version: 't' }, now: () => NOW, ...sources });
  const { body } = await new MetricsExposition(collector).render('prometheus', false);
  return body.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

test('a meter without tariff registers has the untariffed counter; with them, only the tariffs', async () => {
  const plain = storeWith({ '1.8.0': [12.5, 'kWh'], '16.7.0': [-0.25, 'kW'] });
  const tariffed = storeWith({ '1.8.0': [3, 'kWh'], '1.8.1': [1, 'kWh'], '1.8.2': [2, 'kWh'] });
  const got = await lines({
    meters: () => [
      { id: 'a', store: plain },
      { id: 'b', store: tariffed },
    ],
  });
  const energy = got.filter((line) => line.startsWith('meter_active_energy_import_joules_total'));
  assert.deepEqual(energy, [
    'meter_active_energy_import_joules_total{meter="a"} 45000000',
    'meter_active_energy_import_joules_total{meter="b",tariff="1"} 3600000',
    'meter_active_energy_import_joules_total{meter="b",tariff="2"} 7200000',
  ]);
  // SML's signed 16.7.0 is the signed power; the derived parts are import 0, export 250 W.
  assert.ok(got.includes('meter_active_power_watts{meter="a"} -250'));
  assert.ok(got.includes('meter_active_power_export_watts{meter="a"} 250'));
  assert.ok(got.includes('meter_active_power_import_watts{meter="a"} 0'));
});

test('M-Bus heat in GJ becomes joules; water in m3; an unknown unit gives no series', async () => {
  const store = storeWith({}, [
    { bus: 1, deviceType: 4, cumulative: 1.5, unit: 'GJ' },
    { bus: 2, deviceType: 7, cumulative: 12.25, unit: 'm3' },
    { bus: 3, deviceType: 3, cumulative: 7, unit: 'ft3' },
  ]);
  const got = await lines({ meters: () => [{ id: 'main', store }] });
  assert.ok(got.includes('meter_heat_energy_joules_total{meter="main",channel="1"} 1500000000'));
  assert.ok(got.includes('meter_water_volume_cubic_meters_total{meter="main",channel="2"} 12.25'));
  assert.ok(!got.some((line) => line.startsWith('meter_gas_volume')));
});

test('gateway series: MQTT, Modbus exceptions by code, SSE clients, actions', async () => {
  const got = await lines({
    meters: () => [],
    gateway: {
      version: '9.9.9',
      mqtt: () => ({ connected: true, published: 42, failed: 2 }),
      modbus: () => [
        {
          server: 'tcp',
          requests: 10,
          exceptions: new Map([
            [2, 1],
            [1, 3],
          ]),
        },
      ],
      sseClients: () => 3,
      actions: () => [{ action: 'boiler', runs: 5, failed: 1 }],
    },
  });
  assert.deepEqual(got, [
    'meter_gateway_build_info{version="9.9.9"} 1',
    'meter_gateway_mqtt_connected 1',
    'meter_gateway_mqtt_published_messages_total 42',
    'meter_gateway_mqtt_publish_failures_total 2',
    'meter_gateway_modbus_requests_total{server="tcp"} 10',
    'meter_gateway_modbus_exceptions_total{server="tcp",code="1"} 3',
    'meter_gateway_modbus_exceptions_total{server="tcp",code="2"} 1',
    'meter_gateway_sse_clients 3',
    'meter_gateway_action_runs_total{action="boiler"} 5',
    'meter_gateway_action_failures_total{action="boiler"} 1',
  ]);
});

test('a contributor adds its families and samples; a family defined twice is refused', async () => {
  const demand = {
    name: 'meter_peak_demand_watts',
    help: 'Demand of the running quarter hour (W)',
    type: 'gauge',
    labels: ['meter'],
  } as const;
  let watts = 1200;
  const contributor: MetricsContributor = {
    families: [demand],
    collect: (add) => add(demand, { meter: 'main' }, watts),
  };
  const collector = new MetricsCollector({
    meters: () => [],
    gateway: { version: 't' },
    contributors: [contributor],
  });
  const exposition = new MetricsExposition(collector);
  assert.match(
    (await exposition.render('prometheus', false)).body,
    /^meter_peak_demand_watts\{meter="main"\} 1200$/m,
  );
  watts = 900; // collected at scrape time
  assert.match(
    (await exposition.render('prometheus', false)).body,
    /^meter_peak_demand_watts\{meter="main"\} 900$/m,
  );
  const clash = { ...contributor, families: [{ ...demand, name: 'meter_up' }] };
  assert.throws(
    () => new MetricsCollector({ meters: () => [], gateway: { version: 't' }, contributors: [clash] }),
    /meter_up defined twice/,
  );
});
