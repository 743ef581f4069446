// The export limiter on MQTT and Home Assistant discovery against a real mosquitto: every discovery
// config (mode select, target number, state and commanded limit sensors, event entity), the
// retained state equal to GET /api/v1/export-limiter, an event per state change, commands written
// like PUT /api/v1/settings (kept in the settings state file; bad ones refused, nothing stored),
// and the limiter switched off clearing the retained configs and state.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXPORT_LIMITER_SCHEMA } from '../../src/config/export-limiter-schema.js';
import { ExportLimiter } from '../../src/export-limiter/limiter.js';
import { registerExportLimiterRoutes } from '../../src/http/routes/export-limiter.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { componentLogger } from '../../src/log.js';
import { LimiterCommandCounts } from '../../src/mqtt/limiter-commands.js';
import { limiterFeedOf } from '../../src/mqtt/limiter-mqtt.js';
import { createMqttService } from '../../src/mqtt/publisher.js';
import { runOutput } from '../../src/output-runner.js';
import { valuesOf } from '../../src/reading/reading.js';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { startSimulatedInverter } from '../helpers/simulated-inverter.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';
import { send } from '../http/http-client.js';
import { retained } from '../mqtt/discovery-peers.js';
import { startMosquitto, type MosquittoBroker } from '../mqtt/mosquitto-broker.js';
import { publisherEnv, waitForStatus } from '../mqtt/mqtt-context.js';
import { TestSubscriber, type ReceivedMessage } from '../mqtt/test-subscriber.js';
import { checkEntityTable, configTopicOf, type EntityRow } from '../mqtt/entity-table.js';

// The system id of the test context (test/helpers/http-context.ts).
const SYSTEM_ID = 'A1B2C3D4E5F6';
const BASE = `meter-gateway/${SYSTEM_ID}/export_limiter`;
const STATE = `${BASE}/state`;
const SETTINGS = `${BASE}/settings`;
const EVENT = `${BASE}/event`;
const configTopic = configTopicOf(SYSTEM_ID);

const ENTITIES: EntityRow[] = [
  ['sensor', 'export_limiter_state', 'enum'],
  ['sensor', 'export_limiter_limit', 'power', 'measurement', 'W'],
  ['sensor', 'export_limiter_grid', 'power', 'measurement', 'W'],
  ['select', 'export_limiter_mode', undefined, undefined, undefined, 'config'],
  ['number', 'export_limiter_target', 'power', undefined, 'W', 'config'],
  ['event', 'export_limiter_event'],
];

const json = (message: ReceivedMessage) => JSON.parse(message.payload) as Record<string, unknown>;

interface Rig {
  h: HttpTestContext;
  broker: MosquittoBroker;
  subscriber: TestSubscriber;
  counts: LimiterCommandCounts;
  limiter: ExportLimiter;
  /** One reading of `gridW` (import positive). */
  feed(gridW: number): void;
}

