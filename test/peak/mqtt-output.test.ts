// The peak guard on MQTT and Home Assistant discovery against a real mosquitto: every discovery
// config with its component and classes, the retained state equal to GET /api/v1/peak, the
// events of a shed, commands written like PUT /api/v1/settings (bad ones refused, nothing stored),
// and the guard switched off over MQTT clearing the retained configs and state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import { PEAK_GUARD_SCHEMA } from '../../src/config/peak-schema.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';
import { send } from '../http/http-client.js';
import { retained } from '../mqtt/discovery-peers.js';
import type { ReceivedMessage } from '../mqtt/test-subscriber.js';
import { startPeakRig, type PeakRig } from './outputs-rig.js';
import { checkEntityTable, configTopicOf, type EntityRow } from '../mqtt/entity-table.js';

process.env.TZ = 'Europe/Brussels';

// The system id of the test context (test/helpers/http-context.ts).
const SYSTEM_ID = 'A1B2C3D4E5F6';
const BASE = `meter-gateway/${SYSTEM_ID}/peak`;
const STATE = `${BASE}/state`;
const SETTINGS = `${BASE}/settings`;
const EVENT = `${BASE}/event`;
const configTopic = configTopicOf(SYSTEM_ID);

const ENTITIES: EntityRow[] = [
  ['sensor', 'peak_running', 'power', 'measurement', 'kW'],
  ['sensor', 'peak_predicted', 'power', 'measurement', 'kW'],
  ['sensor', 'peak_allowed', 'power', 'measurement', 'kW'],
  ['sensor', 'peak_headroom', 'power', 'measurement', 'kW'],
  ['sensor', 'peak_month', 'power', 'measurement', 'kW'],
  ['sensor', 'peak_month_at', 'timestamp'],
  ['sensor', 'peak_rolling', 'power', 'measurement', 'kW'],
  ['sensor', 'peak_marginal_cost', 'monetary', undefined, 'EUR'],
  ['sensor', 'peak_remaining', 'duration', 'measurement', 's', 'diagnostic'],
  ['binary_sensor', 'peak_warning', 'problem'],
  ['number', 'peak_limit', 'power', undefined, 'kW', 'config'],
  ['select', 'peak_mode', undefined, undefined, undefined, 'config'],
  ['switch', 'peak_guard', undefined, undefined, undefined, 'config'],
  ['event', 'peak_event'],
];

const json = (message: ReceivedMessage) => JSON.parse(message.payload) as Record<string, unknown>;

async function configsOf(rig: PeakRig): Promise<Map<string, string>> {
  const kept = await retained(rig.broker, ['homeassistant/#']);
  return new Map(kept.filter((m) => m.topic.includes('/peak_')).map((m) => [m.topic, m.payload]));
}

test('discovery: every peak entity with its component, classes, unit, unique_id, the gateway device and availability', async (t) => {
  const rig = await startPeakRig(t);
  if (!rig) return;
  assert.equal(rig.h.ctx.system.id, SYSTEM_ID);
  const last = ENTITIES.at(-1)!;
  await rig.subscriber.waitFor('the last peak config', (m) => m.topic === configTopic(last[0], last[1]));
  const configs = await configsOf(rig);
  for (const {
    row: [component],
    config,
  } of checkEntityTable(configs, ENTITIES, SYSTEM_ID)) {
    assert.deepEqual((config.device as { identifiers: string[] }).identifiers, [
      `meter-gateway-${SYSTEM_ID}`,
    ]);
    if (component === 'sensor' || component === 'binary_sensor') {
      assert.equal(config.state_topic, STATE);
      assert.equal(config.availability_topic, `meter-gateway/${SYSTEM_ID}/availability`);
    }
  }
  const limit = JSON.parse(configs.get(configTopic('number', 'peak_limit'))!) as Record<string, unknown>;
  assert.equal(limit.command_topic, `${BASE}/limit/set`);
  assert.equal(limit.min, PEAK_GUARD_SCHEMA.limit_kw.min);
  assert.equal(limit.max, PEAK_GUARD_SCHEMA.limit_kw.max);
  assert.equal(limit.step, 0.1);
  const mode = JSON.parse(configs.get(configTopic('select', 'peak_mode'))!) as Record<string, unknown>;
  assert.deepEqual(mode.options, ['fixed', 'follow_month_peak', 'keep_step', 'keep_average']);
  assert.equal(mode.command_topic, `${BASE}/mode/set`);
  const guard = JSON.parse(configs.get(configTopic('switch', 'peak_guard'))!) as Record<string, unknown>;
  assert.equal(guard.command_topic, `${BASE}/enable/set`);
  const event = JSON.parse(configs.get(configTopic('event', 'peak_event'))!) as Record<string, unknown>;
  assert.deepEqual(event.event_types, ['warning', 'shed', 'restore', 'unavoidable', 'new_month_peak']);
  assert.equal(event.state_topic, EVENT);
  // The settings the controls show are retained.
  const [settings] = await retained(rig.broker, [SETTINGS]);
  assert.deepEqual(JSON.parse(settings!.payload), { enabled: true, limit_kw: 4, mode: 'fixed' });
});

