import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import {
  addonConfig,
  ADDON_HTTP_PORT,
  ADDON_MODBUS_PORT,
  type AddonOptions,
} from '../../src/addon/options.js';
import { ConfigStore } from '../../src/config/config-store.js';
import { PROFILE_NAMES } from '../../src/modbus-protocol/profiles/catalogue.js';
import { repoRoot } from '../helpers/environment.js';
import { readYamlFile } from '../helpers/yaml.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

function readYaml(t: TestContext, name: string): Record<string, unknown> | undefined {
  return readYamlFile(t, join(repoRoot, name));
}

/** Add-on architectures the Supervisor knows (add-on configuration reference, `arch`). */
const ARCHES = ['armhf', 'armv7', 'aarch64', 'amd64', 'i386'];
const STARTUP = ['initialize', 'system', 'services', 'application', 'once'];

/** Whether `value` is acceptable for an add-on schema type (str, bool, int(min,max), list(a|b), ...). */
function matchesSchema(type: string, value: unknown): boolean {
  const bare = type.replace(/\?$/, '');
  const int = /^int(?:\((-?\d*),(-?\d*)\))?$/.exec(bare);
  if (int) {
    const [, min, max] = int;
    return (
      Number.isInteger(value) &&
      (min === undefined || min === '' || (value as number) >= Number(min)) &&
      (max === undefined || max === '' || (value as number) <= Number(max))
    );
  }
  const list = /^list\((.+)\)$/.exec(bare);
  if (list) return list[1]!.split('|').includes(value as string);
  if (bare === 'bool') return typeof value === 'boolean';
  if (['str', 'password', 'email'].includes(bare) || bare.startsWith('device'))
    return typeof value === 'string';
  if (bare === 'url') return typeof value === 'string' && URL.canParse(value);
  if (bare === 'port') return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535;
  throw new Error(`unknown add-on schema type ${type}`);
}

test('config.yaml has the keys, types and option schema Home Assistant requires of an add-on', (t) => {
  const config = readYaml(t, 'config.yaml');
  if (!config) return;
  for (const key of ['name', 'version', 'slug', 'description'])
    assert.equal(typeof config[key], 'string', key);
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal(config.version, manifest.version, 'add-on version follows package.json');
  assert.match(config.slug as string, /^[a-z0-9_]+$/);
  assert.ok(Array.isArray(config.arch) && config.arch.length > 0);
  for (const arch of config.arch as unknown[]) assert.ok(ARCHES.includes(arch as string), String(arch));
  assert.deepEqual([...(config.arch as string[])].sort(), ['aarch64', 'amd64']);
  assert.ok(STARTUP.includes(config.startup as string));
  assert.ok(['auto', 'manual'].includes(config.boot as string));
  for (const flag of ['uart', 'ingress', 'hassio_api']) assert.equal(config[flag], true, flag);
  assert.deepEqual(config.services, ['mqtt:want']);

  const ports = config.ports as Record<string, number | null>;
  for (const [port, host] of Object.entries(ports)) {
    assert.match(port, /^\d+\/(tcp|udp)$/);
    assert.ok(host === null || (Number.isInteger(host) && host > 0 && host < 65536), port);
    assert.equal(typeof (config.ports_description as Record<string, string>)[port], 'string', port);
  }
  assert.equal(config.ingress_port, ADDON_HTTP_PORT);
  assert.equal(ports[`${ADDON_HTTP_PORT}/tcp`], null, 'the HTTP port is offered, off by default');
  assert.equal(ports[`${ADDON_MODBUS_PORT}/tcp`], 502, 'Modbus inside on 5020, on the host on 502');

  const options = config.options as Record<string, unknown>;
  const schema = config.schema as Record<string, string>;
  for (const [key, value] of Object.entries(options)) {
    assert.ok(key in schema, `option ${key} has no schema entry`);
    assert.ok(matchesSchema(schema[key]!, value), `option ${key}=${String(value)} against ${schema[key]}`);
  }
  for (const [key, type] of Object.entries(schema)) {
    assert.ok(type.endsWith('?') || key in options, `required option ${key} has no default`);
  }
  // The lists offer exactly what the daemon accepts.
  assert.deepEqual(schema.modbus_profile, `list(${PROFILE_NAMES.join('|')})?`);
  assert.deepEqual(schema.modbus_rtu_profile!.slice(5, -2).split('|').sort(), [...PROFILE_NAMES].sort());
  assert.equal(schema.log_level, 'list(error|warn|info|debug)?');
});

