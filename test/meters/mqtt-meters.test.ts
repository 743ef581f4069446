import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadingStore } from '../../src/reading/store.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { waitFor } from '../helpers/wait.js';
import { configsIn, retained, startGateway, withBroker } from '../mqtt/discovery-peers.js';
import { dsmrReading, SYSTEM_ID } from '../mqtt/mqtt-context.js';

/**
 * Further meters on MQTT, seen by a real broker (mosquitto) and client: a state topic per meter,
 * one Home Assistant device per meter linked to the gateway with via_device and entities that fit
 * its role, and a removed meter's retained configs cleared.
 */

function reading(values: Record<string, [number, string]>): Reading {
  return { receivedAt: Date.now(), protocol: 'MODBUS', identity: {}, values: valuesOf(values), mbus: [] };
}

test('one HA device per further meter with via_device, role-fitting entities, a state topic each; a removed meter is cleared', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const { context } = await startGateway(t, broker, { METER_GATEWAY_MQTT_DISCOVERY_STATE_INTERVAL: '0' });
  const { ctx } = context;
  const pv = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485' });
  const battery = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485' });
  t.after(() => {
    pv.close();
    battery.close();
  });
  ctx.meters.add({ id: 'pv', name: 'PV inverter', role: 'pv', kind: 'polled', store: pv, source: () => 'x' });
  ctx.meters.add({
    id: 'battery',
    name: 'Battery',
    role: 'battery',
    kind: 'polled',
    store: battery,
    source: () => 'x',
  });
  ctx.store.ingest(dsmrReading(Date.now()));
  pv.ingest(
    reading({ '1.7.0': [0, 'kW'], '2.7.0': [3.2, 'kW'], '1.8.0': [1.5, 'kWh'], '2.8.0': [4321.5, 'kWh'] }),
  );
  battery.ingest(
    reading({ '1.7.0': [1.1, 'kW'], '2.7.0': [0, 'kW'], '1.8.0': [800, 'kWh'], '2.8.0': [700, 'kWh'] }),
  );

  const state = await subscriber.waitFor(
    'pv state',
    (m) => m.topic === `meter-gateway/${SYSTEM_ID}/meters/pv/state`,
  );
  assert.deepEqual(JSON.parse(state.payload), {
    power_in: 0,
    power_out: 3.2,
    energy_in: 1.5,
    energy_out: 4321.5,
  });
  const prefix = `homeassistant/sensor/${SYSTEM_ID}/`;
  const configs = await waitFor(
    'the meters announced',
    async () => configsIn(await retained(broker, ['homeassistant/#']), prefix),
    (found) => [...found.keys()].filter((key) => /^meter_(pv|battery)_/.test(key)).length === 8,
  );
  const parsed = (key: string) => JSON.parse(configs.get(key)!);
  const produced = parsed('meter_pv_energy_out');
  assert.equal(produced.name, 'Energy produced');
  assert.equal(produced.device_class, 'energy');
  assert.equal(produced.state_class, 'total_increasing');
  assert.equal(produced.unit_of_measurement, 'kWh');
  assert.equal(produced.state_topic, `meter-gateway/${SYSTEM_ID}/meters/pv/state`);
  const gateway = `meter-gateway-${SYSTEM_ID}`;
  assert.deepEqual(produced.device, {
    identifiers: [`${gateway}-meter-pv`],
    name: 'PV inverter',
    model: 'pv',
    via_device: gateway,
  });
  assert.equal(parsed('meter_battery_power_in').name, 'Charge power');
  assert.equal(parsed('meter_battery_energy_out').name, 'Energy discharged');
  const devices = new Set(
    [...configs.values()].map((text) =>
      JSON.stringify((JSON.parse(text) as { device: { identifiers: string[] } }).device.identifiers),
    ),
  );
  assert.ok(
    devices.has(JSON.stringify([`${gateway}-meter-pv`])) &&
      devices.has(JSON.stringify([`${gateway}-meter-battery`])),
  );

  ctx.meters.remove('pv');
  const after = await waitFor(
    'pv configs cleared',
    async () => configsIn(await retained(broker, ['homeassistant/#']), prefix),
    (found) => ![...found.keys()].some((key) => key.startsWith('meter_pv_')),
  );
  assert.ok(
    [...after.keys()].some((key) => key.startsWith('meter_battery_')),
    'the battery stays',
  );
});
