import { test } from 'node:test';
import assert from 'node:assert/strict';
import Type, { type TSchema } from 'typebox';
import { en } from '../../src/web/ui/i18n/en/index.js';
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
  assert.deepEqual(issues[2], {
    field: 'actions[1].enable',
    message: 'must be boolean',
    key: 'rule.boolean',
    args: {},
    value: 'yes',
  });
  assert.deepEqual(await bodyIssues(ActionsDefinitionSchema, 'text'), [
    { field: '', message: 'must be object', key: 'rule.object', args: {}, value: 'text' },
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
    assert.deepEqual(missing.details.fields, [
      { field: 'device', message: 'is required', key: 'rule.required', args: {} },
    ]);
    // The 400 itself is named by a key too, for the page's language.
    assert.equal((missing as unknown as { key: string }).key, 'error.invalid_request');

    const typed = await post('/api/v1/meter/probe', { device: 5 });
    assert.deepEqual(typed.details.fields, [
      { field: 'device', message: 'must be string', key: 'rule.string', args: {}, value: 5 },
    ]);

    const wait = await post('/api/v1/meters/test', { source: 'simulator:', wait: 99 });
    assert.equal(wait.status, 400);
    assert.deepEqual(wait.details.fields, [
      { field: 'wait', message: 'must be <= 30', key: 'rule.maximum', args: { limit: 30 }, value: 99 },
    ]);

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

test('every rule key a contract check names has a text in the web page catalogue', async () => {
  // One failing field per case: [schema of field v, value of v, the key its issue carries].
  const cases: Array<[TSchema, unknown, string]> = [
    [Type.Integer({ maximum: 5 }), 9, 'rule.maximum'],
    [Type.Integer({ minimum: 1 }), 0, 'rule.minimum'],
    [Type.Integer(), 0.5, 'rule.integer'],
    [Type.Number(), 'x', 'rule.number'],
    [Type.String(), 5, 'rule.string'],
    [Type.String({ maxLength: 3 }), 'yyyy', 'rule.max_length'],
    [Type.String({ minLength: 2 }), 'y', 'rule.min_length'],
    [Type.String({ pattern: '^x' }), 'y', 'rule.pattern'],
    [Type.Union([Type.Literal('p'), Type.Literal('q')]), 'z', 'rule.one_of'],
    [Type.Array(Type.Number(), { maxItems: 1 }), [1, 2], 'rule.max_items'],
    [Type.Array(Type.Number(), { minItems: 1 }), [], 'rule.min_items'],
    [Type.Array(Type.Number()), 'x', 'rule.array'],
    [Type.Boolean(), 'no', 'rule.boolean'],
    [Type.Object({}), 1, 'rule.object'],
  ];
  const seen: string[] = [];
  for (const [field, value, key] of cases) {
    const [issue] = await bodyIssues(Type.Object({ v: field }), { v: value });
    assert.equal(issue?.key, key, `${JSON.stringify(value)}: ${issue?.message}`);
    seen.push(key);
  }
  const closed = Type.Object({ v: Type.String() }, { additionalProperties: false });
  const [missing] = await bodyIssues(closed, {});
  const [extra] = await bodyIssues(closed, { v: 'a', w: 1 });
  assert.deepEqual([missing?.key, extra?.key], ['rule.required', 'rule.not_allowed']);
  const [literal] = await bodyIssues(Type.Object({ k: Type.Union([Type.Literal('p'), Type.Literal('q')]) }), {
    k: 'z',
  });
  assert.deepEqual(literal?.args, { values: 'p, q' });
  for (const key of [...seen, 'rule.required', 'rule.not_allowed', 'error.invalid_request'])
    assert.ok(Object.hasOwn(en, key), `${key} is in the web page's catalogue`);
});