async function startRig(t: TestContext): Promise<Rig | undefined> {
  if (!requireCommand(t, 'mosquitto')) return undefined;
  const broker = await startMosquitto();
  const cleanups: (() => Promise<void>)[] = [() => broker.stop()];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  let limiter: ExportLimiter | undefined;
  let mqtt: ReturnType<typeof createMqttService> | undefined;
  const counts = new LimiterCommandCounts();
  const h = await startHttpContext({
    staleAfterMs: 3_600_000,
    env: { ...publisherEnv(broker.url), METER_GATEWAY_METER_TIMEOUT: '3600' },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      limiter = new ExportLimiter(ctx, componentLogger(ctx.logger, 'export-limiter'));
      registerExportLimiterRoutes(router, ctx, limiter);
      mqtt = createMqttService(ctx, undefined, undefined, undefined, {
        feed: limiterFeedOf(limiter),
        counts,
      });
    },
  });
  cleanups.push(() => h.close());
  const inverter = await startSimulatedInverter({ clock: h.ctx.clock, deadTimeMs: 0 });
  cleanups.push(() => inverter.close());
  const applied = h.ctx.config.apply(
    new Map<string, unknown>([
      ['services.export_limiter.enabled', true],
      ['services.export_limiter.inverters', [{ id: 'pv1', source: inverter.source, profile: 'sunspec' }]],
    ]),
  );
  assert.ok(applied.ok);
  const outputs = [runOutput(h.ctx, limiter!), runOutput(h.ctx, mqtt!)];
  const subscriber = await TestSubscriber.connect(broker.url, ['homeassistant/#', 'meter-gateway/#']);
  cleanups.push(() => subscriber.close());
  for (const output of outputs) cleanups.push(() => output.stop());
  for (const output of outputs) await output.start();
  await waitForStatus(h.ctx, 'connected', (status) => status.link === 'connected');
  const feed = (gridW: number) =>
    h.ctx.store.ingest({
      receivedAt: h.ctx.clock.now(),
      protocol: 'DSMR',
      identity: {},
      values: valuesOf({
        '1.7.0': [Math.max(0, gridW) / 1000, 'kW'],
        '2.7.0': [Math.max(0, -gridW) / 1000, 'kW'],
      }),
      mbus: [],
    });
  return { h, broker, subscriber, counts, limiter: limiter!, feed };
}

async function configsOf(rig: Rig): Promise<Map<string, string>> {
  const kept = await retained(rig.broker, ['homeassistant/#']);
  return new Map(kept.filter((m) => m.topic.includes('/export_limiter_')).map((m) => [m.topic, m.payload]));
}

test('discovery: the limiter entities with their components, classes, topics and bounds; the settings retained', async (t) => {
  const rig = await startRig(t);
  if (!rig) return;
  const last = ENTITIES.at(-1)!;
  await rig.subscriber.waitFor('the last limiter config', (m) => m.topic === configTopic(last[0], last[1]));
  const configs = await configsOf(rig);
  for (const {
    row: [component],
    config,
  } of checkEntityTable(configs, ENTITIES, SYSTEM_ID)) {
    if (component === 'sensor') assert.equal(config.state_topic, STATE);
  }
  const state = JSON.parse(configs.get(configTopic('sensor', 'export_limiter_state'))!);
  assert.deepEqual(state.options, ['idle', 'limiting', 'free', 'pv_off', 'stale', 'inverter_lost', 'busy']);
  const limit = JSON.parse(configs.get(configTopic('sensor', 'export_limiter_limit'))!);
  assert.equal(limit.value_template, '{{ value_json.limit_w }}');
  const mode = JSON.parse(configs.get(configTopic('select', 'export_limiter_mode'))!);
  assert.deepEqual(mode.options, ['off', 'zero_export', 'price']);
  assert.equal(mode.command_topic, `${BASE}/mode/set`);
  assert.equal(mode.state_topic, SETTINGS);
  const target = JSON.parse(configs.get(configTopic('number', 'export_limiter_target'))!);
  assert.equal(target.command_topic, `${BASE}/target/set`);
  assert.equal(target.min, EXPORT_LIMITER_SCHEMA.target_w.min);
  assert.equal(target.max, EXPORT_LIMITER_SCHEMA.target_w.max);
  const event = JSON.parse(configs.get(configTopic('event', 'export_limiter_event'))!);
  assert.equal(event.state_topic, EVENT);
  assert.deepEqual(event.event_types, state.options);
  const [settings] = await retained(rig.broker, [SETTINGS]);
  assert.deepEqual(JSON.parse(settings!.payload), { enabled: true, mode: 'zero_export', target_w: 0 });
});

