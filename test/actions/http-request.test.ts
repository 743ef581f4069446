import { test } from 'node:test';
import assert from 'node:assert/strict';
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
    assert.equal(status.code, -2);
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
    assert.equal((await rig.callAndWait('down')).code, -3);
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
