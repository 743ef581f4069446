import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { requireCommand } from '../helpers/environment.js';
import { createMqttService, type MqttService } from '../../src/mqtt/publisher.js';
import { freePort, startMosquitto, type MosquittoBroker } from './mosquitto-broker.js';
import {
  dsmrReading,
  mqttTestContext,
  publisherEnv,
  SYSTEM_ID,
  waitForStatus,
  type MqttTestContext,
} from './mqtt-context.js';
import { TestSubscriber } from './test-subscriber.js';
import { runOutput } from '../../src/output-runner.js';
import type { Service } from '../../src/service.js';

const REPORT_TOPIC = `meter-gateway/${SYSTEM_ID}/report`;
const DEVICE_TEMPLATE = '{"P_In": ${1_7_0}, "E_In": ${1_8_0}, "Sys": {"Id": "${sys.id}"}}';

interface Setup {
  broker: MosquittoBroker;
  context: MqttTestContext;
  service: MqttService;
  /** The service as the daemon runs it (settings changes reach it). */
  running: Service;
  subscriber: TestSubscriber;
}

async function setUp(
  t: TestContext,
  env: (broker: MosquittoBroker) => Record<string, string>,
  port?: number,
): Promise<Setup | undefined> {
  if (!requireCommand(t, 'mosquitto')) return undefined;
  const broker = await startMosquitto(port === undefined ? {} : { port });
  const subscriber = await TestSubscriber.connect(broker.url, ['meter-gateway/#', 'custom/#']);
  const context = mqttTestContext(env(broker));
  const service = createMqttService(context.ctx);
  const running = runOutput(context.ctx, service);
  t.after(async () => {
    await running.stop();
    await subscriber.close();
    await broker.stop();
    context.close();
  });
  await running.start();
  return { broker, context, service, running, subscriber };
}

test('publisher: the device template once per report_interval, valid JSON, never faster than readings', async (t) => {
  const setup = await setUp(t, (broker) =>
    publisherEnv(broker.url, { METER_GATEWAY_MQTT_PUBLISH_TEMPLATE: DEVICE_TEMPLATE }),
  );
  if (!setup) return;
  const { context, subscriber } = setup;
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  const t0 = Date.now();
  // Readings every 0.5 s with report_interval 1: every second reading is published.
  for (let i = 0; i <= 6; i++) context.ctx.store.ingest(dsmrReading(t0 + 500 * i, i));
  await subscriber.waitFor(
    'report of reading 6',
    (m) => m.topic === REPORT_TOPIC && JSON.parse(m.payload).P_In === 8.412,
  );
  const reports = subscriber
    .on(REPORT_TOPIC)
    .map((m) => JSON.parse(m.payload) as { P_In: number; E_In: number; Sys: { Id: string } });
  assert.deepEqual(
    reports.map((r) => r.P_In),
    [2.412, 4.412, 6.412, 8.412],
  );
  assert.deepEqual(reports[0], { P_In: 2.412, E_In: 18734.512, Sys: { Id: SYSTEM_ID } });
  assert.equal(
    subscriber.on(REPORT_TOPIC)[0]!.payload,
    '{"P_In": 2.412, "E_In": 18734.512, "Sys": {"Id": "ECC9FF5C7F14"}}',
  );
});

test('publisher: QoS and retain come from publish.qos and publish.retain', async (t) => {
  const setup = await setUp(t, (broker) =>
    publisherEnv(broker.url, {
      METER_GATEWAY_MQTT_PUBLISH_QOS: '1',
      METER_GATEWAY_MQTT_PUBLISH_RETAIN: 'true',
    }),
  );
  if (!setup) return;
  const { broker, context, subscriber } = setup;
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  context.ctx.store.ingest(dsmrReading(Date.now(), 1));
  const live = await subscriber.waitFor('report', (m) => m.topic === REPORT_TOPIC);
  assert.equal(live.qos, 1);
  assert.equal(live.retain, false, 'a live delivery carries retain 0 (MQTT 3.1.1 §3.3.1.3)');
  const late = await TestSubscriber.connect(broker.url, [REPORT_TOPIC]);
  t.after(() => late.close());
  const retained = await late.waitFor('retained report', (m) => m.topic === REPORT_TOPIC);
  assert.equal(retained.retain, true);
  assert.equal(retained.qos, 1);
  assert.equal(retained.payload, live.payload);
});

test('publisher: license FREE keeps MQTT stopped although the settings are accepted', async (t) => {
  const setup = await setUp(t, (broker) => publisherEnv(broker.url, { METER_GATEWAY_LICENSE_TYPE: 'FREE' }));
  if (!setup) return;
  const { context, subscriber } = setup;
  context.ctx.store.ingest(dsmrReading(Date.now(), 1));
  await subscriber.sync();
  assert.deepEqual(
    subscriber.messages.filter((m) => !m.topic.startsWith('test/')),
    [],
  );
  const status = context.ctx.services.get('mqtt')!;
  assert.equal(status.state, 'blocked');
  assert.match(String(status.reason), /FREE/);
});

