import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';

registerConfigFormats();

/** The rules between keys (docs/architecture.md#configuration) at start-up and on every write. */

function stateDirWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mg-rules-'));
  mkdirSync(join(dir, 'state'));
  for (const [name, data] of Object.entries(files))
    writeFileSync(join(dir, 'state', `${name}.json`), JSON.stringify(data));
  return dir;
}

test('a state file that breaks a rule is moved aside at start-up; the rest loads', () => {
  const dir = stateDirWith({
    wifi: {
      eth: {
        static_ip: true,
        ip: '192.168.1.10',
        netmask: '255.255.255.0',
        gateway: '10.0.0.1',
        dns: '1.1.1.1',
      },
    },
    settings: { system: { name: 'kept' } },
  });
  const store = ConfigStore.load({ env: {}, stateDir: join(dir, 'state') });
  assert.equal(store.config.eth.static_ip, false);
  assert.equal(store.config.system.name, 'kept');
  assert.deepEqual(
    store.problems.map((problem) => [problem.file, problem.reason]),
    [['wifi', 'eth.gateway: must be another host address in the subnet of 192.168.1.10/255.255.255.0']],
  );
  assert.equal(existsSync(join(dir, 'state', 'wifi.json')), false);
  assert.ok(readdirSync(join(dir, 'state')).some((name) => name.startsWith('wifi.json.corrupt-')));
});

test('an API write is checked against the rule with the values already stored', () => {
  const dir = stateDirWith({});
  const store = ConfigStore.load({ env: {}, stateDir: join(dir, 'state') });
  const first = store.apply(
    new Map<string, unknown>([
      ['eth.ip', '192.168.1.10'],
      ['eth.netmask', '255.255.255.0'],
      ['eth.gateway', '192.168.1.1'],
      ['eth.dns', '1.1.1.1'],
    ]),
  );
  assert.ok(first.ok);
  const bad = store.apply(
    new Map<string, unknown>([
      ['eth.static_ip', true],
      ['eth.gateway', '192.168.2.1'],
    ]),
  );
  assert.equal(bad.ok, false);
  assert.deepEqual(!bad.ok && bad.issues.map((issue) => issue.field), ['eth.gateway']);
  assert.ok(store.apply(new Map<string, unknown>([['eth.static_ip', true]])).ok);
});

test('a leaf whose value is an object (the actions definition) is replaced whole by a later layer', () => {
  const dir = stateDirWith({
    actions: { actions: { definition: { const: { b: 2 }, actions: [] } } },
  });
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ actions: { definition: { const: { a: 1 }, actions: [] } } }));
  const store = ConfigStore.load({ env: {}, configFile: file, stateDir: join(dir, 'state') });
  assert.deepEqual(store.config.actions.definition, { const: { b: 2 }, actions: [] });
});

test('a key named __proto__ in the admin file is an unknown key, not a prototype', () => {
  const dir = stateDirWith({});
  const file = join(dir, 'config.json');
  writeFileSync(file, '{"system": {"__proto__": {"name": "polluted"}}}');
  assert.throws(
    () => ConfigStore.load({ env: {}, configFile: file, stateDir: join(dir, 'state') }),
    (error: unknown) => error instanceof ConfigError && /system\.__proto__: unknown key/.test(error.message),
  );
});

test('a rule the environment breaks is blamed on the environment, even when the key it reports is the admin file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-rules-blame-'));
  const configFile = join(dir, 'config.json');
  // The file alone keeps every rule: one further meter on the device, the primary on the simulator.
  writeFileSync(
    configFile,
    JSON.stringify({ meters: [{ id: 'pv', name: 'PV', role: 'pv', source: 'serial:/dev/ttyUSB7' }] }),
  );
  const load = (env: Record<string, string>) => () =>
    ConfigStore.load({ configFile, env, stateDir: join(dir, 'state') });
  assert.doesNotThrow(load({}));
  // The environment points the primary at the same device: the rule reports `meters`, the file's key.
  assert.throws(
    load({ METER_GATEWAY_METER_SOURCE: 'serial:/dev/ttyUSB7' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.source === 'environment' &&
      error.issues.some((issue) => issue.field === 'meters'),
  );
  // A file that breaks a rule by itself is still the file's.
  writeFileSync(
    configFile,
    JSON.stringify({
      meter: { source: 'serial:/dev/ttyUSB7' },
      meters: [{ id: 'pv', name: 'PV', role: 'pv', source: 'serial:/dev/ttyUSB7' }],
    }),
  );
  assert.throws(
    load({ METER_GATEWAY_SYSTEM_NAME: 'env-name' }),
    (error: unknown) => error instanceof ConfigError && error.source === configFile,
  );
});
