import { applied } from '../helpers/config-writes.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { tempDir } from '../helpers/temp-dir.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

function adminFile(dir: string, content: unknown): string {
  const path = join(dir, 'config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function loadError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ConfigError');
}

test('defaults follow the device API and docs/architecture.md', () => {
  const store = ConfigStore.load({ env: {}, stateDir: tempDir('mg-config-') });
  const c = store.config;
  assert.equal(c.services.report_interval, 30);
  assert.equal(c.services.sd.frequency, 15);
  assert.equal(c.services.berry.run_delay, 300);
  assert.deepEqual(c.services.modbus, {
    enable: false,
    port: 502,
    profile: 'whatwatt',
    direction: 'import_positive',
    units: { '*': 'main' },
  });
  assert.deepEqual(c.services.modbus_rtu, {
    enable: false,
    device: '',
    baud: 9600,
    parity: 'none',
    stop_bits: 1,
    unit_id: 1,
    meter: 'main',
    profile: 'sdm630',
    direction: 'import_positive',
  });
  assert.deepEqual(c.meters, []);
  assert.equal(c.services.broadcast, true);
  assert.equal(c.system.protection, false);
  assert.equal(c.meter.source, 'simulator');
  assert.equal(c.modbus.layout, null);
  assert.equal(c.meter_proxy.port, 2000);
});

test('admin file: unknown key, wrong type and out-of-range value name key, value and rule', () => {
  const dir = tempDir('mg-config-');
  const unknown = loadError(() =>
    ConfigStore.load({ env: {}, configFile: adminFile(dir, { http: { prot: 1 } }) }),
  );
  assert.match(unknown.message, /http\.prot: unknown key/);

  const wrongType = loadError(() =>
    ConfigStore.load({ env: {}, configFile: adminFile(dir, { services: { report_interval: '30' } }) }),
  );
  assert.equal(wrongType.issues[0]?.field, 'services.report_interval');
  assert.match(
    wrongType.message,
    /services\.report_interval: must be an integer in 1\.\.3600: value was "30"/,
  );

  const range = loadError(() =>
    ConfigStore.load({ env: {}, configFile: adminFile(dir, { services: { sd: { frequency: 1441 } } }) }),
  );
  assert.match(range.message, /services\.sd\.frequency: must be an integer in 1\.\.1440: value was 1441/);

  const notJson = loadError(() => ConfigStore.load({ env: {}, configFile: adminFile(dir, '{ "http": ') }));
  assert.match(
    notJson.message,
    /not a valid JSON config file: line 1, column 11: Unexpected end of JSON input/,
  );

  // A comma too many, the usual slip of an edited file: the line and column of the character after it.
  const trailing = loadError(() =>
    ConfigStore.load({
      env: {},
      configFile: adminFile(dir, '{\n  "http": { "port": 8081 },\n  "log": { "level": "info" },\n}\n'),
    }),
  );
  assert.match(
    trailing.message,
    /not a valid JSON config file: line 4, column 1: Expected double-quoted property name$/m,
  );
  const missingComma = loadError(() =>
    ConfigStore.load({
      env: {},
      configFile: adminFile(dir, '{\n  "http": { "port": 8081 }\n  "log": {}\n}'),
    }),
  );
  assert.match(missingComma.message, /line 3, column 3: Expected ',' or '}' after property value/);
});

test('environment overrides every key and is validated like the file', () => {
  const store = ConfigStore.load({
    env: {
      METER_GATEWAY_HTTP_PORT: '8081',
      METER_GATEWAY_METER_SOURCE: 'tcp://127.0.0.1:2000',
      METER_GATEWAY_SYSTEM_PROTECTION: 'true',
    },
    stateDir: tempDir('mg-config-'),
  });
  assert.equal(store.config.http.port, 8081);
  assert.equal(store.config.meter.source, 'tcp://127.0.0.1:2000');
  assert.equal(store.config.system.protection, true);

  const bad = loadError(() =>
    ConfigStore.load({ env: { METER_GATEWAY_HTTP_PORT: 'eighty' }, stateDir: tempDir('mg-config-') }),
  );
  assert.match(
    bad.message,
    /^environment: http\.port: must be an integer in 0\.\.65535: value was "eighty"$/,
  );
  const unknown = loadError(() =>
    ConfigStore.load({ env: { METER_GATEWAY_NOPE: '1' }, stateDir: tempDir('mg-config-') }),
  );
  assert.match(unknown.message, /METER_GATEWAY_NOPE: unknown METER_GATEWAY_\* variable/);
});

