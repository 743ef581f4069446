import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { registerMeterTestRoute } from '../../src/http/routes/meter-test.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send } from '../http/http-client.js';

/** "Test this source": the first reading in the report's shape, or the exact error; nothing stored. */

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('POST /api/v1/meters/test: a working source answers its first reading, a dead one its error, a bad one a 400', async (t) => {
  const h = await startHttpContext({
    env: { METER_GATEWAY_METER_SIMULATOR_INTERVAL: '0.2' },
    routes: (router, ctx) => registerMeterTestRoute(router, ctx),
  });
  t.after(() => h.close());
  const post = (body: unknown) =>
    send(h.baseUrl, 'POST', '/api/v1/meters/test', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const good = (await post({ source: 'simulator', wait: 5 })).json();
  assert.equal(good.ok, true);
  assert.equal(good.meter.status, 'OK');
  assert.equal(typeof good.report.instantaneous_power.active.positive.total, 'number');
  const port = await closedPort();
  const dead = (await post({ source: `tcp://127.0.0.1:${port}?protocol=dsmr`, wait: 2 })).json();
  assert.equal(dead.ok, false);
  assert.equal(dead.status, 'NOT CONNECTED');
  assert.equal(dead.error, `cannot open tcp://127.0.0.1:${port}?protocol=dsmr: no reading within 2 s`);
  const bad = await post({ source: 'modbus-rtu:/dev/ttyUSB0?unit=0' });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /unit must be/);
  assert.deepEqual(h.ctx.config.config.meters, [], 'nothing stored');
});

test('POST /api/v1/meters/test tells nothing about files and ports: one "cannot open" answer, paths only to device nodes', async (t) => {
  const h = await startHttpContext({ routes: (router, ctx) => registerMeterTestRoute(router, ctx) });
  t.after(() => h.close());
  const post = (body: unknown) =>
    send(h.baseUrl, 'POST', '/api/v1/meters/test', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  // A listening port that answers garbage, a closed port, a missing and an existing non-device node.
  const open = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
  await new Promise<void>((resolve) => open.listen(0, '127.0.0.1', resolve));
  t.after(() => open.close());
  const openPort = (open.address() as { port: number }).port;
  const closed = await closedPort();
  const answers = [];
  for (const source of [
    `tcp://127.0.0.1:${openPort}?protocol=dsmr`,
    `tcp://127.0.0.1:${closed}?protocol=dsmr`,
    'serial:/dev/ttyNOSUCH9',
    'serial:/dev/null/x',
    'modbus-rtu:/dev/shm?unit=1',
  ]) {
    const answer = (await post({ source, wait: 1 })).json();
    answers.push({
      ...answer,
      error: answer.error.replace(source, 'SOURCE'),
      error_args: { ...answer.error_args, source: answer.error_args.source.replace(source, 'SOURCE') },
    });
  }
  for (const answer of answers)
    assert.deepEqual(answer, {
      ok: false,
      status: 'NOT CONNECTED',
      error: 'cannot open SOURCE: no reading within 1 s',
      // The error's key beside it, for the web page's languages.
      error_key: 'meters.test_no_reading',
      error_args: { source: 'SOURCE', seconds: 1 },
    });
  for (const source of [
    'serial:/etc/passwd',
    'file:/etc/passwd',
    'modbus-rtu:/tmp/x?unit=1',
    'serial:/dev/../etc/passwd',
  ]) {
    const refused = await post({ source, wait: 1 });
    assert.equal(refused.status, 400, `${source}: ${refused.text}`);
  }
});