test('publisher: offline queue delivered in order once a live settings change points at a reachable broker', async (t) => {
  const closedPort = await freePort();
  const setup = await setUp(t, () => publisherEnv(`mqtt://127.0.0.1:${closedPort}`));
  if (!setup) return;
  const { broker, context, subscriber } = setup;
  const failing = await waitForStatus(
    context.ctx,
    'refused',
    (s) => s.state === 'retrying' && /ECONNREFUSED/.test(String(s.error)),
  );
  assert.ok(Number(failing.attempts) >= 1);
  const t0 = Date.now();
  for (let i = 0; i < 3; i++) context.ctx.store.ingest(dsmrReading(t0 + 1000 * i, i));
  await waitForStatus(context.ctx, '3 queued', (s) => s.queued === 3);

  const applied = context.ctx.config.apply(new Map([['mqtt.url', broker.url]]));
  assert.ok(applied.ok);
  await subscriber.waitFor(
    'third queued report',
    (m) => m.topic === REPORT_TOPIC && JSON.parse(m.payload).P_In === 4.412,
  );
  assert.deepEqual(
    subscriber.on(REPORT_TOPIC).map((m) => JSON.parse(m.payload).P_In),
    [2.412, 3.412, 4.412],
  );
  const connected = await waitForStatus(
    context.ctx,
    'connected',
    (s) => s.link === 'connected' && s.queued === 0,
  );
  assert.equal(connected.error, undefined, 'a successful connect clears the last error');

  const changed = context.ctx.config.apply(
    new Map<string, unknown>([
      ['mqtt.publish.topic', 'custom/${meter.id}'],
      ['mqtt.publish.template', 'P=${1_7_0};T=${tariff}'],
    ]),
  );
  assert.ok(changed.ok);
  context.ctx.store.ingest(dsmrReading(t0 + 5000, 7));
  const custom = await subscriber.waitFor('custom topic', (m) => m.topic === 'custom/E0047000123456789');
  assert.equal(custom.payload, 'P=9.412;T=2');
});

test('publisher: the offline queue is bounded; the oldest messages are dropped and counted', async (t) => {
  const closedPort = await freePort();
  const setup = await setUp(t, () =>
    publisherEnv(`mqtt://127.0.0.1:${closedPort}`, { METER_GATEWAY_MQTT_PUBLISH_TEMPLATE: '${1_7_0}' }),
  );
  if (!setup) return;
  const { broker, context, subscriber } = setup;
  const t0 = Date.now();
  for (let i = 0; i < 1005; i++) context.ctx.store.ingest(dsmrReading(t0 + 1000 * i, i));
  const full = await waitForStatus(context.ctx, 'full queue', (s) => s.queued === 1000);
  assert.equal(full.dropped, 5);
  assert.ok(context.ctx.config.apply(new Map([['mqtt.url', broker.url]])).ok);
  await subscriber.waitFor('last report', (m) => m.topic === REPORT_TOPIC && Number(m.payload) === 1006.412);
  const delivered = subscriber.on(REPORT_TOPIC).map((m) => Number(m.payload));
  assert.equal(delivered.length, 1000);
  assert.equal(delivered[0], 7.412, 'readings 0..4 were dropped');
});

test('publisher: stop disconnects cleanly and closes the link', async (t) => {
  const setup = await setUp(t, (broker) => publisherEnv(broker.url));
  if (!setup) return;
  const { context, running, service, subscriber } = setup;
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  await running.stop();
  assert.equal(service.linkStatus(), undefined, 'the link is closed');
  context.ctx.store.ingest(dsmrReading(Date.now(), 1));
  await subscriber.sync();
  assert.deepEqual(subscriber.on(REPORT_TOPIC), []);
});

/** Whether nothing listens on 127.0.0.1:port (so a test broker can take it). */
async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

test('publisher: a broker URL without a port (mqtt://127.0.0.1) connects on 1883, as the device accepts it', async (t) => {
  if (!(await portIsFree(1883))) {
    t.skip('127.0.0.1:1883 is taken by another program; the default-port connection cannot be shown here');
    return;
  }
  const setup = await setUp(t, () => publisherEnv('mqtt://127.0.0.1'), 1883);
  if (!setup) return;
  const { context, subscriber } = setup;
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  context.ctx.store.ingest(dsmrReading(Date.now(), 1));
  await subscriber.waitFor('a report through the default port', (m) => m.topic === REPORT_TOPIC);
});
