import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireCommand } from '../helpers/environment.js';
import type { ServiceStatus } from '../../src/context.js';
import { createMqttService } from '../../src/mqtt/publisher.js';
import { startMosquitto, type MosquittoBroker } from './mosquitto-broker.js';
import {
  dsmrReading,
  mqttTestContext,
  publisherEnv,
  SYSTEM_ID,
  waitForStatus,
  type MqttTestContext,
} from './mqtt-context.js';
import { createTestPki, type TestPki } from './test-certificates.js';
import { TestSubscriber } from './test-subscriber.js';
import { runOutput } from '../../src/output-runner.js';

const REPORT_TOPIC = `meter-gateway/${SYSTEM_ID}/report`;

interface TlsSetup {
  pki: TestPki;
  broker: MosquittoBroker;
  subscriber: TestSubscriber;
  /** mqtts:// URL of the TLS listener on `host` (127.0.0.1 is in the certificate, 127.0.0.2 is not). */
  url(host: '127.0.0.1' | '127.0.0.2'): string;
}

/** mosquitto with a plain listener (for the test's subscriber) and a TLS listener requiring client certificates. */
async function tlsBroker(t: TestContext): Promise<TlsSetup | undefined> {
  if (!requireCommand(t, 'mosquitto') || !requireCommand(t, 'openssl')) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'meter-gateway-tls-'));
  const pki = createTestPki(dir);
  const broker = await startMosquitto({
    dir,
    tls: {
      hosts: ['127.0.0.1', '127.0.0.2'],
      caFile: pki.caFile,
      certFile: pki.serverCertFile,
      keyFile: pki.serverKeyFile,
      requireCertificate: true,
    },
  });
  const subscriber = await TestSubscriber.connect(broker.url, ['meter-gateway/#']);
  t.after(async () => {
    await subscriber.close();
    await broker.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { pki, broker, subscriber, url: (host) => `mqtts://${host}:${broker.tlsPort}` };
}

async function startGateway(t: TestContext, env: Record<string, string>): Promise<MqttTestContext> {
  const context = mqttTestContext(env);
  const service = createMqttService(context.ctx);
  const running = runOutput(context.ctx, service);
  t.after(async () => {
    await running.stop();
    context.close();
  });
  await running.start();
  return context;
}

function clientCertificateEnv(pki: TestPki): Record<string, string> {
  return {
    METER_GATEWAY_MQTT_BROKER_CERTIFICATE: pki.caPem,
    METER_GATEWAY_MQTT_CLIENT_CERTIFICATE: pki.clientCertPem,
    METER_GATEWAY_MQTT_CLIENT_KEY: pki.clientKeyEncryptedPem,
    METER_GATEWAY_MQTT_CLIENT_KEY_PASSWORD: pki.passphrase,
  };
}

test('tls: broker CA plus client certificate with an encrypted key; messages flow', async (t) => {
  const setup = await tlsBroker(t);
  if (!setup) return;
  const context = await startGateway(
    t,
    publisherEnv(setup.url('127.0.0.1'), clientCertificateEnv(setup.pki)),
  );
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  context.ctx.store.ingest(dsmrReading(Date.now(), 3));
  const report = await setup.subscriber.waitFor('report over TLS', (m) => m.topic === REPORT_TOPIC);
  assert.equal(JSON.parse(report.payload).P_In, 5.412);
});

test('tls: without a client certificate the broker refuses; the error is visible', async (t) => {
  const setup = await tlsBroker(t);
  if (!setup) return;
  const context = await startGateway(
    t,
    publisherEnv(setup.url('127.0.0.1'), { METER_GATEWAY_MQTT_BROKER_CERTIFICATE: setup.pki.caPem }),
  );
  const status = await waitForStatus(
    context.ctx,
    'refused',
    (s) => s.state === 'retrying' && typeof s.error === 'string',
  );
  assert.equal(status.connects, 0);
  assert.match(String(status.error), /certificate required|alert/i);
});

test('tls: host name mismatch fails; skip_cn_check skips only the host name check', async (t) => {
  const setup = await tlsBroker(t);
  if (!setup) return;
  const context = await startGateway(
    t,
    publisherEnv(setup.url('127.0.0.2'), clientCertificateEnv(setup.pki)),
  );
  const mismatch = await waitForStatus(context.ctx, 'host name error', (s) => typeof s.error === 'string');
  assert.match(String(mismatch.error), /127\.0\.0\.2|altnames|does not match/i);
  assert.equal(mismatch.connects, 0);

  assert.ok(context.ctx.config.apply(new Map([['mqtt.skip_cn_check', true]])).ok);
  await waitForStatus(context.ctx, 'connected with skip_cn_check', (s) => s.link === 'connected');
  context.ctx.store.ingest(dsmrReading(Date.now()));
  await setup.subscriber.waitFor('report', (m) => m.topic === REPORT_TOPIC);
});

test('tls: a wrong CA fails even with skip_cn_check; retries back off', async (t) => {
  const setup = await tlsBroker(t);
  if (!setup) return;
  const context = await startGateway(
    t,
    publisherEnv(setup.url('127.0.0.1'), {
      ...clientCertificateEnv(setup.pki),
      METER_GATEWAY_MQTT_BROKER_CERTIFICATE: setup.pki.otherCaPem,
      METER_GATEWAY_MQTT_SKIP_CN_CHECK: 'true',
    }),
  );
  const retries = new Map<number, number>();
  const third: ServiceStatus = await waitForStatus(context.ctx, 'three failed attempts', (s) => {
    if (s.state === 'retrying' && typeof s.retry_in_ms === 'number')
      retries.set(Number(s.attempts), s.retry_in_ms);
    return Number(s.attempts) >= 3 && s.retry_in_ms !== undefined;
  });
  assert.match(String(third.error), /self[- ]signed|unable to (get|verify)|certificate/i);
  assert.equal(third.connects, 0);
  const first = retries.get(1)!;
  const last = retries.get(3)!;
  assert.ok(first >= 500 && first <= 1000, `first retry after ${first} ms`);
  assert.ok(last >= 2000 && last <= 4000, `third retry after ${last} ms`);
});
