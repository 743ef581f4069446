import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ConfigStore } from '../../src/config/config-store.js';
import { FormatError, formatNamed } from '../../src/config/formats.js';
import { LEAVES } from '../../src/config/paths.js';
import { checkLeaf, checkTree } from '../../src/config/validation.js';
import type { AppConfig } from '../../src/config/types.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { PROFILE_NAMES, type ProfileName } from '../../src/modbus-protocol/profiles/catalogue.js';
import { POWER_DIRECTIONS, type PowerDirection } from '../../src/modbus-protocol/profiles/grid-values.js';
import { tempDir } from '../helpers/temp-dir.js';

registerConfigFormats();

function loadError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a ConfigError');
}

function adminFile(content: unknown): string {
  const path = join(tempDir('mg-formats-'), 'config.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

test('a format rejects with a FormatError carrying a reason key; the checker adds path and value', () => {
  const format = formatNamed('bounded-int')!;
  const leaf = LEAVES.get('services.report_interval')!;
  let thrown: unknown;
  try {
    format.validate(0, leaf.schema);
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof FormatError);
  assert.equal(thrown.reason, 'out-of-range');
  assert.equal(thrown.message, 'must be an integer in 1..3600');
  assert.deepEqual(checkLeaf(leaf, '30'), {
    field: 'services.report_interval',
    message: 'must be an integer in 1..3600',
    key: 'rule.integer_range',
    args: { min: 1, max: 3600 },
    value: '30',
  });
  assert.deepEqual(checkTree({ http: { port: 80, prot: 1 }, system: 5 }, true), [
    { field: 'http.prot', message: 'unknown key', key: 'rule.unknown_key', args: {}, value: 1 },
    { field: 'system', message: 'must be an object', key: 'rule.object', args: {}, value: 5 },
  ]);
});

test('a bad meter.source in the admin file is a start-up error naming the key', () => {
  const file = adminFile({ meter: { source: 'ftp://meter' } });
  const error = loadError(() =>
    ConfigStore.load({ env: {}, configFile: file, stateDir: tempDir('mg-formats-') }),
  );
  assert.equal(error.source, file);
  assert.equal(error.issues.length, 1);
  assert.equal(error.issues[0]?.field, 'meter.source');
  assert.match(error.issues[0]!.message, /^must be simulator, serial:\/dev\/\.\.\./);
  assert.match(error.message, /config\.json: meter\.source "ftp:\/\/meter": must be simulator/);
});

test('a bad meter.source in the environment is a start-up error naming the key', () => {
  const error = loadError(() =>
    ConfigStore.load({
      env: { METER_GATEWAY_METER_SOURCE: 'serial:ttyUSB0' },
      stateDir: tempDir('mg-formats-'),
    }),
  );
  assert.equal(error.source, 'environment');
  assert.deepEqual(
    error.issues.map((issue) => [issue.field, issue.message]),
    [
      [
        'meter.source',
        'serial device must be an absolute device path like /dev/ttyUSB0, without control characters',
      ],
    ],
  );
  assert.match(error.message, /^environment: meter\.source "serial:ttyUSB0": serial device must be/);
});

test('a rejected remote source is shown without its password', () => {
  const leaf = LEAVES.get('meter.source')!;
  const tooLong = checkLeaf(leaf, `http://user:s3cret@192.0.2.9/${'x'.repeat(1100)}`);
  assert.ok(tooLong);
  assert.equal(tooLong.message, 'must be a string of at most 1024 characters');
  assert.doesNotMatch(JSON.stringify(tooLong.value), /s3cret/);
  assert.match(String(tooLong.value), /^http:\/\/user@192\.0\.2\.9\/x+$/);
});

test('meter.encryption_key from the file or the environment must be an AES-128 key, never echoed', () => {
  const file = adminFile({ meter: { encryption_key: 'not-a-key-0123456789' } });
  const error = loadError(() =>
    ConfigStore.load({ env: {}, configFile: file, stateDir: tempDir('mg-formats-') }),
  );
  assert.deepEqual(error.issues, [
    { field: 'meter.encryption_key', message: 'must be 32 hexadecimal digits (AES-128 key) or empty' },
  ]);
  assert.doesNotMatch(error.message, /not-a-key/);
  const key = '00112233445566778899AABBCCDDEEFF';
  const store = ConfigStore.load({
    env: { METER_GATEWAY_METER_ENCRYPTION_KEY: key },
    stateDir: tempDir('mg-formats-'),
  });
  assert.equal(store.config.meter.encryption_key, key);
});

/** True when A and B are the same type (compile-time check; a mismatch fails the build). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

test('the config type is inferred from the schema, formats owned elsewhere included', () => {
  const inferred: [
    Same<AppConfig['services']['modbus']['profile'], ProfileName>,
    Same<AppConfig['services']['modbus_rtu']['direction'], PowerDirection>,
    Same<AppConfig['services']['modbus_rtu']['parity'], 'none' | 'even' | 'odd'>,
    Same<AppConfig['modbus']['layout'], unknown[] | null>,
    Same<AppConfig['meter']['source'], string>,
    Same<AppConfig['license']['type'], 'FREE' | 'PLUS' | 'PRO'>,
    Same<AppConfig['wifi']['sta']['max_power'], number>,
    Same<AppConfig['mqtt']['publish']['retain'], boolean>,
  ] = [true, true, true, true, true, true, true, true];
  assert.ok(inferred.every(Boolean));
  const config = ConfigStore.load({ env: {}, stateDir: tempDir('mg-formats-') }).config;
  assert.ok((PROFILE_NAMES as readonly string[]).includes(config.services.modbus.profile));
  assert.ok((POWER_DIRECTIONS as readonly string[]).includes(config.services.modbus_rtu.direction));
  assert.equal(config.modbus.layout, null);
});
