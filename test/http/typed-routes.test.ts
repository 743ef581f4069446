import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contract } from '../../src/http/contract-ref.js';
import { ERROR_REF } from '../../src/http/api-schemas.js';
import { buildOpenApi } from '../../src/http/routes/openapi.js';
import { registerMeterScalerRoutes } from '../../src/http/routes/meter-scalers.js';
import { Router } from '../../src/http/router.js';
import { startActionsRig } from '../actions/rig.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send, sendJsonBody } from './http-client.js';

/** A typed route of the test's own: a path parameter and a query, each declared by a contract. */
function registerEcho(router: Router): void {
  router.route(
    {
      method: 'GET',
      path: '/api/v1/echo/{id}',
      summary: 'echo',
      params: contract('ActionCallQuerySchema'),
      query: contract('ActionStatusQuerySchema'),
      response: { 200: { description: 'echo', schema: contract('ActionCallAnswerSchema') } },
    },
    ({ params, query }) => ({
      status: 200,
      body: { status_ids: [params.id.length, query.id === undefined ? -1 : query.id.length] },
      headers: { 'X-Echo': params.id },
    }),
  );
}

interface ErrorAnswer {
  error: string;
  message: string;
  details: { fields: Array<{ field: string; message: string }> };
}

test('a typed route gets its path and query parameters decoded and checked, and answers its reply', async () => {
  const server = await startHttpContext({ routes: registerEcho });
  try {
    const ok = await send(server.baseUrl, 'GET', '/api/v1/echo/%C3%A4b?id=xyz&id=other');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json(), { status_ids: [2, 3] });
    const slash = await send(server.baseUrl, 'GET', '/api/v1/echo/a%2Fb');
    assert.deepEqual(slash.json(), { status_ids: [3, -1] });
    assert.equal(slash.headers['x-echo'], 'a/b');
    const bad = await send(server.baseUrl, 'GET', '/api/v1/echo/%FF');
    assert.equal(bad.status, 400);
    assert.deepEqual((bad.json() as ErrorAnswer).details.fields[0]?.field, 'id');
  } finally {
    await server.close();
  }
});

test("a typed route's description comes from its declaration: parameters, body and responses", async () => {
  const router = new Router();
  registerEcho(router);
  router.route(
    {
      method: 'POST',
      path: '/api/v1/echo',
      summary: 'echo a body',
      body: contract('MeterScalerWriteListSchema'),
      response: { 204: { description: 'taken' }, 409: { description: 'busy', schema: ERROR_REF } },
    },
    () => ({ status: 204 }),
  );
  const doc = (await buildOpenApi(router, 'test')) as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const get = doc.paths['/api/v1/echo/{id}']!.get!;
  assert.deepEqual(
    (get.parameters as Array<{ name: string; in: string; required: boolean }>).map((p) => [
      p.name,
      p.in,
      p.required,
    ]),
    [
      ['id', 'path', true],
      ['id', 'query', false],
    ],
  );
  assert.equal(
    (get.parameters as Array<{ schema: { minLength?: number } }>)[0]!.schema.minLength,
    1,
    'the path parameter documented by its contract',
  );
  const post = doc.paths['/api/v1/echo']!.post!;
  const requestBody = post.requestBody as { content: Record<string, { schema: { type: string } }> };
  assert.equal(requestBody.content['application/json']!.schema.type, 'array');
  assert.deepEqual(Object.keys(post.responses as object).sort(), [
    '204',
    '400',
    '401',
    '409',
    '413',
    '415',
    '500',
  ]);
});

test('the scalers routes: their contract names the field of a bad entry, the config an OBIS listed twice', async () => {
  const server = await startHttpContext({ routes: registerMeterScalerRoutes });
  const write = async (method: string, body: unknown) => {
    const reply = await sendJsonBody(server.baseUrl, method, '/api/v1/meter/scalers/custom', body);
    return { status: reply.status, answer: reply.json() as ErrorAnswer & unknown[] };
  };
  const fields = (answer: ErrorAnswer) => answer.details.fields.map((issue) => issue.field);
  try {
    const posted = await write('POST', [{ obis: '1.8.255', scaler: 1 }]);
    assert.equal(posted.status, 200);
    assert.deepEqual(posted.answer, [{ obis: '1.8.255', scaler: 1 }]);
    for (const [body, field] of [
      [[{ obis: '1.8', scaler: 1 }], '[0].obis'],
      [[{ obis: '255.8.0', scaler: 1 }], '[0].obis'],
      [[{ obis: '1.8.256', scaler: 1 }], '[0].obis'],
      [[{ obis: '1.8.0', scaler: 7 }], '[0].scaler'],
      [[{ obis: '1.8.0', scaler: 1.5 }], '[0].scaler'],
      [[{ obis: '1.8.0', scaler: 1, unit: 'x' }], '[0].unit'],
      [{ obis: '1.8.0', scaler: 1 }, ''],
      [null, ''],
    ] as const) {
      const refused = await write('POST', body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.answer.error, 'validation_failed');
      assert.deepEqual(fields(refused.answer), [field], JSON.stringify(body));
    }
    const twice = await write('POST', [
      { obis: '2.8.0', scaler: 0 },
      { obis: '2.8.0', scaler: 1 },
    ]);
    assert.equal(twice.status, 400);
    assert.deepEqual(fields(twice.answer), ['[1].obis']);
    // PUT: the body's second entry is named as the body names it, not by its place after the kept one.
    const putTwice = await write('PUT', [
      { obis: '3.8.0', scaler: 0 },
      { obis: '3.8.0', scaler: 1 },
    ]);
    assert.equal(putTwice.status, 400);
    assert.deepEqual(fields(putTwice.answer), ['[1].obis']);
    const put = await write('PUT', [{ obis: '16.7.0', scaler: 0 }]);
    assert.deepEqual(put.answer, [
      { obis: '1.8.255', scaler: 1 },
      { obis: '16.7.0', scaler: 0 },
    ]);
    assert.deepEqual(server.ctx.config.config.meter.scalers, put.answer);
  } finally {
    await server.close();
  }
});

test('the actions routes: a null definition is refused by the contract, a call without id names the parameter', async () => {
  const rig = await startActionsRig();
  try {
    const refused = await sendJsonBody(rig.baseUrl, 'POST', '/api/v1/actions', 'null');
    assert.equal(refused.status, 400);
    assert.deepEqual(
      (refused.json() as ErrorAnswer).details.fields.map((issue) => issue.field),
      [''],
    );
    const empty = await send(rig.baseUrl, 'POST', '/api/v1/actions/call?id=');
    assert.equal(empty.status, 400);
    assert.deepEqual((empty.json() as ErrorAnswer).details.fields[0]?.field, 'id');
    assert.equal(rig.ctx.config.config.actions.definition, null);
  } finally {
    await rig.close();
  }
});