test('state retained as GET /api/v1/export-limiter, an event per state change, a mode command switches the loop and is stored; bad commands refused', async (t) => {
  const rig = await startRig(t);
  if (!rig) return;
  const before = rig.subscriber.mark();
  rig.feed(-2200);
  const limiting = await rig.subscriber.waitFor(
    'the limiting event',
    (m) => m.topic === EVENT && json(m).event_type === 'limiting',
    before,
  );
  assert.equal(limiting.retain, false);
  assert.equal(json(limiting).from, 'idle');
  assert.equal(json(limiting).decision, 'zero_export');
  // The retained state is the API's answer (no reading comes any more: the status stands still).
  const status = await waitFor(
    'the retained state of the last status',
    async () => {
      const reply = (await send(rig.h.baseUrl, 'GET', '/api/v1/export-limiter')).text;
      const [kept] = await retained(rig.broker, [STATE]);
      return { reply, kept: kept?.payload };
    },
    ({ reply, kept }) => reply === kept,
  );
  const view = JSON.parse(status.reply) as {
    state: string;
    limit_w: number;
    inverters: { commanded_w: number }[];
  };
  assert.equal(view.state, 'limiting');
  assert.equal(view.limit_w, view.inverters[0]!.commanded_w);

  // HA's select: mode off; the loop hands the inverter back, the state goes idle with its event.
  const { client } = rig.subscriber;
  const command = rig.subscriber.mark();
  await client.publishAsync(`${BASE}/mode/set`, 'off', { qos: 1 });
  const idle = await rig.subscriber.waitFor(
    'the idle event',
    (m) => m.topic === EVENT && json(m).event_type === 'idle',
    command,
  );
  assert.equal(json(idle).from, 'limiting');
  assert.equal(json(idle).reason, 'mode off');
  await rig.subscriber.waitFor(
    'the settings',
    (m) => m.topic === SETTINGS && json(m).mode === 'off',
    command,
  );
  const file = join(rig.h.stateDir, 'settings.json');
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { services: { export_limiter: { mode: string } } };
  assert.equal(stored.services.export_limiter.mode, 'off', 'kept in the settings state file');
  await client.publishAsync(`${BASE}/target/set`, '-300', { qos: 1 });
  await waitFor(
    'the target',
    () => rig.h.ctx.config.config.services.export_limiter.target_w,
    (w) => w === -300,
  );
  assert.equal(rig.counts.accepted, 2);

  const text = readFileSync(file, 'utf8');
  const bad: [string, string][] = [
    ['mode', 'turbo'],
    ['mode', ''],
    ['target', '1e9'],
    ['target', '12.5'],
    ['target', '999999'],
    ['target', '{"target_w":1}'],
  ];
  for (const [name, payload] of bad) await client.publishAsync(`${BASE}/${name}/set`, payload, { qos: 1 });
  await waitFor(
    'the refusals',
    () => rig.counts.refused,
    (count) => count === bad.length,
  );
  await quietPeriod(200);
  assert.equal(rig.counts.accepted, 2);
  assert.equal(readFileSync(file, 'utf8'), text, 'the settings file is untouched');
  const { mode, target_w } = rig.h.ctx.config.config.services.export_limiter;
  assert.deepEqual({ mode, target_w }, { mode: 'off', target_w: -300 });
  assert.ok(
    rig.h.logLines.some(
      (line) => line.includes('services.export_limiter.target_w') && line.includes('refused'),
    ),
  );
});

test('switched off: the retained configs, state and settings are cleared; on again brings them back', async (t) => {
  const rig = await startRig(t);
  if (!rig) return;
  rig.feed(-1000);
  await rig.subscriber.waitFor('a state', (m) => m.topic === STATE);
  await waitFor(
    'every config',
    () => configsOf(rig),
    (configs) => configs.size === ENTITIES.length,
  );
  assert.ok(rig.h.ctx.config.apply(new Map([['services.export_limiter.enabled', false]])).ok);
  await waitFor(
    'every config cleared',
    () => configsOf(rig),
    (configs) => configs.size === 0,
  );
  await waitFor(
    'no retained state',
    () => retained(rig.broker, [`${BASE}/#`]),
    (kept) => kept.length === 0,
  );
  assert.ok(rig.h.ctx.config.apply(new Map([['services.export_limiter.enabled', true]])).ok);
  await waitFor(
    'every config back',
    () => configsOf(rig),
    (configs) => configs.size === ENTITIES.length,
  );
});
