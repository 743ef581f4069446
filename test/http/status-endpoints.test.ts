import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerBackupRoutes } from '../../src/http/routes/backup.js';
import { registerLogRoute } from '../../src/http/routes/log.js';
import { registerMqttDiscoveryRoutes } from '../../src/http/routes/mqtt-discovery.js';
import { registerModbusRoutes } from '../../src/http/routes/modbus.js';
import { registerSerialPortsRoute } from '../../src/http/routes/serial-ports.js';
import type { LogView, SettingsBackup, SerialPortView } from '../../src/contracts/status.js';
import type { SystemView } from '../../src/contracts/system.js';
import { RecentLog } from '../../src/log-transports.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { SocatPty } from '../meter/transport/socat-pty.js';
import { tempDir } from '../meter/transport/meter-input-harness.js';
import { send } from './http-client.js';

registerConfigFormats();

const PASSWORD = 'backup-Secret-1';
const basic = { Authorization: `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}` };

async function withServer(
  fn: (server: HttpTestContext, recent: RecentLog) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const recent = new RecentLog(8);
  const server = await startHttpContext({
    env,
    routes: (router, ctx) => {
      ctx.logger.addTransport(recent);
      registerCoreRoutes(router, ctx);
      registerLogRoute(router, recent);
      registerBackupRoutes(router, ctx);
      registerSerialPortsRoute(router, ctx);
      registerMqttDiscoveryRoutes(router, ctx);
      registerModbusRoutes(router, ctx);
    },
  });
  try {
    await fn(server, recent);
  } finally {
    await server.close();
  }
}

function protect(server: HttpTestContext): void {
  const applied = server.ctx.config.apply(
    new Map<string, unknown>([
      ['system.protection', true],
      ['system.password', PASSWORD],
    ]),
  );
  assert.ok(applied.ok);
}

function fieldsOf(body: { details: { fields: Array<{ field: string }> } }): string[] {
  return body.details.fields.map((issue) => issue.field);
}

test('GET /api/v1/log answers the latest lines, filtered by level, bounded by the ring', async () => {
  await withServer(async ({ baseUrl, ctx }, recent) => {
    const meter = ctx.logger.child({ component: 'meter' });
    meter.info('opened /dev/ttyUSB0', { baud: 115200 });
    meter.warn('frame rejected (checksum)');
    ctx.logger.error('broker refused');
    const all = (await send(baseUrl, 'GET', '/api/v1/log')).json() as LogView;
    const messages = all.lines.map((line) => line.message);
    assert.deepEqual(messages.slice(-3), [
      'opened /dev/ttyUSB0',
      'frame rejected (checksum)',
      'broker refused',
    ]);
    const opened = all.lines.find((line) => line.message === 'opened /dev/ttyUSB0')!;
    assert.equal(opened.component, 'meter');
    assert.deepEqual(opened.fields, { baud: 115200 });
    assert.equal(opened.level, 'info');
    assert.ok(!Number.isNaN(Date.parse(opened.time)));

    const warnings = (await send(baseUrl, 'GET', '/api/v1/log?level=warn')).json() as LogView;
    assert.deepEqual(
      warnings.lines.map((line) => line.message),
      ['frame rejected (checksum)', 'broker refused'],
    );
    const last = (await send(baseUrl, 'GET', '/api/v1/log?limit=1')).json() as LogView;
    assert.deepEqual(
      last.lines.map((line) => line.message),
      ['broker refused'],
    );

    for (let i = 0; i < 20; i++) ctx.logger.info(`line ${i}`);
    const bounded = (await send(baseUrl, 'GET', '/api/v1/log')).json() as LogView;
    assert.equal(bounded.capacity, 8);
    assert.equal(bounded.lines.length, 8);
    assert.equal(bounded.lines.at(-1)!.message, 'line 19');
    assert.equal(bounded.lines[0]!.message, 'line 12');
    assert.equal(bounded.total, recent.total);
  });
});

