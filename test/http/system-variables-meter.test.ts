import { test } from 'node:test';
import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { dateTimes } from '../../src/reading/time-format.js';
import { registerCoreRoutes, type CoreRouteDeps } from '../../src/http/server.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';
import { send, sendJsonBody } from './http-client.js';

async function withServer(
  fn: (server: HttpTestContext) => Promise<void>,
  deps: CoreRouteDeps = {},
): Promise<void> {
  const server = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx, deps) });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

test('GET /api/v1/system shows device, meter, wifi, service states and counters from the running context', () =>
  withServer(
    async ({ baseUrl, ctx, clock }) => {
      // Frozen, so the device date and time the answer carries are the ones computed below.
      clock.freeze();
      ctx.services.set('modbus', { state: 'running', port: 5020 });
      ctx.services.set('mqtt', { state: 'retrying', error: 'ECONNREFUSED', link: 'disconnected' });
      ctx.store.ingest(syntheticReading(clock.now()));
      ctx.store.reject('crc');
      const body = (await send(baseUrl, 'GET', '/api/v1/system')).json();
      const local = (ms: number) => dateTimes(ms).date_time_local.slice(0, 19).split('T');
      assert.deepEqual(body.device, {
        name: 'meter-gateway',
        host_name: 'meter-gateway',
        id: 'A1B2C3D4E5F6',
        model: 'meter-gateway',
        firmware: '0.1.0-test',
        build: 'source',
        upgrade_capable: false,
        date: local(clock.now())[0],
        time: local(clock.now())[1],
        boot_id: ctx.system.bootId,
        time_since_boot: Math.round((clock.now() - ctx.system.bootTime) / 1000),
        last_reboot: { date: local(ctx.system.bootTime)[0], time: local(ctx.system.bootTime)[1] },
        license: { type: 'PRO', activation_date: '' },
      });
      // The fields the Homey and GridLoad apps read (the device's /api/v1/system documentation).
      assert.equal(body.meter.manufacturer, 'Iskraemeco');
      assert.equal(body.meter.type, 'AM550-TD2');
      assert.equal(body.meter.tariff, 2);
      assert.deepEqual(body.services.berry, { state: 'IDLE', execution_status: { state: 'IDLE' } });
      assert.equal(body.meter.status, 'OK');
      assert.equal(body.meter.interface, 'SIMULATOR');
      assert.equal(body.meter.protocol, 'DSMR');
      assert.equal(body.meter.id, 'E0047000123456789');
      assert.deepEqual(body.wifi, { ssid: 'HomeNet', ip: '192.0.2.7', rssi: -61 });
      assert.equal(body.services.modbus.state, 'running');
      assert.equal(body.services.mqtt.error, 'ECONNREFUSED');
      assert.equal(body.services.http.state, 'running');
      assert.equal(body.counters.framesOk, 1);
      assert.equal(body.counters.crcErrors, 1);
    },
    { wifiInfo: async () => ({ ssid: 'HomeNet', ip: '192.0.2.7', rssi: -61 }) },
  ));

test('/api/v1/system: wifi.mask mirrors the netmask; meter.report_interval is the measured cadence', () =>
  withServer(
    async ({ baseUrl, ctx, clock }) => {
      // A frozen clock: the two readings are exactly 1.5 s apart.
      clock.freeze();
      ctx.store.ingest(syntheticReading(clock.now()));
      clock.advance(1500);
      ctx.store.ingest(syntheticReading(clock.now()));
      const body = (await send(baseUrl, 'GET', '/api/v1/system')).json();
      assert.equal(body.wifi.mask, '255.255.255.0');
      assert.equal(body.meter.report_interval, 1.5);
    },
    { wifiInfo: async () => ({ ssid: 'HomeNet', ip: '192.0.2.7', netmask: '255.255.255.0' }) },
  ));

test('without a Wi-Fi backend, wifi.ip is the first non-internal IPv4 address of the host', () =>
  withServer(async ({ baseUrl }) => {
    const expected =
      Object.values(networkInterfaces())
        .flat()
        .find((address) => address && address.family === 'IPv4' && !address.internal)?.address ?? '';
    const { wifi } = (await send(baseUrl, 'GET', '/api/v1/system')).json();
    assert.equal(wifi.ssid, '');
    assert.equal(wifi.ip, expected);
  }));

/**
 * The device's shape: an array of one-pair objects, every name once. Returned as one object, for
 * the assertions by name.
 */
function variablesOf(answer: { json(): unknown }): Record<string, unknown> {
  const pairs = answer.json() as Record<string, unknown>[];
  assert.ok(Array.isArray(pairs), 'an array');
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const entries = Object.entries(pair);
    assert.equal(entries.length, 1, `one pair per object: ${JSON.stringify(pair)}`);
    const [name, value] = entries[0]!;
    assert.equal(Object.hasOwn(out, name), false, `${name} listed twice`);
    out[name] = value;
  }
  return out;
}

