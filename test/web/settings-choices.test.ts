import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes } from '../../src/http/server.js';
import { PROFILE_NAMES } from '../../src/modbus-protocol/profiles/catalogue.js';
import type { SettingsChoices } from '../../src/contracts/page.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { startHttpContext } from '../helpers/http-context.js';

test("GET /api/v1/settings/choices: the schema's fixed lists by config path, labelled, in the OpenAPI document", async () => {
  const http = await startHttpContext({
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      registerWebRoutes(router, ctx, []);
    },
  });
  try {
    const response = await fetch(`${http.baseUrl}/api/v1/settings/choices`);
    assert.equal(response.status, 200);
    const choices = (await response.json()) as SettingsChoices;
    for (const path of ['services.modbus.profile', 'services.modbus_rtu.profile']) {
      assert.deepEqual(
        choices[path]?.map((choice) => choice.value),
        [...PROFILE_NAMES],
        path,
      );
    }
    assert.deepEqual(
      choices['services.modbus.profile']?.find((choice) => choice.value === 'sdm630'),
      {
        value: 'sdm630',
        label: 'Eastron SDM630',
      },
    );
    assert.deepEqual(choices['services.modbus_rtu.direction'], [
      { value: 'import_positive', label: 'import positive' },
      { value: 'export_positive', label: 'export positive' },
    ]);
    assert.deepEqual(
      choices['services.modbus_rtu.parity']?.map((choice) => choice.value),
      ['none', 'even', 'odd'],
    );
    // Only what the settings endpoints read and write: not the daemon's own keys.
    assert.equal(choices['log.level'], undefined);

    const openapi = (await (await fetch(`${http.baseUrl}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, { get?: { summary?: string } }>;
    };
    assert.match(openapi.paths['/api/v1/settings/choices']?.get?.summary ?? '', /fixed-list setting/);
  } finally {
    await http.close();
  }
});