test('GET /api/v1/log: a bad level or limit is a 400 naming it; under protection it needs credentials', async () => {
  await withServer(async (server) => {
    const { baseUrl } = server;
    const level = await send(baseUrl, 'GET', '/api/v1/log?level=verbose');
    assert.equal(level.status, 400);
    assert.deepEqual(fieldsOf(level.json()), ['level']);
    const limit = await send(baseUrl, 'GET', '/api/v1/log?limit=0');
    assert.equal(limit.status, 400);
    assert.deepEqual(fieldsOf(limit.json()), ['limit']);
    protect(server);
    assert.equal((await send(baseUrl, 'GET', '/api/v1/log')).status, 401);
    assert.equal((await send(baseUrl, 'GET', '/api/v1/backup')).status, 401);
    assert.equal((await send(baseUrl, 'GET', '/api/v1/serial/ports')).status, 401);
    assert.equal((await send(baseUrl, 'GET', '/api/v1/modbus/table')).status, 401);
    assert.equal((await send(baseUrl, 'GET', '/api/v1/mqtt/discovery')).status, 401);
    const allowed = await send(baseUrl, 'GET', '/api/v1/log', { headers: basic });
    assert.equal(allowed.status, 200);
  });
});

test('GET /api/v1/system keeps the device fields and adds runtime: version, uptime, memory, addresses', async () => {
  await withServer(async ({ baseUrl }) => {
    const system = (await send(baseUrl, 'GET', '/api/v1/system')).json() as SystemView;
    assert.equal(system.device.id, 'A1B2C3D4E5F6');
    assert.ok(system.runtime.memory.rss_bytes > 0);
    assert.ok(system.runtime.memory.heap_used_bytes > 0);
    assert.ok(system.runtime.uptime_s >= 0);
    assert.match(system.runtime.version, /^\d+\.\d+\.\d+/);
    assert.equal(system.runtime.node, process.version);
    for (const address of system.runtime.addresses) {
      assert.ok(address.family === 'IPv4' || address.family === 'IPv6');
      assert.notEqual(address.address, '127.0.0.1');
    }
  });
});

