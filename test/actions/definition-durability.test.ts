import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigStore } from '../../src/config/config-store.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { killWriterAfter } from '../helpers/killed-writer.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

test('SIGKILL while the actions definition is written leaves the old or the new definition', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-actions-kill-'));
  let next = 0;
  for (let round = 1; round <= 8; round += 1) {
    const lastReported = await killWriterAfter(
      'actions/definition-writer-child',
      [stateDir],
      next,
      1 + Math.floor(Math.random() * 30),
    );
    const store = ConfigStore.load({ env: {}, stateDir });
    const definition = store.config.actions.definition;
    assert.ok(definition, `round ${round}: a definition is stored`);
    const version = definition.const!.n as number;
    assert.equal(definition.actions![0]!.id, `v${version}`, `round ${round}: one whole definition`);
    assert.ok(
      version === lastReported || version === lastReported + 1,
      `round ${round}: ${version} after ${lastReported}`,
    );
    assert.deepEqual(
      readdirSync(stateDir).filter((file) => file.endsWith('.tmp')),
      [],
    );
    next = version + 1;
  }
});

test('a factory restore removes the stored definition', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-actions-restore-'));
  const store = ConfigStore.load({ env: {}, stateDir });
  const result = store.apply(new Map<string, unknown>([['actions.definition', { actions: [{ id: 'a' }] }]]));
  assert.ok(result.ok);
  assert.deepEqual(ConfigStore.load({ env: {}, stateDir }).config.actions.definition, {
    actions: [{ id: 'a' }],
  });
  assert.ok(store.stateDirectory.removeAll().includes('actions.json'));
  assert.equal(ConfigStore.load({ env: {}, stateDir }).config.actions.definition, null);
});

test('a definition from the environment is held to the same rules as the API', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-actions-env-'));
  assert.throws(
    () =>
      ConfigStore.load({
        env: {
          METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify({
            actions: [{ id: 'x', requests: [{ modbus: { host: 'h', func: 7, address: 0, value: '1' } }] }],
          }),
        },
        stateDir,
      }),
    /actions\.definition.*actions\[0\]\.requests\[0\]\.modbus\.func/s,
  );
});
