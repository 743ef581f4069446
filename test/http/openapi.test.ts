import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes } from '../../src/http/server.js';
import { startHttpContext, syntheticReading } from '../helpers/http-context.js';
import { send, sendJsonBody, type Reply } from './http-client.js';
import { responseProblems, validate } from './openapi-check.js';
import { openStream } from './sse-client.js';

test('the OpenAPI 3.1 document lists every served route, later ones included', async () => {
  const server = await startHttpContext({
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      router.add('DELETE', '/api/v1/added-later', () => undefined);
    },
  });
  try {
    const doc = (await send(server.baseUrl, 'GET', '/api/v1/openapi.json')).json();
    assert.equal(doc.openapi, '3.1.0');
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const served = server.router.list().map((route) => `${route.method} ${route.path}`);
    assert.deepEqual(documented.sort(), served.sort());
    assert.ok(served.includes('DELETE /api/v1/added-later'));
    assert.deepEqual(Object.keys(doc.paths['/api/v1/settings'].put.responses).sort(), [
      '200',
      '202',
      '400',
      '401',
      '413',
      '415',
      '429',
      '500',
    ]);
    assert.equal(
      doc.paths['/api/v1/settings'].put.requestBody.content['application/json'].schema.properties.system
        .properties.password.writeOnly,
      true,
    );
    assert.deepEqual(
      doc.paths['/api/v1/settings'].get.responses['200'].content['application/json'].schema.properties
        .services.properties.report_interval,
      {
        description: 'MQTT and cloud publishing period in seconds (1..3600).',
        type: 'integer',
        minimum: 1,
        maximum: 3600,
      },
    );
  } finally {
    await server.close();
  }
});

test('every response the core endpoints give conforms to the document', async () => {
  const server = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx) });
  const { baseUrl, ctx, clock } = server;
  const doc = (await send(baseUrl, 'GET', '/api/v1/openapi.json')).json();
  const problems: string[] = [];
  const check = (method: string, path: string, reply: Reply): void => {
    problems.push(
      ...responseProblems(
        doc,
        method,
        path,
        reply.status,
        String(reply.headers['content-type'] ?? ''),
        reply.text,
      ),
    );
  };
  const json = (method: string, path: string, body: unknown) => sendJsonBody(baseUrl, method, path, body);
  try {
    check('GET', '/api/v1/report', await send(baseUrl, 'GET', '/api/v1/report'));
    ctx.store.ingest(syntheticReading(clock.now()));
    for (const path of [
      '/api/v1/system',
      '/api/v1/report',
      '/api/v1/settings',
      '/api/v1/variables',
      '/api/v1/meter/settings',
      '/api/v1/openapi.json',
    ]) {
      check('GET', path, await send(baseUrl, 'GET', path));
    }
    check(
      'PUT',
      '/api/v1/settings',
      await json('PUT', '/api/v1/settings', { system: { name: 'doc', password: 'pw' } }),
    );
    check(
      'PUT',
      '/api/v1/settings',
      await json('PUT', '/api/v1/settings', { services: { report_interval: 0 } }),
    );
    check('PUT', '/api/v1/settings', await json('PUT', '/api/v1/settings', '{broken'));
    check(
      'PUT',
      '/api/v1/settings',
      await send(baseUrl, 'PUT', '/api/v1/settings', {
        headers: { 'Content-Type': 'text/plain' },
        body: '{}',
      }),
    );
    check(
      'PUT',
      '/api/v1/settings',
      await json('PUT', '/api/v1/settings', { system: { name: 'x'.repeat(9000) } }),
    );
    check(
      'POST',
      '/api/v1/settings',
      await json('POST', '/api/v1/settings', { system: { host_name: 'doc-gw' } }),
    );
    check(
      'PUT',
      '/api/v1/meter/settings',
      await json('PUT', '/api/v1/meter/settings', {
        conv_factor: 2,
        encryption_key: '00112233445566778899aabbccddeeff',
      }),
    );
    check('PUT', '/api/v1/meter/settings', await json('PUT', '/api/v1/meter/settings', { source: 'bogus' }));
    const stream = await openStream(baseUrl);
    problems.push(
      ...responseProblems(
        doc,
        'GET',
        '/api/v1/live',
        stream.response.statusCode!,
        stream.response.headers['content-type']!,
        '',
      ),
    );
    stream.close();
    ctx.config.apply(new Map<string, unknown>([['system.protection', true]]));
    for (const path of ['/api/v1/system', '/api/v1/report', '/api/v1/live', '/api/v1/settings'])
      check('GET', path, await send(baseUrl, 'GET', path));
    assert.deepEqual(problems, []);
  } finally {
    await server.close();
  }
});

test('the checker itself rejects what the document forbids', () => {
  const doc = { paths: {}, components: { schemas: {} } };
  const schema = {
    type: 'object',
    required: ['a'],
    properties: { a: { type: 'integer', maximum: 3 }, s: { type: 'string', writeOnly: true } },
  };
  assert.deepEqual(validate(schema, { a: 2 }, doc), []);
  assert.equal(validate(schema, { a: 2.5 }, doc).length, 1);
  assert.equal(validate(schema, { a: 4 }, doc).length, 1);
  assert.equal(validate(schema, {}, doc).length, 1);
  assert.equal(validate(schema, { a: 1, s: 'secret' }, doc).length, 1);
});