test('build.yaml gives a BUILD_FROM for every architecture and the Dockerfile builds on it', (t) => {
  const config = readYaml(t, 'config.yaml');
  const build = readYaml(t, 'build.yaml');
  const repository = readYaml(t, 'repository.yaml');
  if (!config || !build || !repository) return;
  assert.equal(typeof repository.name, 'string');
  const from = build.build_from as Record<string, string>;
  assert.deepEqual(Object.keys(from).sort(), [...(config.arch as string[])].sort());
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  const firstFrom = dockerfile.search(/^FROM /m);
  assert.ok(
    dockerfile.slice(0, firstFrom).match(/^ARG BUILD_FROM=/m),
    'ARG BUILD_FROM before the first FROM',
  );
  assert.deepEqual(dockerfile.match(/^FROM .*$/gm), ['FROM ${BUILD_FROM} AS build', 'FROM ${BUILD_FROM}']);
  for (const arg of Object.keys((build.args ?? {}) as Record<string, string>)) {
    assert.match(dockerfile, new RegExp(`^ARG ${arg}=`, 'm'), `build.yaml arg ${arg} is declared`);
  }
  assert.ok(statSync(join(repoRoot, 'icon.png')).size > 0);
  assert.match(readFileSync(join(repoRoot, 'DOCS.md'), 'utf8'), /^# /);
});

const EVERY_OPTION: AddonOptions = {
  meter_source: 'serial:/dev/ttyUSB0?protocol=dsmr&baud=115200',
  protection: true,
  password: 'addon-secret',
  modbus_enable: true,
  modbus_profile: 'sdm630',
  modbus_rtu_enable: true,
  modbus_rtu_device: '/dev/ttyAMA0',
  modbus_rtu_baud: 19200,
  modbus_rtu_parity: 'even',
  modbus_rtu_unit_id: 7,
  modbus_rtu_profile: 'dtsu666',
  mqtt_url: 'mqtt://broker.lan:1884',
  mqtt_username: 'gateway',
  mqtt_password: 'mqtt-secret',
  log_level: 'debug',
};

function loadDaemonConfig(t: TestContext, config: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'mg-addon-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return ConfigStore.load({ configFile: file, stateDir: join(dir, 'state'), env: {} }).config;
}

test('every add-on option reaches the daemon config', (t) => {
  const config = loadDaemonConfig(t, addonConfig(EVERY_OPTION, undefined, 'a0d7b954_meter_gateway'));
  assert.equal(config.meter.source, EVERY_OPTION.meter_source);
  assert.equal(config.system.protection, true);
  assert.equal(config.system.password, 'addon-secret');
  assert.deepEqual([config.services.modbus.enable, config.services.modbus.profile], [true, 'sdm630']);
  const rtu = config.services.modbus_rtu;
  assert.deepEqual(
    [rtu.enable, rtu.device, rtu.baud, rtu.parity, rtu.unit_id, rtu.profile],
    [true, '/dev/ttyAMA0', 19200, 'even', 7, 'dtsu666'],
  );
  assert.deepEqual(
    [config.mqtt.enable, config.mqtt.url, config.mqtt.username, config.mqtt.password],
    [true, 'mqtt://broker.lan:1884', 'gateway', 'mqtt-secret'],
  );
  assert.equal(
    config.mqtt.discovery.configuration_url,
    'homeassistant://hassio/ingress/a0d7b954_meter_gateway',
  );
  assert.equal(config.log.level, 'debug');
  assert.equal(config.http.port, ADDON_HTTP_PORT);
});

test("without a broker of the user's, the Supervisor's MQTT service is used; with none MQTT stays off", (t) => {
  const { mqtt_url: _url, mqtt_username: _user, mqtt_password: _password, ...withoutBroker } = EVERY_OPTION;
  const service = { host: 'core-mosquitto', port: 8883, ssl: true, username: 'addons', password: 'svc' };
  const fromService = loadDaemonConfig(t, addonConfig(withoutBroker, service, undefined));
  assert.deepEqual(
    [fromService.mqtt.enable, fromService.mqtt.url, fromService.mqtt.username, fromService.mqtt.password],
    [true, 'mqtts://core-mosquitto:8883', 'addons', 'svc'],
  );
  assert.equal(fromService.mqtt.discovery.configuration_url, '');
  const userWins = loadDaemonConfig(t, addonConfig(EVERY_OPTION, service, undefined));
  assert.equal(userWins.mqtt.url, 'mqtt://broker.lan:1884');
  const none = loadDaemonConfig(t, addonConfig(withoutBroker, undefined, undefined));
  assert.equal(none.mqtt.enable, false);
});

test('the add-on start writes the config file (owner-only) from /data/options.json', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-addon-main-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const options = join(dir, 'options.json');
  const out = join(dir, 'config.json');
  writeFileSync(options, JSON.stringify(EVERY_OPTION));
  const env = { ...process.env };
  delete env.SUPERVISOR_TOKEN;
  const result = spawnSync(
    process.execPath,
    [join(repoRoot, 'dist', 'src', 'addon', 'main.js'), '--options', options, '--out', out],
    { encoding: 'utf8', env },
  );
  assert.equal(result.status, 0, result.stderr);
  assert.equal(statSync(out).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), addonConfig(EVERY_OPTION, undefined, undefined));
  assert.match(result.stderr, /MQTT broker the configured broker/);
});

