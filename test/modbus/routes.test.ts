import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_LAYOUT } from '../../src/modbus/layout.js';
import { registerModbusRoutes } from '../../src/http/routes/modbus.js';
import { createModbusService } from '../../src/modbus/service.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { closeClient, connectClient, readWords } from './clients.js';
import { freePort, syntheticReading } from './fixtures.js';
import { runOutput } from '../../src/output-runner.js';

const LAYOUT = [
  {
    start_address: 55,
    word_order: 'lsw',
    registers: [
      { id: '32.7.0', type: 'float', scaler: 1 },
      { id: '96.1.0' },
      { id: '1.8.0' },
      { id: 'report.timestamp' },
    ],
  },
  { start_address: 0, registers: [{ id: 'power.active', type: 'int', scaler: 3 }] },
];

/** LAYOUT with the defaults the API fills in: word_order msw, type double, scaler 0, timestamps int. */
const LAYOUT_COMPACT = [
  {
    start_address: 55,
    word_order: 'lsw',
    registers: [
      { id: '32.7.0', type: 'float', scaler: 1 },
      { id: '96.1.0' },
      { id: '1.8.0', type: 'double', scaler: 0 },
      { id: 'report.timestamp', type: 'int', scaler: 0 },
    ],
  },
  { start_address: 0, word_order: 'msw', registers: [{ id: 'power.active', type: 'int', scaler: 3 }] },
];

async function withApi(t: { after: (fn: () => Promise<void>) => void }): Promise<HttpTestContext> {
  const api = await startHttpContext({ routes: (router, ctx) => registerModbusRoutes(router, ctx) });
  t.after(() => api.close());
  return api;
}

