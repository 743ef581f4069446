import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { quietPeriod } from '../helpers/wait.js';
import { recordingServer, startActionsRig } from './rig.js';
import { syntheticReading } from '../helpers/http-context.js';

test('an HTTP action sends method, headers and payload with constants and template variables substituted', async () => {
  const target = await recordingServer(201);
  const rig = await startActionsRig();
  try {
    rig.ctx.store.ingest(syntheticReading(rig.clock.now()));
    const answer = await rig.post({
      const: { url: target.url, token: 'abc', on: true },
      actions: [
        {
          id: 'plug',
          requests: [
            {
              http: {
                url: '${const.url}/switch?sys=${sys.id}',
                method: 'POST',
                headers: { Authorization: 'Bearer ${const.token}', 'X-Power': '${1_7_0}' },
                payload: '{"on":${const.on},"p":${power.in},"id":"${sys.id}"}',
              },
            },
          ],
        },
      ],
    });
    assert.equal(answer.status, 200);
    const status = await rig.callAndWait('plug');
    assert.equal(status.code, 201);
    assert.equal(status.action_id, 'plug');
    assert.equal(target.requests.length, 1);
    const [request] = target.requests;
    assert.equal(request!.method, 'POST');
    assert.equal(request!.url, '/switch?sys=A1B2C3D4E5F6');
    assert.equal(request!.headers.authorization, 'Bearer abc');
    assert.equal(request!.headers['x-power'], '2.412');
    assert.deepEqual(JSON.parse(request!.body), { on: true, p: 2.412, id: 'A1B2C3D4E5F6' });
    const system = (await (await fetch(`${rig.baseUrl}/api/v1/actions/recent`)).json()) as {
      counters: Record<string, { runs: number; ok: number; last_code: number }>;
    };
    assert.deepEqual(
      {
        runs: system.counters.plug!.runs,
        ok: system.counters.plug!.ok,
        code: system.counters.plug!.last_code,
      },
      { runs: 1, ok: 1, code: 201 },
    );
    assert.equal(
      (rig.ctx.services.get('actions')!.actions as Record<string, { runs: number }>).plug!.runs,
      1,
    );
  } finally {
    await rig.close();
    await target.close();
  }
});

test('a slow target gives the timeout code and a log line; the next action still runs', async () => {
  const slow = await recordingServer(200, true);
  const fast = await recordingServer(204);
  const rig = await startActionsRig();
  try {
    await rig.post({
      actions: [
        { id: 'slow', requests: [{ http: { url: `${slow.url}/x`, timeout: 0.3 } }] },
        { id: 'fast', requests: [{ http: { url: `${fast.url}/y` } }] },
      ],
    });
    const status = await rig.callAndWait('slow');
    // The device's table: -3 "Response receive timeout".
    assert.equal(status.code, -3);
    assert.ok(rig.logLines.some((line) => line.includes('no answer within 300 ms')));
    assert.equal((await rig.callAndWait('fast')).code, 204);
  } finally {
    await rig.close();
    await slow.close();
    await fast.close();
  }
});

test('an unreachable target is a connection error code; the first failing request ends the action', async () => {
  const target = await recordingServer(500);
  const after = await recordingServer(200);
  const rig = await startActionsRig();
  try {
    await after.close();
    await rig.post({
      actions: [
        { id: 'down', requests: [{ http: { url: `${after.url}/gone` } }] },
        {
          id: 'chain',
          requests: [{ http: { url: `${target.url}/a` } }, { http: { url: `${target.url}/b` } }],
        },
      ],
    });
    // The device's table: -17 "Cannot connect".
    assert.equal((await rig.callAndWait('down')).code, -17);
    assert.equal((await rig.callAndWait('chain')).code, 500);
    assert.deepEqual(
      target.requests.map((request) => request.url),
      ['/a'],
    );
  } finally {
    await rig.close();
    await target.close();
  }
});

test('redirects are not followed and a POST is not retried', async () => {
  const target = await recordingServer(302);
  const rig = await startActionsRig();
  try {
    await rig.post({
      actions: [{ id: 'r', requests: [{ http: { url: `${target.url}/r`, method: 'POST', payload: 'x' } }] }],
    });
    assert.equal((await rig.callAndWait('r')).code, 302);
    assert.equal(target.requests.length, 1);
  } finally {
    await rig.close();
    await target.close();
  }
});

test('HTTP_PROXY is honoured: the request goes through the proxy', async () => {
  const target = await recordingServer(200);
  // A tunnelling proxy (RFC 9110 §9.3.6 CONNECT) that records what it was asked for.
  const seen: string[] = [];
  const proxy = createServer();
  proxy.on('connect', (request, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${request.url}`);
    const [host, port] = request.url!.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const rig = await startActionsRig();
  const saved = { ...process.env };
  try {
    for (const name of ['NO_PROXY', 'no_proxy', 'http_proxy']) delete process.env[name];
    process.env.HTTP_PROXY = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    await rig.post({ actions: [{ id: 'p', requests: [{ http: { url: `${target.url}/via-proxy` } }] }] });
    assert.equal((await rig.callAndWait('p')).code, 200, rig.logLines.join('\n'));
    assert.deepEqual(seen, [`CONNECT ${new URL(target.url).host}`]);
    assert.equal(target.requests[0]!.url, '/via-proxy');
  } finally {
    for (const name of ['HTTP_PROXY', 'NO_PROXY', 'no_proxy', 'http_proxy']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await rig.close();
    proxy.closeAllConnections();
    proxy.close();
    await target.close();
  }
});

test('a POST whose connection breaks is not sent again', async () => {
  let received = 0;
  const breaking = createServer((request) => {
    received += 1;
    request.socket.destroy();
  });
  breaking.listen(0, '127.0.0.1');
  await once(breaking, 'listening');
  const { port } = breaking.address() as AddressInfo;
  const rig = await startActionsRig();
  try {
    await rig.post({
      actions: [
        {
          id: 'b',
          requests: [{ http: { url: `http://127.0.0.1:${port}/`, method: 'POST', payload: 'on' } }],
        },
      ],
    });
    // The device's table: -4 "Response receive error".
    assert.equal((await rig.callAndWait('b')).code, -4);
    await quietPeriod(500);
    assert.equal(received, 1);
  } finally {
    await rig.close();
    breaking.close();
  }
});