test('only the options the user set are written and locked; the Modbus port is always the add-on’s', () => {
  const config = addonConfig(
    { protection: true, password: 'p', modbus_enable: true, log_level: 'warn' },
    undefined,
    undefined,
  );
  assert.equal(
    (config.meter as unknown) ?? 'unset',
    'unset',
    'meter_source unset: meter.source left to the web interface',
  );
  assert.deepEqual((config.addon as { locked: string }).locked.split(',').sort(), [
    'services.modbus.enable',
    'services.modbus.port',
    'system.password',
    'system.protection',
  ]);
  assert.equal((config.addon as { enable: boolean }).enable, true);
  assert.equal((config.services as { modbus: { port: number } }).modbus.port, ADDON_MODBUS_PORT);
});

test('a locked option wins over a value stored through the web interface; an unlocked stored value stays', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-addon-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'config.json');
  const stateDir = join(dir, 'state');
  // Before: no option set, the user turned Modbus off and chose a meter in the web interface.
  writeFileSync(file, JSON.stringify(addonConfig({}, undefined, undefined)));
  const before = ConfigStore.load({ configFile: file, stateDir, env: {} });
  const stored = before.apply(
    new Map<string, unknown>([
      ['services.modbus.enable', false],
      ['meter.source', 'tcp://192.0.2.7:8088'],
    ]),
  );
  assert.ok(stored.ok);
  // Then the user sets modbus_enable in the add-on's Configuration page and restarts the add-on.
  writeFileSync(file, JSON.stringify(addonConfig({ modbus_enable: true }, undefined, undefined)));
  const after = ConfigStore.load({ configFile: file, stateDir, env: {} });
  assert.equal(after.config.services.modbus.enable, true, 'the add-on option wins');
  assert.equal(
    after.config.meter.source,
    'tcp://192.0.2.7:8088',
    'the unlocked setting keeps the stored value',
  );
  const refused = after.apply(new Map([['services.modbus.enable', false]]));
  assert.ok(!refused.ok);
  assert.deepEqual(
    refused.issues.map((issue) => [issue.field, issue.locked]),
    [['services.modbus.enable', true]],
  );
  assert.ok(after.apply(new Map([['meter.source', 'simulator']])).ok);
});

test('addon.locked naming a path the API does not write stops the start with an error', (t) => {
  assert.throws(
    () => loadDaemonConfig(t, { addon: { enable: true, locked: 'http.port' } }),
    /addon\.locked: not a setting the API writes: value was "http\.port"/,
  );
});
