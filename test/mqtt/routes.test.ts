import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { createMqttService, type MqttService } from '../../src/mqtt/publisher.js';
import { MQTT_SETTINGS_PATH, registerMqttRoutes } from '../../src/http/routes/mqtt.js';
import { runOutput } from '../../src/output-runner.js';
import { parseBrokerUrl } from '../../src/mqtt/connection-options.js';
import { freePort, startMosquitto } from './mosquitto-broker.js';
import { waitForStatus } from './mqtt-context.js';
import { createTestPki, type TestPki } from './test-certificates.js';

interface Api {
  http: HttpTestContext;
  service: MqttService;
  call(method: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
}

async function startApi(t: TestContext, env: Record<string, string> = {}): Promise<Api> {
  let service: MqttService | undefined;
  const http = await startHttpContext({
    env,
    routes: (router, ctx) => {
      service = createMqttService(ctx);
      registerMqttRoutes(router, ctx, service);
    },
  });
  const running = runOutput(http.ctx, service!);
  await running.start();
  t.after(async () => {
    await running.stop();
    await http.close();
  });
  const call = async (method: string, body?: unknown) => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const response = await fetch(`${http.baseUrl}${MQTT_SETTINGS_PATH}`, init);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { http, service: service!, call };
}

let pkiCache: TestPki | undefined;
function pki(t: TestContext): TestPki | undefined {
  if (!requireCommand(t, 'openssl')) return undefined;
  if (!pkiCache) {
    const dir = mkdtempSync(join(tmpdir(), 'meter-gateway-pem-'));
    pkiCache = createTestPki(dir);
    rmSync(dir, { recursive: true, force: true });
  }
  return pkiCache;
}

test('mqtt settings: GET shows lengths instead of secrets', async (t) => {
  const api = await startApi(t, {
    METER_GATEWAY_MQTT_PASSWORD: 'sekrät',
    METER_GATEWAY_MQTT_CLIENT_KEY_PASSWORD: 'pass',
  });
  const { status, body } = await api.call('GET');
  assert.equal(status, 200);
  assert.deepEqual(body, {
    enable: false,
    url: '',
    username: '',
    password_len: 6,
    client_id: '',
    skip_cn_check: false,
    publish: {
      topic: 'meter-gateway/${sys.id}/report',
      template:
        '{"P_In":${1_7_0},"P_Out":${2_7_0},"E_In":${1_8_0},"E_Out":${2_8_0},"Sys":{"Id":"${sys.id}"}}',
      qos: 0,
      retain: false,
    },
    broker: { certificate: '' },
    client: { certificate: '', key_len: 0, key_password_len: 4 },
    key_len: 0,
    key_password_len: 4,
  });
});

test('mqtt settings: null deletes a stored secret; unknown fields are reported in details.ignored', async (t) => {
  const api = await startApi(t, { METER_GATEWAY_MQTT_PASSWORD: 'sekret' });
  const deleted = await api.call('PUT', { password: null, client: { key_password: null } });
  assert.equal(deleted.status, 200);
  assert.equal(deleted.body.password_len, 0);
  assert.equal(api.http.ctx.config.config.mqtt.password, '');
  assert.equal(deleted.body.details, undefined);
  const extra = await api.call('PUT', { username: 'u', colour: 'blue', publish: { rate: 5 }, key_len: 0 });
  assert.equal(extra.status, 200);
  assert.deepEqual(extra.body.details, { ignored: ['colour', 'publish.rate'] });
  assert.equal(api.http.ctx.config.config.mqtt.username, 'u');
});

test('mqtt settings: PUT is partial, POST replaces; secrets stay unless sent; a GET body can be sent back', async (t) => {
  const api = await startApi(t);
  const put = await api.call('PUT', {
    username: 'meter',
    password: 'pw1',
    publish: { topic: 'home/meter', qos: 1 },
  });
  assert.equal(put.status, 200);
  assert.equal(put.body.username, 'meter');
  assert.equal(put.body.password_len, 3);
  assert.deepEqual(put.body.publish, {
    topic: 'home/meter',
    template: (put.body.publish as { template: string }).template,
    qos: 1,
    retain: false,
  });
  assert.equal(api.http.ctx.config.config.mqtt.password, 'pw1');

  const roundTrip = await api.call('POST', put.body);
  assert.equal(roundTrip.status, 200);
  assert.deepEqual(roundTrip.body, put.body);
  assert.equal(api.http.ctx.config.config.mqtt.password, 'pw1', 'POST of a GET body keeps the password');

  const replaced = await api.call('POST', { username: 'other' });
  assert.equal(replaced.status, 200);
  assert.equal(
    (replaced.body.publish as { topic: string }).topic,
    'meter-gateway/${sys.id}/report',
    'absent field back to default',
  );
  assert.equal(replaced.body.password_len, 3);
  const cleared = await api.call('PUT', { password: '' });
  assert.equal(cleared.body.password_len, 0);
});

test('mqtt settings: invalid values answer 400 naming the field; nothing is stored', async (t) => {
  const api = await startApi(t);
  const cases: Array<[unknown, string]> = [
    [{ url: 'http://broker:1883' }, 'url'],
    [{ url: 'mqtts://user:pw@broker:8883' }, 'url'],
    [{ url: 'mqtt://broker:1883/path' }, 'url'],
    [{ url: 'mqtt://:1883' }, 'url'],
    [{ enable: true }, 'url'],
    [{ enable: 'yes' }, 'enable'],
    [{ publish: { qos: 3 } }, 'publish.qos'],
    [{ publish: { topic: 'meters/#' } }, 'publish.topic'],
    [{ publish: { topic: '' } }, 'publish.topic'],
    [{ publish: 'x' }, 'publish'],
    [{ broker: { certificate: 'garbage' } }, 'broker.certificate'],
    [
      { broker: { certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' } },
      'broker.certificate',
    ],
    [{ client: { certificate: 'nope' } }, 'client.certificate'],
    [[1, 2], ''],
  ];
  for (const [body, field] of cases) {
    const { status, body: error } = await api.call('PUT', body);
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(error.error, 'validation_failed');
    assert.equal(
      (error.details as { field: string }).field,
      field,
      `${JSON.stringify(body)}: ${String(error.message)}`,
    );
    if (field !== '') assert.match(String(error.message), new RegExp(`^${field.replace('.', '\\.')}: `));
  }
  assert.deepEqual((await api.call('GET')).body.url, '');
  const leaked = await api.call('PUT', { url: 'mqtts://user:hunter2@broker:8883' });
  assert.equal(JSON.stringify(leaked.body).includes('hunter2'), false, 'a rejected URL is not echoed');
});

test('mqtt settings: PEM material is checked with node:crypto', async (t) => {
  const material = pki(t);
  if (!material) return;
  const api = await startApi(t);
  const expectField = async (body: unknown, field: string) => {
    const { status, body: error } = await api.call('PUT', body);
    assert.equal(status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal((error.details as { field: string }).field, field, String(error.message));
  };
  await expectField({ client: { certificate: material.clientCertPem, key: 'not a key' } }, 'client.key');
  await expectField(
    { client: { certificate: material.clientCertPem, key: material.clientKeyEncryptedPem } },
    'client.key_password',
  );
  await expectField(
    {
      client: {
        certificate: material.clientCertPem,
        key: material.clientKeyEncryptedPem,
        key_password: 'wrong',
      },
    },
    'client.key_password',
  );
  await expectField({ client: { certificate: material.caPem, key: material.clientKeyPem } }, 'client.key');
  await expectField({ client: { certificate: material.clientCertPem } }, 'client.key');
  await expectField({ client: { key: material.clientKeyPem } }, 'client.certificate');

  const ok = await api.call('PUT', {
    broker: { certificate: material.caPem + material.otherCaPem },
    client: {
      certificate: material.clientCertPem,
      key: material.clientKeyEncryptedPem,
      key_password: material.passphrase,
    },
  });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const client = ok.body.client as Record<string, unknown>;
  assert.equal(client.certificate, material.clientCertPem);
  assert.equal(client.key_len, [...material.clientKeyEncryptedPem].length);
  assert.equal(client.key_password_len, material.passphrase.length);
  assert.equal('key' in client, false);
});

test('mqtt settings: a body over 8 kB answers 413', async (t) => {
  const api = await startApi(t);
  const overhead = JSON.stringify({ publish: { template: '' } }).length;
  const fits = await api.call('PUT', { publish: { template: 'x'.repeat(8192 - overhead) } });
  assert.equal(fits.status, 200);
  const tooLarge = await api.call('PUT', { publish: { template: 'x'.repeat(8193 - overhead) } });
  assert.equal(tooLarge.status, 413);
  assert.equal(tooLarge.body.error, 'payload_too_large');
});

test('mqtt settings: an accepted POST starts a connection attempt at once', async (t) => {
  if (!requireCommand(t, 'mosquitto')) return;
  const broker = await startMosquitto();
  t.after(() => broker.stop());
  const api = await startApi(t);
  assert.equal(api.http.ctx.services.get('mqtt')!.state, 'disabled');
  const enabled = await api.call('POST', { enable: true, url: broker.url });
  assert.equal(enabled.status, 200);
  assert.match(String(api.http.ctx.services.get('mqtt')!.link), /^(connecting|connected)$/);
  await waitForStatus(api.http.ctx, 'connected', (s) => s.link === 'connected');

  // Broker gone: the publisher waits out its backoff; a POST (even of the same settings) does not.
  const closed = `mqtt://127.0.0.1:${await freePort()}`;
  assert.equal((await api.call('PUT', { url: closed })).status, 200);
  await waitForStatus(
    api.http.ctx,
    'waiting to retry',
    (s) => s.state === 'retrying' && s.retry_in_ms !== undefined,
  );
  assert.equal((await api.call('POST', { enable: true, url: closed })).status, 200);
  const now = api.http.ctx.services.get('mqtt')!;
  assert.equal(now.link, 'connecting');
  assert.equal(now.attempts, 0, 'backoff restarts');
});

test('mqtt settings: a broker URL without a port is accepted and means 1883 / 8883', () => {
  assert.deepEqual(parseBrokerUrl('mqtt://192.168.1.101'), {
    ok: true,
    address: { secure: false, host: '192.168.1.101', port: 1883 },
  });
  assert.deepEqual(parseBrokerUrl('mqtts://broker.example'), {
    ok: true,
    address: { secure: true, host: 'broker.example', port: 8883 },
  });
  assert.deepEqual(parseBrokerUrl('mqtt://[::1]:1884'), {
    ok: true,
    address: { secure: false, host: '::1', port: 1884 },
  });
});
