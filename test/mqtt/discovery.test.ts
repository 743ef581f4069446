import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dsmrReading, SYSTEM_ID } from './mqtt-context.js';
import {
  AVAILABILITY,
  CONFIG_PREFIX,
  configsIn,
  DSMR_KEYS,
  keyOf,
  retained,
  startGateway,
  STATE,
  withBroker,
} from './discovery-peers.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { waitFor } from '../helpers/wait.js';

test('discovery: one retained config per quantity sent, state JSON, availability online after the state', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const { context } = await startGateway(t, broker);
  const first = await subscriber.waitFor('availability', (m) => m.topic === AVAILABILITY);
  assert.equal(first.payload, 'offline', 'no reading yet: unavailable');

  context.ctx.store.ingest(dsmrReading(Date.now()));
  const online = await subscriber.waitFor(
    'online',
    (m) => m.topic === AVAILABILITY && m.payload === 'online',
  );
  const state = subscriber.on(STATE);
  assert.equal(state.length, 1);
  assert.ok(
    subscriber.messages.indexOf(state[0]!) < subscriber.messages.indexOf(online),
    'state first, then online',
  );
  assert.deepEqual(JSON.parse(state[0]!.payload), {
    power_active_positive: 2.412,
    power_active_negative: 0,
    voltage_l1: 231.4,
    current_l1: 4,
    energy_active_positive: 18734.512,
    energy_active_positive_t1: 9811.204,
    energy_active_positive_t2: 8923.308,
    energy_active_negative: 4102.877,
    energy_active_negative_t1: 1811.42,
    energy_active_negative_t2: 2291.457,
    power_active_net: 2.412,
    tariff: 2,
    mbus_1: 4521.338,
  });

  const kept = await retained(broker, ['homeassistant/#', 'meter-gateway/#']);
  const configs = configsIn(kept);
  assert.deepEqual([...configs.keys()].sort(), DSMR_KEYS);
  assert.deepEqual(
    kept.filter((m) => m.topic === AVAILABILITY).map((m) => m.payload),
    ['online'],
  );
  assert.equal(kept.filter((m) => m.topic === STATE).length, 0, 'state is not retained');
  const energy = JSON.parse(configs.get('energy_active_positive')!);
  assert.equal(energy.unique_id, `meter-gateway-${SYSTEM_ID}-energy_active_positive`);
  assert.equal(energy.device_class, 'energy');
  assert.equal(energy.state_class, 'total_increasing');
  assert.equal(energy.unit_of_measurement, 'kWh');
  // Meter quantities on the meter's own device, named after its identity, via the gateway.
  assert.deepEqual(energy.device, {
    identifiers: [`meter-gateway-${SYSTEM_ID}-meter`],
    name: 'Electricity meter',
    via_device: `meter-gateway-${SYSTEM_ID}`,
    manufacturer: 'ISK',
    model: 'AM550',
    serial_number: 'E0047000123456789',
  });
  assert.deepEqual(JSON.parse(configs.get('meter_status')!).device, {
    identifiers: [`meter-gateway-${SYSTEM_ID}`],
    name: 'meter-gateway',
    manufacturer: 'meter-gateway',
    model: 'meter-gateway-test',
    sw_version: '9.8.7',
    configuration_url: 'http://127.0.0.1:8080/',
  });
  assert.equal(JSON.parse(configs.get('mbus_1')!).device.name, 'Gas meter');
  assert.deepEqual(energy.origin, { name: 'meter-gateway', sw_version: '9.8.7' });
  assert.equal(JSON.parse(configs.get('mbus_1')!).device_class, 'gas');
});