const post = (api: HttpTestContext, body: unknown) =>
  fetch(`${api.baseUrl}/api/v1/modbus`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

test('GET without a custom layout is 404 with the error body; bad address_format is 400', async (t) => {
  const api = await withApi(t);
  for (const query of ['', '?address_format=dec', '?address_format=hex']) {
    const response = await fetch(`${api.baseUrl}/api/v1/modbus${query}`);
    assert.equal(response.status, 404);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(body.error, 'not_found');
    assert.equal(typeof body.message, 'string');
    assert.deepEqual(body.details, {});
  }
  for (const format of ['HEX', 'oct', '']) {
    const response = await fetch(`${api.baseUrl}/api/v1/modbus?address_format=${format}`);
    assert.equal(response.status, 400, format);
    assert.equal(((await response.json()) as { error: string }).error, 'bad_request');
  }
});

test('POST stores the layout: 200 compact effective configuration, GET compact/dec/hex, persisted', async (t) => {
  const api = await withApi(t);
  const created = await post(api, LAYOUT);
  assert.equal(created.status, 200);
  assert.deepEqual(await created.json(), LAYOUT_COMPACT);
  assert.deepEqual(await (await fetch(`${api.baseUrl}/api/v1/modbus`)).json(), LAYOUT_COMPACT);

  const dec = (await (await fetch(`${api.baseUrl}/api/v1/modbus?address_format=dec`)).json()) as Array<
    Record<string, unknown>
  >;
  assert.deepEqual(dec[0], {
    start_address: 55,
    end_address: 55 + 2 + 12 + 4 + 2,
    size: 20,
    word_order: 'lsw',
    registers: [
      { id: '32.7.0', type: 'float', scaler: 1, address: 55, size: 2 },
      { id: '96.1.0', address: 57, size: 12 },
      { id: '1.8.0', type: 'double', scaler: 0, address: 69, size: 4 },
      { id: 'report.timestamp', type: 'int', scaler: 0, address: 73, size: 2 },
    ],
  });
  const hex = (await (await fetch(`${api.baseUrl}/api/v1/modbus?address_format=hex`)).json()) as Array<
    Record<string, unknown>
  >;
  assert.equal(hex[0]!.start_address, '0x0037');
  assert.equal(hex[0]!.end_address, '0x004B');
  assert.deepEqual(
    (hex[0]!.registers as Array<{ address: string }>).map((r) => r.address),
    ['0x0037', '0x0039', '0x0045', '0x0049'],
  );
  assert.deepEqual(hex[1], {
    start_address: '0x0000',
    end_address: '0x0002',
    size: 2,
    word_order: 'msw',
    registers: [{ id: 'power.active', type: 'int', scaler: 3, address: '0x0000', size: 2 }],
  });
  const stored = JSON.parse(readFileSync(join(api.stateDir, 'modbus.json'), 'utf8')) as {
    modbus: { layout: unknown };
  };
  assert.deepEqual(stored.modbus.layout, LAYOUT_COMPACT);
});

test('what GET returns (compact, dec or hex) can be POSTed back unchanged', async (t) => {
  const api = await withApi(t);
  assert.equal((await post(api, DEFAULT_LAYOUT)).status, 200);
  for (const query of ['', '?address_format=dec', '?address_format=hex']) {
    const got = await (await fetch(`${api.baseUrl}/api/v1/modbus${query}`)).json();
    const again = await post(api, got);
    assert.equal(again.status, 200, query);
    assert.deepEqual(await again.json(), DEFAULT_LAYOUT);
  }
});

test('an invalid POST is 400 validation_failed naming set and register, and changes nothing', async (t) => {
  const api = await withApi(t);
  assert.equal((await post(api, LAYOUT)).status, 200);
  const invalid = [
    {
      start_address: 100,
      registers: [
        { id: '1.8.0', type: 'float' },
        { id: 'sys.timestamp', type: 'float' },
      ],
    },
    { start_address: 101, registers: [{ id: '96.1.1', scaler: 2 }] },
  ];
  const response = await post(api, invalid);
  assert.equal(response.status, 400);
  const body = (await response.json()) as {
    error: string;
    details: { issues: Array<Record<string, unknown>> };
  };
  assert.equal(body.error, 'validation_failed');
  assert.deepEqual(
    body.details.issues.map(({ set, register, field }) => ({ set, register, field })),
    [
      { set: 0, register: 1, field: 'type' },
      { set: 1, register: 0, field: 'scaler' },
      { set: 1, register: 0, field: 'start_address' },
    ],
  );
  assert.equal((await post(api, { start_address: 1 })).status, 400);
  assert.deepEqual(await (await fetch(`${api.baseUrl}/api/v1/modbus`)).json(), LAYOUT_COMPACT);
});

test('DELETE is 204 and restores the default: GET 404 and the slave serves the default layout', async (t) => {
  const api = await withApi(t);
  const port = await freePort();
  api.ctx.config.apply(
    new Map<string, unknown>([
      ['services.modbus.port', port],
      ['services.modbus.enable', true],
    ]),
  );
  const service = createModbusService(api.ctx, { host: '127.0.0.1' });
  const running = runOutput(api.ctx, service);
  await running.start();
  t.after(() => running.stop());
  api.ctx.store.ingest(syntheticReading(api.clock.now()));
  const client = await connectClient(port);
  t.after(() => closeClient(client));

  assert.equal((await post(api, LAYOUT)).status, 200);
  assert.equal((await readWords(client, 0, 2)).readInt32BE(0), 822); // power.active in W
  const deleted = await fetch(`${api.baseUrl}/api/v1/modbus`, { method: 'DELETE' });
  assert.equal(deleted.status, 204);
  assert.equal(await deleted.text(), '');
  assert.equal((await fetch(`${api.baseUrl}/api/v1/modbus`)).status, 404);
  assert.equal((await readWords(client, 0, 1)).toString('hex'), '0000'); // address 0 is outside every default set
  assert.equal((await readWords(client, 1, 2)).readFloatBE(0), Math.fround(230.1));
  assert.equal((await fetch(`${api.baseUrl}/api/v1/modbus`, { method: 'DELETE' })).status, 204);
});

test('GET /api/v1/modbus/default shows the default layout the slave serves, compact or detailed', async () => {
  const server = await startHttpContext({ routes: (router, ctx) => registerModbusRoutes(router, ctx) });
  try {
    const compact = await fetch(`${server.baseUrl}/api/v1/modbus/default`);
    assert.equal(compact.status, 200);
    assert.deepEqual(await compact.json(), JSON.parse(JSON.stringify(DEFAULT_LAYOUT)));
    const hex = (await (
      await fetch(`${server.baseUrl}/api/v1/modbus/default?address_format=hex`)
    ).json()) as Array<{
      start_address: string;
    }>;
    assert.match(hex[0]!.start_address, /^0x[0-9A-F]{4}$/);
    assert.equal((await fetch(`${server.baseUrl}/api/v1/modbus/default?address_format=oct`)).status, 400);
  } finally {
    await server.close();
  }
});