test('GET /api/v1/variables lists every template variable with its value as a string', () =>
  withServer(
    async ({ baseUrl, ctx, clock }) => {
      const before = variablesOf(await send(baseUrl, 'GET', '/api/v1/variables'));
      assert.equal(before['1_8_0'], 'null');
      assert.equal(before['meter.status'], 'NOT CONNECTED');
      ctx.store.ingest(syntheticReading(clock.now()));
      const vars = variablesOf(await send(baseUrl, 'GET', '/api/v1/variables'));
      for (const value of Object.values(vars)) assert.equal(typeof value, 'string');
      assert.equal(vars['1_8_1'], '9811.204');
      assert.equal(vars['1_8_0'], '18734.512');
      assert.equal(vars['energy.in'], '18734.512');
      assert.equal(vars['s31_7_0'], '4.31');
      assert.equal(vars['tariff'], '2');
      assert.equal(vars['conv_factor'], '1');
      assert.equal(vars['sys.id'], 'A1B2C3D4E5F6');
      assert.equal(vars['wifi.ssid'], 'HomeNet');
      assert.equal(vars['vol[0].cumulative'], '4521.338');
      assert.equal(vars['13_7_0'], 'null');
    },
    { wifiInfo: () => ({ ssid: 'HomeNet', ip: '192.0.2.7' }) },
  ));

test('meter settings: GET shows key_len, never the key; PUT merges, persists and validates', () =>
  withServer(async ({ baseUrl, ctx }) => {
    assert.deepEqual((await send(baseUrl, 'GET', '/api/v1/meter/settings')).json(), {
      source: 'simulator',
      source_password_len: 0,
      conv_factor: 1,
      key_len: 0,
    });
    const changed: string[][] = [];
    ctx.config.on('change', (paths) => changed.push([...paths]));
    const key = '00112233445566778899AABBCCDDEEFF';
    const reply = await sendJsonBody(baseUrl, 'PUT', '/api/v1/meter/settings', {
      source: 'serial:/dev/ttyUSB0?protocol=dsmr&baud=115200',
      encryption_key: key,
    });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json(), {
      source: 'serial:/dev/ttyUSB0?protocol=dsmr&baud=115200',
      source_password_len: 0,
      conv_factor: 1,
      key_len: 32,
    });
    assert.doesNotMatch(reply.text, /AABBCC/);
    assert.equal(ctx.config.config.meter.encryption_key, key);
    assert.deepEqual(changed, [['meter.source', 'meter.encryption_key']]);

    const bad = await sendJsonBody(baseUrl, 'PUT', '/api/v1/meter/settings', {
      source: 'serial:ttyUSB0',
      conv_factor: -1,
      encryption_key: 'not-hex',
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad
        .json()
        .details.fields.map((issue: { field: string }) => issue.field)
        .sort(),
      ['meter.conv_factor', 'meter.encryption_key', 'meter.source'],
    );
    assert.doesNotMatch(bad.text, /not-hex/);
    assert.equal(ctx.config.config.meter.source, 'serial:/dev/ttyUSB0?protocol=dsmr&baud=115200');
  }));

test('a remote source password is cut out of GET and kept when the redacted URI comes back', () =>
  withServer(async ({ baseUrl, ctx }) => {
    const put = await sendJsonBody(baseUrl, 'PUT', '/api/v1/meter/settings', {
      source: 'http://:pw-remote@192.0.2.9/api/v1/live',
    });
    assert.equal(put.status, 200);
    const shown = put.json();
    assert.equal(shown.source, 'http://192.0.2.9/api/v1/live');
    assert.equal(shown.source_password_len, 9);
    assert.equal(
      (await sendJsonBody(baseUrl, 'PUT', '/api/v1/meter/settings', { ...shown, conv_factor: 3 })).status,
      200,
    );
    assert.equal(ctx.config.config.meter.source, 'http://:pw-remote@192.0.2.9/api/v1/live');
    assert.equal(ctx.config.config.meter.conv_factor, 3);
  }));

test('PUT /api/v1/meter/settings reports unknown fields in details.ignored; GET fields sent back are not', () =>
  withServer(async ({ baseUrl, ctx }) => {
    const reply = await sendJsonBody(baseUrl, 'PUT', '/api/v1/meter/settings', {
      conv_factor: 2,
      key_len: 0,
      source_password_len: 0,
      baud: 9600,
    });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json().details, { ignored: ['baud'] });
    assert.equal(ctx.config.config.meter.conv_factor, 2);
  }));