test('state: retained and equal to GET /api/v1/peak, once per reading; warning and shed events on a shed', async (t) => {
  const rig = await startPeakRig(t);
  if (!rig) return;
  rig.toQuarter(10_000);
  rig.feed(0.6, 5);
  const before = rig.subscriber.mark();
  rig.feed(8, 70);
  await waitFor('the shed call', rig.calls, (calls) => calls.includes('/ev/off'));
  const shed = await rig.subscriber.waitFor(
    'the shed event',
    (m) => m.topic === EVENT && json(m).event_type === 'shed',
    before,
  );
  assert.equal(shed.retain, false);
  assert.equal(json(shed).stage, 'ev');
  const events = rig.subscriber.on(EVENT, before).map((m) => json(m).event_type);
  // The 10 s seen of the window before the quarter are not a month peak (its start was not seen).
  assert.deepEqual(events, ['warning', 'shed'], 'one warning when it starts, then the shed');
  const reply = await send(rig.h.baseUrl, 'GET', '/api/v1/peak');
  const view = reply.json() as Record<string, unknown>;
  assert.equal(view.state, 'shedding');
  const state = await rig.subscriber.waitFor(
    'the state of the last reading',
    (m) => m.topic === STATE && m.payload === reply.text,
    before,
  );
  assert.deepEqual(json(state), view);
  // A new subscriber gets it as the retained message.
  const [kept] = await retained(rig.broker, [STATE]);
  assert.deepEqual(JSON.parse(kept!.payload), view);
  // At most one state message per reading (the guard's clock ticks add none here): each names
  // another reading.
  const readings = rig.subscriber.on(STATE, before).map((m) => json(m).last_reading);
  assert.equal(new Set(readings).size, readings.length, 'one state message per reading');
  assert.ok(readings.length >= 60, `${readings.length} state messages for 70 readings`);
});

test('commands write through the settings like PUT; a negative, absurd or garbage value is refused and nothing is stored', async (t) => {
  const rig = await startPeakRig(t);
  if (!rig) return;
  const { client } = rig.subscriber;
  const settings = async () =>
    (
      (await send(rig.h.baseUrl, 'GET', '/api/v1/settings')).json() as {
        services: { peak_guard: Record<string, unknown> };
      }
    ).services.peak_guard;
  await client.publishAsync(`${BASE}/limit/set`, '5.5', { qos: 1 });
  await waitFor('the limit', settings, (guard) => guard.limit_kw === 5.5);
  await rig.subscriber.waitFor(
    'the retained settings',
    (m) => m.topic === SETTINGS && json(m).limit_kw === 5.5,
  );
  rig.feed(1, 2);
  await rig.subscriber.waitFor(
    'the state with the new limit',
    (m) => m.topic === STATE && json(m).limit_kw === 5.5,
  );
  await client.publishAsync(`${BASE}/mode/set`, 'follow_month_peak', { qos: 1 });
  await waitFor('the mode', settings, (guard) => guard.mode === 'follow_month_peak');
  assert.equal(rig.counts.accepted, 2);

  const file = join(rig.h.stateDir, 'settings.json');
  const stored = readFileSync(file, 'utf8');
  const bad: [string, string][] = [
    ['limit', '-1'],
    ['limit', '1e9'],
    ['limit', 'abc'],
    ['limit', '{"limit_kw":3}'],
    ['mode', 'turbo'],
    ['enable', 'maybe'],
  ];
  for (const [command, payload] of bad)
    await client.publishAsync(`${BASE}/${command}/set`, payload, { qos: 1 });
  await waitFor(
    'six refusals',
    () => rig.counts.refused,
    (count) => count === bad.length,
  );
  await rig.subscriber.sync();
  await quietPeriod(200);
  assert.equal(rig.counts.refused, bad.length);
  assert.equal(rig.counts.accepted, 2);
  assert.deepEqual(
    {
      limit: (await settings()).limit_kw,
      mode: (await settings()).mode,
      enabled: (await settings()).enabled,
    },
    { limit: 5.5, mode: 'follow_month_peak', enabled: true },
  );
  assert.equal(readFileSync(file, 'utf8'), stored, 'the settings file is untouched');
  const refusals = rig.h.logLines.filter((line) => line.includes('command') && line.includes('refused'));
  assert.equal(refusals.length, bad.length);
  assert.ok(
    refusals.some((line) => line.includes('services.peak_guard.limit_kw') && line.includes('not a number')),
  );
});

