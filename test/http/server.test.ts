import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { registerCoreRoutes } from '../../src/http/server.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';
import { rawExchange, send, sendJsonBody, type Reply } from './http-client.js';
import { waitFor } from '../helpers/wait.js';

function assertApiHeaders(reply: Reply): void {
  assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(reply.headers['cache-control'], 'no-store');
  assert.equal(reply.headers['x-content-type-options'], 'nosniff');
}

function assertErrorBody(reply: Reply, status: number, key: string): void {
  assert.equal(reply.status, status, reply.text);
  assertApiHeaders(reply);
  const body = reply.json();
  assert.equal(body.error, key);
  assert.equal(typeof body.message, 'string');
  assert.equal(typeof body.details, 'object');
}

/**
 * Short header and body deadlines by default, so the timeout tests finish quickly; `timeouts:
 * 'default'` keeps the server's own deadlines, for tests where a loaded machine may take longer than
 * 300 ms to read the headers of every connection (the 1,000-connection test: a connection still
 * waiting for its turn would get 408).
 */
async function withServer(
  fn: (server: HttpTestContext) => Promise<void>,
  env: Record<string, string> = {},
  timeouts: 'short' | 'default' = 'short',
): Promise<void> {
  const server = await startHttpContext({
    env,
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      router.add('GET', '/test/throws', () => {
        throw new Error('handler exploded');
      });
    },
    server:
      timeouts === 'short' ? { headersTimeoutMs: 300, bodyTimeoutMs: 300, timeoutCheckIntervalMs: 100 } : {},
  });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

test('JSON responses carry content type, no-store and nosniff; unknown routes are 404 with the error body', () =>
  withServer(async ({ baseUrl }) => {
    assertApiHeaders(await send(baseUrl, 'GET', '/api/v1/system'));
    assertErrorBody(await send(baseUrl, 'GET', '/api/v1/nothing'), 404, 'not_found');
    assertErrorBody(await send(baseUrl, 'GET', '/api/v1/report/'), 404, 'not_found');
  }));

test('a wrong method is 405 with Allow listing the methods of the path', () =>
  withServer(async ({ baseUrl }) => {
    const reply = await send(baseUrl, 'DELETE', '/api/v1/settings');
    assertErrorBody(reply, 405, 'method_not_allowed');
    assert.deepEqual(reply.headers.allow?.split(', ').sort(), ['GET', 'HEAD', 'POST', 'PUT']);
    assert.equal((await send(baseUrl, 'POST', '/api/v1/system')).headers.allow, 'GET, HEAD');
  }));

test('HEAD answers like GET without a body', () =>
  withServer(async ({ baseUrl }) => {
    const reply = await send(baseUrl, 'HEAD', '/api/v1/system');
    assert.equal(reply.status, 200);
    assert.equal(reply.text, '');
    assertApiHeaders(reply);
  }));

test('requests from a foreign Origin, preflights included, get 404 and no CORS headers', () =>
  withServer(async ({ baseUrl }) => {
    const origin = { Origin: 'http://evil.example' };
    const get = await send(baseUrl, 'GET', '/api/v1/system', { headers: origin });
    const preflight = await send(baseUrl, 'OPTIONS', '/api/v1/settings', {
      headers: {
        ...origin,
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    // As the whatwatt Go: a foreign origin is answered 404, the preflight too.
    assertErrorBody(get, 404, 'not_found');
    assertErrorBody(preflight, 404, 'not_found');
    for (const reply of [get, preflight]) {
      assert.deepEqual(
        Object.keys(reply.headers).filter((name) => name.startsWith('access-control-')),
        [],
      );
    }
  }));

test('bodies over 8 kB are 413, by Content-Length and by chunked streaming', () =>
  withServer(async ({ baseUrl }) => {
    const big = JSON.stringify({ system: { name: 'x'.repeat(9000) } });
    assertErrorBody(await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', big), 413, 'payload_too_large');
    const chunked = await new Promise<Reply>((resolve, reject) => {
      const request = httpRequest(`${baseUrl}/api/v1/settings`, {
        method: 'PUT',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            headers: response.headers,
            distinct: {},
            text,
            json: () => JSON.parse(text),
          }),
        );
      });
      request.on('error', reject);
      request.write('{"system":{"name":"');
      for (let i = 0; i < 10; i++) request.write('y'.repeat(1000));
    });
    assertErrorBody(chunked, 413, 'payload_too_large');
    assert.equal(chunked.headers.connection, 'close');
  }));

test('a body that is not application/json (UTF-8) is 415; an absent body is 400', () =>
  withServer(async ({ baseUrl }) => {
    const body = '{"system":{"name":"a"}}';
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=iso-8859-1',
    ]) {
      assertErrorBody(
        await send(baseUrl, 'PUT', '/api/v1/settings', { headers: { 'Content-Type': type }, body }),
        415,
        'unsupported_media_type',
      );
    }
    assertErrorBody(await send(baseUrl, 'PUT', '/api/v1/settings', { body }), 415, 'unsupported_media_type');
    assertErrorBody(await send(baseUrl, 'PUT', '/api/v1/settings'), 400, 'bad_request');
    assert.equal(
      (
        await send(baseUrl, 'PUT', '/api/v1/settings', {
          headers: { 'Content-Type': 'Application/JSON; charset="UTF-8"' },
          body,
        })
      ).status,
      200,
    );
  }));