test('discovery: a stale meter makes entities unavailable; no total is published as 0', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  // Staleness (300 ms) on a virtual clock (docs/architecture.md#clock); the broker is real.
  const clock = new VirtualClock();
  const { context } = await startGateway(t, broker, {}, 300, clock);
  context.ctx.store.ingest(dsmrReading(clock.now()));
  await subscriber.waitFor('online', (m) => m.topic === AVAILABILITY && m.payload === 'online');
  const beforeStale = subscriber.mark();
  await clock.advance(300);
  await subscriber.sync();
  assert.equal(context.ctx.store.meter.status, 'OK', 'fresh for 300 ms');
  await clock.advance(1);
  await subscriber.waitFor(
    'offline when stale',
    (m) => m.topic === AVAILABILITY && m.payload === 'offline',
    beforeStale,
  );
  assert.equal(context.ctx.store.latest, undefined);
  assert.deepEqual(subscriber.on(STATE, beforeStale), [], 'nothing stale is published');
  // The meter status entity has its own topic and stays available: it says NO DATA.
  const status = await subscriber.waitFor(
    'status NO DATA',
    (m) => m.topic === `meter-gateway/${SYSTEM_ID}/meter_status` && m.payload === 'NO DATA',
    beforeStale,
  );
  assert.ok(status);
  const kept = await retained(broker, [`meter-gateway/${SYSTEM_ID}/meter_status`]);
  assert.deepEqual(
    kept.map((m) => m.payload),
    ['NO DATA'],
  );

  const resumed = subscriber.mark();
  context.ctx.store.ingest(dsmrReading(clock.now(), 1, { '2.8.1': [0, 'kWh'], '2.8.2': [0, 'kWh'] }));
  const online = await subscriber.waitFor(
    'online again',
    (m) => m.topic === AVAILABILITY && m.payload === 'online',
    resumed,
  );
  const [state] = subscriber.on(STATE, resumed);
  assert.ok(subscriber.messages.indexOf(state!) < subscriber.messages.indexOf(online));
  const values = JSON.parse(state!.payload) as Record<string, number>;
  assert.equal(values.power_active_negative, 0, 'a power of 0 is a value');
  for (const key of ['energy_active_negative', 'energy_active_negative_t1', 'energy_active_negative_t2']) {
    assert.equal(key in values, false, `${key} = 0 is left out`);
  }
  assert.equal(values.energy_active_positive, 18735.512);
});

test('discovery: Home Assistant birth message re-sends configs and availability a moment later', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  // The answer's random delay (1 to 3 s) runs on a virtual clock (docs/architecture.md#clock).
  const clock = new VirtualClock();
  const { context } = await startGateway(t, broker, {}, undefined, clock);
  context.ctx.store.ingest(dsmrReading(clock.now()));
  await subscriber.waitFor('online', (m) => m.topic === AVAILABILITY && m.payload === 'online');
  await subscriber.sync();
  const beforeBirth = subscriber.mark();
  const timersBefore = clock.pending;
  await subscriber.client.publishAsync('homeassistant/status', 'online', { qos: 1 });
  await waitFor('the birth message to arm the answer', () => clock.pending > timersBefore);
  await clock.advance(999);
  await subscriber.sync();
  assert.equal(configsIn(subscriber.messages.slice(beforeBirth)).size, 0, 'not before 1 s');
  await clock.advance(2001);
  await subscriber.waitFor(
    'availability re-sent',
    (m) => m.topic === AVAILABILITY && m.payload === 'online',
    beforeBirth,
  );
  const resent = configsIn(subscriber.messages.slice(beforeBirth));
  assert.deepEqual([...resent.keys()].sort(), DSMR_KEYS);
  assert.equal(subscriber.on(STATE, beforeBirth).length, 1, 'current state re-sent for the restarted HA');

  const beforeOffline = subscriber.mark();
  await subscriber.client.publishAsync('homeassistant/status', 'offline', { qos: 1 });
  await subscriber.sync();
  assert.equal(
    configsIn(subscriber.messages.slice(beforeOffline)).size,
    0,
    'HA going offline triggers nothing',
  );
});