test('switched off over MQTT: the guard stops, retained configs and state are cleared, nothing peak-related is published; ON brings them back', async (t) => {
  const rig = await startPeakRig(t);
  if (!rig) return;
  rig.feed(1, 3);
  await rig.subscriber.waitFor('a state', (m) => m.topic === STATE);
  await rig.subscriber.waitFor('the event config', (m) => m.topic === configTopic('event', 'peak_event'));
  await rig.subscriber.sync();
  const off = rig.subscriber.mark();
  await rig.subscriber.client.publishAsync(`${BASE}/enable/set`, 'OFF', { qos: 1 });
  await waitFor(
    'the guard off',
    async () => (await send(rig.h.baseUrl, 'GET', '/api/v1/peak')).json().state,
    (s) => s === 'off',
  );
  await waitFor(
    'every peak config cleared',
    () => configsOf(rig),
    (configs) => configs.size === 0,
  );
  assert.deepEqual(await retained(rig.broker, [`${BASE}/#`]), [], 'no retained state or settings');
  const gateway = await retained(rig.broker, ['homeassistant/#']);
  assert.ok(
    gateway.some((m) => m.topic.endsWith('/restart/config')),
    'the gateway entities stay',
  );
  rig.feed(9, 30);
  await rig.subscriber.sync();
  const command = rig.subscriber.messages.findIndex((m, i) => i >= off && m.topic === `${BASE}/enable/set`);
  const published = rig.subscriber.messages.slice(command + 1).filter((m) => m.topic.startsWith(`${BASE}/`));
  assert.ok(published.length >= 2, 'the retained state and settings are cleared');
  assert.ok(
    published.every((m) => m.payload === ''),
    `only clears while off: ${JSON.stringify(published.map((m) => [m.topic, m.payload.slice(0, 40)]))}`,
  );
  await rig.subscriber.client.publishAsync(`${BASE}/enable/set`, 'ON', { qos: 1 });
  await waitFor(
    'every peak config back',
    () => configsOf(rig),
    (configs) => configs.size === ENTITIES.length,
  );
  rig.feed(1, 2);
  await rig.subscriber.waitFor('a state again', (m) => m.topic === STATE && m.payload !== '', off);
});

test('a retained command found at connect is not run (it would run again at every reconnect)', async (t) => {
  const rig = await startPeakRig(t, async (broker) => {
    const client = await connectAsync(broker.url, { reconnectPeriod: 0 });
    await client.publishAsync(`${BASE}/limit/set`, '7', { qos: 1, retain: true });
    await client.endAsync();
  });
  if (!rig) return;
  await rig.subscriber.waitFor('the retained command', (m) => m.topic === `${BASE}/limit/set` && m.retain);
  await rig.subscriber.waitFor('the settings', (m) => m.topic === SETTINGS);
  await rig.subscriber.sync();
  await quietPeriod(300);
  assert.equal(rig.h.ctx.config.config.services.peak_guard.limit_kw, 4);
  assert.deepEqual([rig.counts.accepted, rig.counts.refused], [0, 0]);
  // The same payload sent live is a command.
  await rig.subscriber.client.publishAsync(`${BASE}/limit/set`, '7', { qos: 1 });
  await waitFor(
    'the live command',
    () => rig.h.ctx.config.config.services.peak_guard.limit_kw,
    (kw) => kw === 7,
  );
});
