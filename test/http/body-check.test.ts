import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionsDefinitionSchema } from '../../src/contracts/actions.js';
import { bodyIssues } from '../../src/http/body-check.js';
import { registerBackupRoutes } from '../../src/http/routes/backup.js';
import { registerMeterTestRoute } from '../../src/http/routes/meter-test.js';
import { registerProbeRoute } from '../../src/http/routes/probe.js';
import { startHttpContext } from '../helpers/http-context.js';
import { sendJsonBody } from './http-client.js';

test('a body against its contract: each field named as the body names it, nested ones with their index', async () => {
  assert.deepEqual(await bodyIssues(ActionsDefinitionSchema, { actions: [{ id: 'a' }] }), []);
  const issues = await bodyIssues(ActionsDefinitionSchema, {
    const: { price: [1] },
    actions: [
      { id: 'a' },
      { enable: 'yes', requests: [{ modbus: { host: 'h', func: 7, address: 1, value: '1' } }] },
    ],
  });
  assert.deepEqual(
    issues.map((issue) => issue.field),
    ['const.price', 'actions[1].id', 'actions[1].enable', 'actions[1].requests[0].modbus.func'],
  );
  assert.deepEqual(issues[2], { field: 'actions[1].enable', message: 'must be boolean', value: 'yes' });
  assert.deepEqual(await bodyIssues(ActionsDefinitionSchema, 'text'), [
    { field: '', message: 'must be object', value: 'text' },
  ]);
});

test('JSON bodies with a contract are refused with 400 validation_failed naming the field from the schema', async () => {
  const server = await startHttpContext({
    routes: (router, ctx) => {
      registerProbeRoute(router, ctx);
      registerMeterTestRoute(router, ctx);
      registerBackupRoutes(router, ctx);
    },
  });
  const post = async (path: string, body: unknown) => {
    const reply = await sendJsonBody(server.baseUrl, 'POST', path, body);
    const answer = reply.json() as { error: string; message: string; details: { fields: unknown[] } };
    return { status: reply.status, ...answer };
  };
  try {
    const missing = await post('/api/v1/meter/probe', {});
    assert.equal(missing.status, 400);
    assert.equal(missing.error, 'validation_failed');
    assert.match(missing.message, /device is required/);
    assert.deepEqual(missing.details.fields, [{ field: 'device', message: 'is required' }]);

    const typed = await post('/api/v1/meter/probe', { device: 5 });
    assert.deepEqual(typed.details.fields, [{ field: 'device', message: 'must be string', value: 5 }]);

    const wait = await post('/api/v1/meters/test', { source: 'simulator:', wait: 99 });
    assert.equal(wait.status, 400);
    assert.deepEqual(wait.details.fields, [{ field: 'wait', message: 'must be <= 30', value: 99 }]);

    const backup = await post('/api/v1/backup', { format: 'other', version: 2, settings: [] });
    assert.equal(backup.status, 400);
    assert.deepEqual(
      (backup.details.fields as Array<{ field: string }>).map((issue) => issue.field),
      ['format', 'version', 'settings'],
    );
  } finally {
    await server.close();
  }
});
