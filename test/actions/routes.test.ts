import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { requirePeer, requireSharedFile } from '../helpers/environment.js';
import { responseProblems, validate } from '../http/openapi-check.js';
import { PYTHON, recordingServer, startActionsRig } from './rig.js';

type Doc = Parameters<typeof validate>[2];

/** The device's OpenAPI description, read with PyYAML (a real YAML parser). */
function deviceDoc(t: TestContext): Doc | undefined {
  const file = requireSharedFile(t, 'reference/whatwatt-go-openapi.yaml');
  if (!file) return undefined;
  const hasYaml =
    existsSync(PYTHON) &&
    (() => {
      try {
        execFileSync(PYTHON, ['-c', 'import yaml'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();
  if (!requirePeer(t, hasYaml, `${PYTHON} with PyYAML`)) return undefined;
  const json = execFileSync(
    PYTHON,
    ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', file],
    { encoding: 'utf8' },
  );
  const doc = JSON.parse(json) as Doc & { components: { responses: Record<string, unknown> } };
  // Shared responses (`$ref: '#/components/responses/BadRequest'`) resolved in place, as the
  // checker reads a response's content directly.
  for (const operations of Object.values(doc.paths))
    for (const operation of Object.values(operations))
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const ref = response.$ref;
        if (typeof ref === 'string')
          operation.responses[status] = doc.components.responses[
            ref.replace('#/components/responses/', '')
          ] as Record<string, unknown>;
      }
  return doc;
}

const schemaOf = (name: string) => ({ $ref: `#/components/schemas/${name}` });

async function exchange(baseUrl: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    ...(body !== undefined
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    location: response.headers.get('location'),
    text: await response.text(),
  };
}

test('definitions, calls and statuses are as the device OpenAPI describes them', async (t) => {
  const doc = deviceDoc(t);
  if (!doc) return;
  const target = await recordingServer(200);
  const rig = await startActionsRig();
  try {
    const definition = {
      const: { url: target.url, level: 3, on: true },
      actions: [
        {
          id: 'heatpump_sg_on',
          enable: true,
          requests: [
            {
              http: {
                url: '${const.url}/on',
                method: 'PUT',
                payload: '${const.level}',
                headers: { 'X-A': 'b' },
                timeout: 2,
              },
            },
          ],
        },
        {
          id: 'sg',
          enable: false,
          requests: [
            {
              modbus: {
                host: '127.0.0.1',
                port: 502,
                unit_id: 1,
                func: 6,
                address: 10,
                type: 'short',
                value: '2',
                timeout: 1,
              },
            },
          ],
        },
      ],
    };
    assert.deepEqual(validate(schemaOf('ActionsDefinition'), definition, doc), []);
    const check = (method: string, path: string, answer: Awaited<ReturnType<typeof exchange>>) =>
      assert.deepEqual(
        responseProblems(doc as never, method, path, answer.status, answer.type, answer.text),
        [],
      );
    const posted = await exchange(rig.baseUrl, 'POST', '/api/v1/actions', definition);
    assert.equal(posted.status, 200);
    check('POST', '/api/v1/actions', posted);
    const read = await exchange(rig.baseUrl, 'GET', '/api/v1/actions');
    check('GET', '/api/v1/actions', read);
    assert.deepEqual(JSON.parse(read.text), definition);
    const called = await exchange(rig.baseUrl, 'POST', '/api/v1/actions/call?id=heatpump_sg_on');
    assert.equal(called.status, 202);
    check('POST', '/api/v1/actions/call', called);
    const { status_ids: ids } = JSON.parse(called.text) as { status_ids: number[] };
    assert.equal(called.location, `/api/v1/actions/status?id=${ids[0]}`);
    const status = await exchange(rig.baseUrl, 'GET', called.location!);
    check('GET', '/api/v1/actions/status', status);
    const [record] = JSON.parse(status.text) as Array<{ action_id: string; id: number }>;
    assert.deepEqual([record!.action_id, record!.id], ['heatpump_sg_on', ids[0]]);
    const disabled = await exchange(rig.baseUrl, 'POST', '/api/v1/actions/call?id=sg');
    assert.equal(disabled.status, 409);
    check('POST', '/api/v1/actions/call', disabled);
    const unknown = await exchange(rig.baseUrl, 'POST', '/api/v1/actions/call?id=nope');
    assert.equal(unknown.status, 404);
    check('POST', '/api/v1/actions/call', unknown);
    const missing = await exchange(rig.baseUrl, 'POST', '/api/v1/actions/call');
    assert.equal(missing.status, 400);
    assert.equal(
      (JSON.parse(missing.text) as { details: { fields: Array<{ field: string }> } }).details.fields[0]!
        .field,
      'id',
    );
    const deleted = await exchange(rig.baseUrl, 'DELETE', '/api/v1/actions');
    assert.equal(deleted.status, 204);
    check('DELETE', '/api/v1/actions', deleted);
    assert.equal(rig.ctx.config.config.actions.definition, null);
  } finally {
    await rig.close();
    await target.close();
  }
});

/** [what, definition, field the 400 names, whether the device's schema itself rejects it]. */
const BAD: ReadonlyArray<[string, unknown, string, boolean]> = [
  [
    'unknown func',
    { actions: [{ id: 'a', requests: [{ modbus: { host: 'h', func: 3, address: 0, value: '1' } }] }] },
    'actions[0].requests[0].modbus.func',
    true,
  ],
  [
    'unknown type',
    {
      actions: [
        { id: 'a', requests: [{ modbus: { host: 'h', func: 16, address: 0, type: 'word', value: '1' } }] },
      ],
    },
    'actions[0].requests[0].modbus.type',
    true,
  ],
  [
    'value too big for short',
    {
      actions: [
        {
          id: 'a',
          requests: [{ modbus: { host: 'h', func: 6, address: 0, type: 'short', value: '40000' } }],
        },
      ],
    },
    'actions[0].requests[0].modbus.value',
    false,
  ],
  [
    'float for FC 6',
    {
      actions: [
        { id: 'a', requests: [{ modbus: { host: 'h', func: 6, address: 0, type: 'float', value: '1.5' } }] },
      ],
    },
    'actions[0].requests[0].modbus.value',
    false,
  ],
  [
    'text for int',
    {
      actions: [
        { id: 'a', requests: [{ modbus: { host: 'h', func: 16, address: 0, type: 'int', value: 'ten' } }] },
      ],
    },
    'actions[0].requests[0].modbus.value',
    false,
  ],
  [
    'non-http URL',
    { actions: [{ id: 'a', requests: [{ http: { url: 'ftp://h/x' } }] }] },
    'actions[0].requests[0].http.url',
    false,
  ],
  [
    'CR/LF in a header',
    { actions: [{ id: 'a', requests: [{ http: { url: 'http://h/', headers: { 'X-A': 'a\r\nX-B: b' } } }] }] },
    'actions[0].requests[0].http.headers.X-A',
    false,
  ],
  [
    'unknown variable',
    { actions: [{ id: 'a', requests: [{ http: { url: 'http://h/${no_such_thing}' } }] }] },
    'actions[0].requests[0].http.url',
    false,
  ],
  [
    'unknown constant',
    {
      const: { a: 1 },
      actions: [{ id: 'a', requests: [{ http: { url: 'http://h/', payload: '${const.b}' } }] }],
    },
    'actions[0].requests[0].http.payload',
    false,
  ],
  [
    'cron node-cron rejects',
    { actions: [{ id: 'a', schedule: '61 * * * *' }] },
    'actions[0].schedule',
    false,
  ],
  [
    'when on an unknown quantity',
    { actions: [{ id: 'a', when: { value: 'P_Nothing', above: 1, for: 10 } }] },
    'actions[0].when.value',
    false,
  ],
  ['id over 15 characters', { actions: [{ id: 'a_very_long_action_id' }] }, 'actions[0].id', true],
  [
    'port out of range',
    {
      actions: [
        { id: 'a', requests: [{ modbus: { host: 'h', port: 70000, func: 6, address: 0, value: '1' } }] },
      ],
    },
    'actions[0].requests[0].modbus.port',
    true,
  ],
  [
    'bad method',
    { actions: [{ id: 'a', requests: [{ http: { url: 'http://h/', method: 'PATCH' } }] }] },
    'actions[0].requests[0].http.method',
    true,
  ],
];

test('bad definitions answer 400 naming the field, and nothing is stored', async (t) => {
  const doc = deviceDoc(t);
  if (!doc) return;
  const rig = await startActionsRig();
  try {
    for (const [what, definition, field, schemaRejects] of BAD) {
      const answer = await exchange(rig.baseUrl, 'POST', '/api/v1/actions', definition);
      assert.equal(answer.status, 400, `${what}: ${answer.text}`);
      const { details } = JSON.parse(answer.text) as {
        details: { fields: Array<{ field: string; message: string }> };
      };
      assert.ok(
        details.fields.some((entry) => entry.field === field),
        `${what}: ${JSON.stringify(details.fields)}`,
      );
      assert.equal(validate(schemaOf('ActionsDefinition'), definition, doc).length > 0, schemaRejects, what);
      assert.deepEqual(
        responseProblems(doc as never, 'POST', '/api/v1/actions', answer.status, answer.type, answer.text),
        [],
      );
    }
    assert.equal(rig.ctx.config.config.actions.definition, null);
  } finally {
    await rig.close();
  }
});

test("the page's definition route answers null while none is set, where the device's GET answers 404", async () => {
  const rig = await startActionsRig();
  try {
    const view = async () =>
      JSON.parse((await exchange(rig.baseUrl, 'GET', '/api/v1/actions/definition')).text);
    assert.deepEqual(await view(), { definition: null });
    assert.equal((await exchange(rig.baseUrl, 'GET', '/api/v1/actions')).status, 404);
    const definition = {
      const: { level: 3 },
      actions: [
        {
          id: 'plug',
          requests: [{ http: { url: 'http://127.0.0.1:9/on', headers: { Authorization: 'Bearer abc' } } }],
        },
      ],
    };
    assert.equal((await rig.post(definition)).status, 200);
    // As GET /api/v1/actions shows it: the secret header's value replaced by its length.
    const device = JSON.parse((await exchange(rig.baseUrl, 'GET', '/api/v1/actions')).text);
    const shown = (await view()) as { definition: typeof device };
    assert.deepEqual(shown, { definition: device });
    assert.ok(!JSON.stringify(shown).includes('Bearer abc'));
    assert.equal((await exchange(rig.baseUrl, 'DELETE', '/api/v1/actions')).status, 204);
    assert.deepEqual(await view(), { definition: null });
  } finally {
    await rig.close();
  }
});

test('a definition over the documented size answers 413', async () => {
  const rig = await startActionsRig();
  try {
    const big = { const: { text: 'x'.repeat(17 * 1024) }, actions: [] };
    const answer = await exchange(rig.baseUrl, 'POST', '/api/v1/actions', big);
    assert.equal(answer.status, 413);
  } finally {
    await rig.close();
  }
});

test('a call while the action still runs answers 429', async () => {
  const slow = await recordingServer(200, true);
  const rig = await startActionsRig();
  try {
    await rig.post({ actions: [{ id: 'slow', requests: [{ http: { url: `${slow.url}/`, timeout: 2 } }] }] });
    const first = await exchange(rig.baseUrl, 'POST', '/api/v1/actions/call?id=slow');
    assert.equal(first.status, 202);
    const second = await exchange(rig.baseUrl, 'POST', '/api/v1/actions/call?id=slow');
    assert.equal(second.status, 429);
  } finally {
    await rig.close();
    await slow.close();
  }
});

test('under license FREE every actions path answers 404 and no action runs', async () => {
  const target = await recordingServer(200);
  const rig = await startActionsRig({ env: { METER_GATEWAY_LICENSE_TYPE: 'FREE' } });
  try {
    rig.ctx.config.apply(
      new Map<string, unknown>([
        ['actions.definition', { actions: [{ id: 'a', requests: [{ http: { url: `${target.url}/` } }] }] }],
      ]),
    );
    for (const [method, path] of [
      ['GET', '/api/v1/actions'],
      ['POST', '/api/v1/actions'],
      ['DELETE', '/api/v1/actions'],
      ['POST', '/api/v1/actions/call?id=a'],
      ['GET', '/api/v1/actions/status?id=1'],
      ['GET', '/api/v1/actions/definition'],
    ] as const) {
      const answer = await exchange(
        rig.baseUrl,
        method,
        path,
        method === 'POST' && path === '/api/v1/actions' ? {} : undefined,
      );
      assert.equal(answer.status, 404, `${method} ${path}`);
    }
    assert.equal(rig.actions.call('a', 'test').ok, false);
    assert.equal(rig.ctx.services.get('actions')!.state, 'blocked');
    assert.equal(target.requests.length, 0);
  } finally {
    await rig.close();
    await target.close();
  }
});