test('discovery: vanished entities are cleared, unique ids stay the same across restarts', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  await subscriber.client.publishAsync(`${CONFIG_PREFIX}ghost/config`, '{"name":"left by an old run"}', {
    qos: 1,
    retain: true,
  });
  const first = await startGateway(t, broker);
  first.context.ctx.store.ingest(dsmrReading(Date.now()));
  const cleared = await subscriber.waitFor(
    'ghost cleared',
    (m) => m.topic === `${CONFIG_PREFIX}ghost/config` && m.payload === '',
  );
  assert.equal(cleared.payload, '');
  const before = configsIn(await retained(broker, ['homeassistant/#']));
  assert.deepEqual([...before.keys()].sort(), DSMR_KEYS);
  await first.service.stop();
  assert.deepEqual(
    (await retained(broker, [AVAILABILITY])).map((m) => m.payload),
    ['offline'],
    'a clean stop leaves availability offline',
  );

  const restarted = subscriber.mark();
  const second = await startGateway(t, broker);
  const noLine1 = dsmrReading(Date.now());
  second.context.ctx.store.ingest({
    ...noLine1,
    values: new Map([...noLine1.values].filter(([obis]) => obis !== '32.7.0' && obis !== '31.7.0')),
  });
  await subscriber.waitFor(
    'current_l1 cleared',
    (m) => keyOf(m) === 'current_l1' && m.payload === '',
    restarted,
  );
  await subscriber.waitFor(
    'voltage_l1 cleared',
    (m) => keyOf(m) === 'voltage_l1' && m.payload === '',
    restarted,
  );
  const after = configsIn(await retained(broker, ['homeassistant/#']));
  assert.deepEqual(
    [...after.keys()].sort(),
    DSMR_KEYS.filter((key) => key !== 'current_l1' && key !== 'voltage_l1'),
  );
  for (const [key, payload] of after)
    assert.equal(payload, before.get(key), `${key}: same config and unique id after restart`);
});

test('discovery: prefix configurable; switched off it removes what it announced', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const custom = await startGateway(t, broker, { METER_GATEWAY_MQTT_DISCOVERY_PREFIX: 'ha-test' });
  custom.context.ctx.store.ingest(dsmrReading(Date.now()));
  await subscriber.waitFor('online', (m) => m.topic === AVAILABILITY && m.payload === 'online');
  const prefix = `ha-test/sensor/${SYSTEM_ID}/`;
  assert.deepEqual([...configsIn(await retained(broker, ['ha-test/#']), prefix).keys()].sort(), DSMR_KEYS);
  assert.equal(configsIn(await retained(broker, ['homeassistant/#'])).size, 0);
  await custom.service.stop();

  const off = await startGateway(t, broker, {
    METER_GATEWAY_MQTT_DISCOVERY_PREFIX: 'ha-test',
    METER_GATEWAY_MQTT_DISCOVERY_ENABLE: 'false',
  });
  const since = subscriber.mark();
  off.context.ctx.store.ingest(dsmrReading(Date.now()));
  await subscriber.waitFor(
    'template still published',
    (m) => m.topic === `meter-gateway/${SYSTEM_ID}/report`,
    since,
  );
  await subscriber.waitFor('configs cleared', (m) => keyOf(m, prefix) === 'voltage_l1' && m.payload === '');
  assert.deepEqual(await retained(broker, ['ha-test/#', AVAILABILITY]), []);
  assert.deepEqual(subscriber.on(STATE, since), [], 'no state topic while discovery is off');
});

test('discovery: state messages at mqtt.discovery.state_interval, the latest reading last', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  // The interval runs on a virtual clock (docs/architecture.md#clock); the broker is real.
  const clock = new VirtualClock();
  const { context } = await startGateway(
    t,
    broker,
    { METER_GATEWAY_MQTT_DISCOVERY_STATE_INTERVAL: '1' },
    undefined,
    clock,
  );
  const start = clock.now();
  // 20 readings 100 ms apart (2 s): with a 1 s interval, three state messages.
  for (let step = 0; step < 20; step++) {
    context.ctx.store.ingest(dsmrReading(clock.now(), step));
    await clock.advance(100); // the meter's pace
  }
  const last = dsmrReading(clock.now(), 19).values.get('1.7.0')!.value;
  await subscriber.waitFor(
    'the last reading in a state message',
    (m) => m.topic === STATE && JSON.parse(m.payload).power_active_positive === last,
  );
  const states = subscriber.on(STATE);
  const elapsedS = (clock.now() - start) / 1000;
  assert.ok(states.length >= 2, `${states.length} state messages`);
  assert.ok(states.length <= Math.ceil(elapsedS) + 1, `${states.length} state messages in ${elapsedS} s`);
  assert.equal(
    JSON.parse(states[0]!.payload).power_active_positive,
    dsmrReading(0, 0).values.get('1.7.0')!.value,
  );
  // At 0 s the first reading, at 1 s and 2 s the latest one when the interval ended.
  assert.deepEqual(
    states.map((state) => JSON.parse(state.payload).power_active_positive),
    [0, 9, 19].map((step) => dsmrReading(0, step).values.get('1.7.0')!.value),
  );
});