test('API writes are validated, persisted atomically only when changed, secrets 0600, admin file untouched', async () => {
  const dir = tempDir('mg-config-');
  const state = join(dir, 'state');
  const configFile = adminFile(dir, { system: { name: 'from-admin' } });
  const before = readFileSync(configFile, 'utf8');
  const store = ConfigStore.load({ env: {}, configFile, stateDir: state });
  const changes: string[][] = [];
  store.on('change', (paths) => changes.push([...paths]));

  const invalid = store.apply(
    new Map<string, unknown>([
      ['services.report_interval', 0],
      ['system.name', 'x'.repeat(32)],
      ['system.protection', true],
    ]),
  );
  assert.equal(invalid.ok, false);
  assert.deepEqual(!invalid.ok && invalid.issues.map((i) => i.field).sort(), [
    'services.report_interval',
    'system.name',
    'system.password',
  ]);
  assert.equal(store.config.system.protection, false, 'nothing applied when any value is invalid');
  assert.deepEqual(readdirSync(dir), ['config.json'], 'nothing written on a rejected change');

  const ok = store.apply(
    new Map<string, unknown>([
      ['services.report_interval', 10],
      ['system.password', 'secret'],
    ]),
  );
  assert.deepEqual(await applied(ok), {
    ok: true,
    changed: ['services.report_interval', 'system.password'],
    failed: [],
  });
  assert.deepEqual(changes, [['services.report_interval', 'system.password']]);
  assert.equal(store.config.services.report_interval, 10);
  const settings = JSON.parse(readFileSync(join(state, 'settings.json'), 'utf8')) as Record<string, unknown>;
  assert.deepEqual(settings, { services: { report_interval: 10 } });
  assert.equal(statSync(join(state, 'secrets.json')).mode & 0o777, 0o600);
  assert.doesNotMatch(readFileSync(join(state, 'settings.json'), 'utf8'), /secret/);

  const mtime = statSync(join(state, 'settings.json')).mtimeMs;
  const again = store.apply(new Map<string, unknown>([['services.report_interval', 10]]));
  assert.deepEqual(await applied(again), { ok: true, changed: [], failed: [] });
  assert.equal(statSync(join(state, 'settings.json')).mtimeMs, mtime, 'unchanged content is not rewritten');
  assert.equal(changes.length, 1);
  assert.equal(readFileSync(configFile, 'utf8'), before, 'the admin file is never rewritten');

  const reloaded = ConfigStore.load({ env: {}, configFile, stateDir: state });
  assert.equal(reloaded.config.services.report_interval, 10);
  assert.equal(reloaded.config.system.password, 'secret');
  assert.equal(reloaded.config.system.name, 'from-admin');
});

test('daemon-only keys cannot be written through the API', () => {
  const store = ConfigStore.load({ env: {}, stateDir: tempDir('mg-config-') });
  const result = store.apply(new Map<string, unknown>([['http.port', 1234]]));
  assert.deepEqual(result, {
    ok: false,
    issues: [{ field: 'http.port', message: 'not writable through the API' }],
  });
});

test('a corrupt or invalid state file is moved aside and its section falls back to defaults', () => {
  const state = tempDir('mg-config-');
  writeFileSync(join(state, 'settings.json'), '{"services": {"report_interval": 12');
  writeFileSync(join(state, 'mqtt.json'), JSON.stringify({ mqtt: { publish: { qos: 7 } } }));
  writeFileSync(join(state, 'wifi.json'), JSON.stringify({ wifi: { sta: { name: 'home' } } }));
  const store = ConfigStore.load({ env: {}, stateDir: state });
  assert.equal(store.config.services.report_interval, 30);
  assert.equal(store.config.mqtt.publish.qos, 0);
  assert.equal(store.config.wifi.sta.name, 'home', 'valid files still apply');
  assert.deepEqual(store.problems.map((p) => p.file).sort(), ['mqtt', 'settings']);
  const names = readdirSync(state).sort();
  assert.ok(
    names.some((n) => /^settings\.json\.corrupt-/.test(n)),
    names.join(','),
  );
  assert.ok(
    names.some((n) => /^mqtt\.json\.corrupt-/.test(n)),
    names.join(','),
  );
  assert.ok(!names.includes('settings.json'));
});

test('an API write to a key the environment sets applies while running; the environment wins again at start', async () => {
  const state = tempDir('mg-config-');
  const env = { METER_GATEWAY_SERVICES_METER_PROXY: 'true' };
  const store = ConfigStore.load({ env, stateDir: state });
  assert.equal(store.config.services.meter_proxy, true);
  assert.deepEqual(await applied(store.apply(new Map([['services.meter_proxy', false]]))), {
    ok: true,
    changed: ['services.meter_proxy'],
    failed: [],
  });
  assert.equal(store.config.services.meter_proxy, false);
  assert.equal(ConfigStore.load({ env, stateDir: state }).config.services.meter_proxy, true);
});
