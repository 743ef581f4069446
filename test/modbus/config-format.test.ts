import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { tempDir } from '../helpers/temp-dir.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

const INVALID = [{ start_address: 1, registers: [{ id: '1.8.0' }, { id: 'no.such.id' }] }];

test('the modbus-layout config format applies the full layout rules (environment, API write)', (t) => {
  const stateDir = tempDir('mg-modbus-config-', t);
  assert.throws(
    () => ConfigStore.load({ env: { METER_GATEWAY_MODBUS_LAYOUT: JSON.stringify(INVALID) }, stateDir }),
    (error: unknown) =>
      error instanceof ConfigError &&
      /modbus\.layout: .*set 0 register 1 id: unknown register id/.test(error.message),
  );
  const config = ConfigStore.load({ env: {}, stateDir });
  const result = config.apply(new Map([['modbus.layout', INVALID]]));
  assert.equal(result.ok, false);
  assert.equal(config.config.modbus.layout, null);
  assert.ok(
    config.apply(new Map([['modbus.layout', [{ start_address: 1, registers: [{ id: '1.8.0' }] }]]])).ok,
  );
});

test('a state file with an invalid layout is moved aside at start-up and the default is used', (t) => {
  const stateDir = tempDir('mg-modbus-config-', t);
  writeFileSync(join(stateDir, 'modbus.json'), JSON.stringify({ modbus: { layout: INVALID } }));
  const config = ConfigStore.load({ env: {}, stateDir });
  assert.equal(config.config.modbus.layout, null);
  assert.equal(config.problems.length, 1);
  assert.equal(config.problems[0]!.file, 'modbus');
});