test('backup: secrets only on request and marked; restore round trip; a bad file changes nothing', async () => {
  await withServer(async (server) => {
    const { baseUrl, ctx, stateDir } = server;
    const set = ctx.config.apply(
      new Map<string, unknown>([
        ['system.name', 'garage'],
        ['mqtt.url', 'mqtt://127.0.0.2:1883'],
        ['mqtt.password', 'broker-pass'],
        ['services.report_interval', 12],
      ]),
    );
    assert.ok(set.ok);
    const plain = await send(baseUrl, 'GET', '/api/v1/backup');
    assert.equal(plain.status, 200);
    assert.match(
      String(plain.headers['content-disposition']),
      /attachment; filename="meter-gateway-settings-/,
    );
    const withoutSecrets = plain.json() as SettingsBackup;
    assert.equal(withoutSecrets.secrets_included, false);
    assert.equal(plain.text.includes('broker-pass'), false);
    const full = (await send(baseUrl, 'GET', '/api/v1/backup?secrets=true')).json() as SettingsBackup;
    assert.equal(full.secrets_included, true);
    const fullMqtt = full.settings.mqtt as { password: string; url: string };
    assert.equal(fullMqtt.password, 'broker-pass');
    assert.equal((await send(baseUrl, 'GET', '/api/v1/backup?secrets=yes')).status, 400);

    // Change everything, then restore the file: the settings are back, secrets included.
    const changed = ctx.config.apply(
      new Map<string, unknown>([
        ['system.name', 'other'],
        ['mqtt.url', ''],
        ['mqtt.password', 'changed'],
        ['services.report_interval', 60],
      ]),
    );
    assert.ok(changed.ok);
    const restore = (body: unknown) =>
      send(baseUrl, 'POST', '/api/v1/backup', {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const restored = await restore(full);
    assert.equal(restored.status, 200, restored.text);
    assert.equal(ctx.config.config.system.name, 'garage');
    assert.equal(ctx.config.config.mqtt.url, 'mqtt://127.0.0.2:1883');
    assert.equal(ctx.config.config.mqtt.password, 'broker-pass');
    assert.equal(ctx.config.config.services.report_interval, 12);

    // A file without secrets leaves the stored password as it is.
    assert.ok(ctx.config.apply(new Map([['mqtt.password', 'kept']])).ok);
    assert.equal((await restore(withoutSecrets)).status, 200);
    assert.equal(ctx.config.config.mqtt.password, 'kept');

    const before = readFileSync(join(stateDir, 'settings.json'), 'utf8');
    const bad = structuredClone(full);
    (bad.settings.system as Record<string, unknown>).name = 'renamed';
    (bad.settings.services as Record<string, unknown>).report_interval = 0;
    (bad.settings as Record<string, unknown>).colour = 'blue';
    const refused = await restore(bad);
    assert.equal(refused.status, 400);
    assert.deepEqual(fieldsOf(refused.json()).sort(), ['colour']);
    delete (bad.settings as Record<string, unknown>).colour;
    const invalid = await restore(bad);
    assert.equal(invalid.status, 400);
    assert.deepEqual(fieldsOf(invalid.json()), ['services.report_interval']);
    assert.equal(ctx.config.config.system.name, 'garage');
    assert.equal(readFileSync(join(stateDir, 'settings.json'), 'utf8'), before);
    const notBackup = await restore({ system: { name: 'x' } });
    assert.equal(notBackup.status, 400);
    // The envelope's contract names every field a backup file needs and this body lacks.
    assert.deepEqual(fieldsOf(notBackup.json()), ['format', 'version', 'settings']);
    const daemonOnly = await restore({ ...full, settings: { http: { port: 81 } } });
    assert.equal(daemonOnly.status, 400);
    assert.deepEqual(fieldsOf(daemonOnly.json()), ['http.port']);
  });
});

test('GET /api/v1/serial/ports lists the by-id links, ttyUSB* and ttyACM* under paths.devices', async (t) => {
  if (!requireCommand(t, 'socat')) return;
  const devices = tempDir('mg-dev-');
  const pty = new SocatPty(devices);
  await pty.start();
  t.after(async () => {
    await pty.stop();
    rmSync(devices, { recursive: true, force: true });
  });
  symlinkSync(pty.hostPath, join(devices, 'ttyUSB0'));
  symlinkSync(pty.meterPath, join(devices, 'ttyACM3'));
  mkdirSync(join(devices, 'serial', 'by-id'), { recursive: true });
  symlinkSync('../../ttyUSB0', join(devices, 'serial', 'by-id', 'usb-FTDI_FT232R_A1B2-if00-port0'));
  symlinkSync('../../ttyUSB9', join(devices, 'serial', 'by-id', 'usb-unplugged-if00-port0'));
  await withServer(
    async ({ baseUrl }) => {
      const { ports } = (await send(baseUrl, 'GET', '/api/v1/serial/ports')).json() as {
        ports: SerialPortView[];
      };
      assert.deepEqual(
        ports.map(({ path, kind }) => ({ path, kind })),
        [
          { path: join(devices, 'serial', 'by-id', 'usb-FTDI_FT232R_A1B2-if00-port0'), kind: 'by-id' },
          { path: join(devices, 'ttyACM3'), kind: 'acm' },
          { path: join(devices, 'ttyUSB0'), kind: 'usb' },
        ],
      );
      assert.match(ports[0]!.target!, /^\/dev\/pts\/\d+$/);
    },
    { METER_GATEWAY_PATHS_DEVICES: devices },
  );
});

test('/api/v1/mqtt/discovery sets discovery.enable and state_interval; a bad value is a 400 naming it', async () => {
  await withServer(async (server) => {
    const { baseUrl, ctx, stateDir } = server;
    const put = (body: unknown, headers: Record<string, string> = {}) =>
      send(baseUrl, 'PUT', '/api/v1/mqtt/discovery', {
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    assert.deepEqual((await send(baseUrl, 'GET', '/api/v1/mqtt/discovery')).json(), {
      enable: true,
      state_interval: 10,
    });
    const changed = await put({ enable: false, state_interval: 60 });
    assert.equal(changed.status, 200, changed.text);
    assert.deepEqual(changed.json(), { enable: false, state_interval: 60 });
    assert.equal(ctx.config.config.mqtt.discovery.enable, false);
    assert.equal(ctx.config.config.mqtt.discovery.state_interval, 60);
    const stored = JSON.parse(readFileSync(join(stateDir, 'mqtt.json'), 'utf8')) as {
      mqtt: { discovery: unknown };
    };
    assert.deepEqual(stored.mqtt.discovery, { enable: false, state_interval: 60 });

    const bad = await put({ state_interval: 4000 });
    assert.equal(bad.status, 400);
    assert.deepEqual(fieldsOf(bad.json()), ['mqtt.discovery.state_interval']);
    const prefix = await put({ prefix: 'elsewhere' });
    assert.deepEqual(prefix.json().details, { ignored: ['prefix'] });
    assert.equal(ctx.config.config.mqtt.discovery.prefix, 'homeassistant');
    protect(server);
    assert.equal((await put({ enable: true })).status, 401);
    assert.equal((await put({ enable: true }, basic)).status, 200);
  });
});