test('malformed JSON, truncated JSON, invalid UTF-8 and an empty body are 400 and change nothing', () =>
  withServer(async ({ baseUrl, ctx }) => {
    const before = ctx.config.config;
    for (const body of [
      '{"system":',
      '{system: 1}',
      "{'a':1}",
      '',
      '   ',
      '{"a":1}}',
      Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    ]) {
      assertErrorBody(await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', body), 400, 'bad_request');
    }
    assert.equal(ctx.config.config, before);
  }));

test('a truncated body (connection closed early) changes nothing; a stalled body is 408', () =>
  withServer(async ({ port, ctx }) => {
    const before = ctx.config.config;
    const head =
      'PUT /api/v1/settings HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    const closed = await rawExchange(port, `${head}{"system":{"name":"trunc`, true);
    assert.doesNotMatch(closed, /^HTTP\/1\.1 2/);
    assert.equal(ctx.config.config, before);
    const stalled = await rawExchange(port, `${head}{"system":{"name":"stall`);
    assert.match(stalled, /^HTTP\/1\.1 408 /);
    assert.match(stalled, /"error":"request_timeout"/);
    assert.equal(ctx.config.config, before);
  }));

test('slow headers (slowloris) get 408 with the error body and the connection closed', () =>
  withServer(async ({ port }) => {
    const reply = await rawExchange(port, 'GET /api/v1/system HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    assert.match(reply, /^HTTP\/1\.1 408 /);
    assert.match(reply, /Connection: close/);
    assert.match(reply, /\{"error":"request_timeout","message":"[^"]+","details":\{\}\}$/);
  }));

test('a malformed request line is 400 and oversized headers are 431, both with the error body', () =>
  withServer(async ({ port }) => {
    const malformed = await rawExchange(port, 'GARBAGE\r\n\r\n');
    assert.match(malformed, /^HTTP\/1\.1 400 /);
    assert.match(malformed, /"error":"bad_request"/);
    const huge = await rawExchange(
      port,
      `GET /api/v1/system HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    assert.match(huge, /^HTTP\/1\.1 431 /);
    assert.match(huge, /"error":"headers_too_large"/);
  }));

test('garbage behind a response in flight closes the connection without writing into that response', () =>
  withServer(async ({ port }) => {
    // The live stream's headers are out and it never ends; a malformed request pipelined behind
    // it must not put an error response into the event stream (the client would parse it as events).
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /api/v1/live HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(
      'the response headers',
      () => received,
      (text) => text.includes('\r\n\r\n'),
    );
    assert.match(received, /^HTTP\/1\.1 200 /);
    socket.write('GARBAGE\r\n\r\n');
    await closed;
    assert.equal((received.match(/HTTP\/1\.1 /g) ?? []).length, 1, received);
    assert.doesNotMatch(received, /bad_request/);
  }));

test('a failing handler is 500 internal_error and logged by path only', () =>
  withServer(async ({ baseUrl, logLines }) => {
    assertErrorBody(await send(baseUrl, 'GET', '/test/throws?token=secret-query'), 500, 'internal_error');
    const line = logLines.find((entry) => entry.includes('handler exploded'));
    assert.ok(line, 'the failure is logged');
    assert.doesNotMatch(line, /secret-query/);
  }));

test('license FREE hides the report (404 license_required); other routes stay', () =>
  withServer(
    async ({ baseUrl }) => {
      assertErrorBody(await send(baseUrl, 'GET', '/api/v1/report'), 404, 'license_required');
      assert.equal((await send(baseUrl, 'GET', '/api/v1/system')).status, 200);
    },
    { METER_GATEWAY_LICENSE_TYPE: 'FREE' },
  ));

test('1,000 concurrent connections are all answered with the same report', () =>
  withServer(
    async ({ port, ctx, clock }) => {
      clock.freeze();
      ctx.store.ingest(syntheticReading(clock.now()));
      const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
      const one = (): Promise<{ status: number; body: string }> =>
        new Promise((resolve, reject) => {
          const request = httpRequest(
            { host: '127.0.0.1', port, path: '/api/v1/report', agent },
            (response) => {
              let body = '';
              response.on('data', (chunk: Buffer) => (body += chunk.toString()));
              response.on('end', () => resolve({ status: response.statusCode!, body }));
            },
          );
          request.on('error', reject);
          request.end();
        });
      const replies = await Promise.all(Array.from({ length: 1000 }, one));
      agent.destroy();
      assert.equal(replies.filter((reply) => reply.status === 200).length, 1000);
      assert.equal(new Set(replies.map((reply) => reply.body)).size, 1);
      assert.ok(JSON.parse(replies[0]!.body).report.energy);
    },
    {},
    'default',
  ));

test('start rejects when the port is taken (the daemon then exits 1)', async () => {
  const first = await startHttpContext();
  try {
    await assert.rejects(
      startHttpContext({ env: { METER_GATEWAY_HTTP_PORT: String(first.port) } }),
      /EADDRINUSE/,
    );
  } finally {
    await first.close();
  }
});
