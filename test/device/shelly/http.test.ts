import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes } from '../../../src/http/server.js';
import { registerSdCardRoutes } from '../../../src/http/routes/sdcard.js';
import { registerShellyRoutes, SHELLY_FRAME_LIMIT } from '../../../src/http/routes/shelly.js';
import { emDataStatus, emStatus } from '../../../src/device/shelly/em-status.js';
import { requireSharedFile } from '../../helpers/environment.js';
import { readYamlFile } from '../../helpers/yaml.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../../helpers/http-context.js';
import { send, sendJsonBody } from '../../http/http-client.js';

const ON = { METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true' };

async function withServer(
  env: Record<string, string>,
  fn: (server: HttpTestContext) => Promise<void>,
): Promise<void> {
  const server = await startHttpContext({
    env,
    clockFrozen: true,
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      registerSdCardRoutes(router, ctx);
      registerShellyRoutes(router, ctx);
    },
  });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

test('GET /shelly and /rpc/<Method>: the device info and the EM answers of the served meter', () =>
  withServer(ON, async ({ baseUrl, ctx, clock }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const info = (await send(baseUrl, 'GET', '/shelly')).json();
    assert.equal(info.id, 'shellypro3em-a1b2c3d4e5f6');
    assert.equal(info.model, 'SPEM-003CEBEU');
    const em = await send(baseUrl, 'GET', '/rpc/EM.GetStatus?id=0');
    assert.equal(em.status, 200);
    assert.equal(em.text, JSON.stringify(emStatus(ctx.store.latest)));
    assert.equal(em.json().total_act_power, 2412);
    const data = await send(baseUrl, 'GET', '/rpc/EMData.GetStatus?id=0');
    assert.equal(data.text, JSON.stringify(emDataStatus(ctx.store.latest)));
    const status = (await send(baseUrl, 'GET', '/rpc/Shelly.GetStatus')).json();
    assert.deepEqual(status['em:0'], em.json());
    assert.equal((await send(baseUrl, 'GET', '/rpc/Sys.GetStatus')).json().mac, 'A1B2C3D4E5F6');
    assert.equal((await send(baseUrl, 'GET', '/rpc/Shelly.GetConfig')).status, 200);
  }));

test('the device errors: unknown method 404 "No handler for", a component id that does not exist -105', () =>
  withServer(ON, async ({ baseUrl }) => {
    const unknown = await send(baseUrl, 'GET', '/rpc/Switch.GetStatus?id=0');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json(), { code: 404, message: 'No handler for Switch.GetStatus' });
    const refused = await send(baseUrl, 'GET', '/rpc/Switch.Set?id=0&on=true');
    assert.equal(refused.status, 400);
    assert.equal(refused.json().code, -109);
    const missing = await send(baseUrl, 'GET', '/rpc/EM.GetStatus?id=1');
    assert.equal(missing.status, 400);
    assert.equal(missing.json().code, -105);
  }));

test('POST /rpc: JSON-RPC frames in, frames out; malformed and oversized frames refused, the server stays up', () =>
  withServer(ON, async ({ baseUrl, ctx, clock }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const reply = await sendJsonBody(baseUrl, 'POST', '/rpc', {
      id: 7,
      src: 'user_1',
      method: 'EM.GetStatus',
      params: { id: 0 },
    });
    assert.equal(reply.status, 200);
    assert.equal(
      reply.text,
      JSON.stringify({
        id: 7,
        src: 'shellypro3em-a1b2c3d4e5f6',
        dst: 'user_1',
        result: emStatus(ctx.store.latest),
      }),
    );
    const unknown = (await sendJsonBody(baseUrl, 'POST', '/rpc', { id: 8, method: 'Nope.Nope' })).json();
    assert.deepEqual(unknown, {
      id: 8,
      src: 'shellypro3em-a1b2c3d4e5f6',
      error: { code: 404, message: 'No handler for Nope.Nope' },
    });
    const malformed = (await send(baseUrl, 'POST', '/rpc', { body: '{"id":1,' })).json();
    assert.equal(malformed.error.code, -32700);
    assert.equal(malformed.id, null);
    const notRequest = (await send(baseUrl, 'POST', '/rpc', { body: '[1,2]' })).json();
    assert.equal(notRequest.error.code, -32600);
    const big = await send(baseUrl, 'POST', '/rpc', {
      body: `{"id":1,"method":"${'x'.repeat(SHELLY_FRAME_LIMIT)}"}`,
    });
    assert.equal(big.status, 413);
    assert.equal((await send(baseUrl, 'GET', '/rpc/Shelly.GetDeviceInfo')).status, 200);
  }));

test('a stale meter answers as a Shelly that lost its meter, not with old numbers', () =>
  withServer(ON, async ({ baseUrl, ctx, clock }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    clock.advance(61_000);
    const em = (await send(baseUrl, 'GET', '/rpc/EM.GetStatus?id=0')).json();
    assert.deepEqual(em.errors, ['power_meter_failure']);
    assert.equal(em.total_act_power, null);
    assert.equal(em.a_voltage, null);
  }));

test('services.emulate.shelly.meter must name a known meter; off, the paths are unknown like any other', () =>
  withServer({}, async ({ baseUrl, ctx }) => {
    const refused = ctx.config.apply(new Map([['services.emulate.shelly.meter', 'pv']]));
    assert.equal(refused.ok, false);
    assert.match(JSON.stringify(refused), /services\.emulate\.shelly\.meter/);
    const off = await send(baseUrl, 'GET', '/shelly');
    const unknown = await send(baseUrl, 'GET', '/no-such-path');
    assert.equal(off.status, 404);
    assert.equal(off.json().error, unknown.json().error);
    assert.equal((await send(baseUrl, 'POST', '/rpc', { body: '{}' })).status, 404);
  }));

/** The process's memory figures and its uptime (in /api/v1/system) move between any two requests. */
const PROCESS_FIGURES = new Set(['memory', 'uptime_s']);
function withoutProcessFigures(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, inner: unknown) => (PROCESS_FIGURES.has(key) ? undefined : inner)),
  );
}

test('every GET route of the whatwatt Go API answers identically with the personality on', async (t) => {
  const description = requireSharedFile(t, 'reference/whatwatt-go-openapi.yaml');
  if (!description) return;
  const doc = readYamlFile(t, description) as { paths: Record<string, Record<string, unknown>> } | undefined;
  if (!doc) return;
  const paths = Object.entries(doc.paths)
    .filter(([, operations]) => 'get' in operations)
    .map(([path]) => path.replace('{path}', 'missing.csv'));
  assert.ok(paths.length >= 8, `GET paths in the device description: ${paths.join(', ')}`);
  await withServer({}, async ({ baseUrl, ctx, clock }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const answers = async () =>
      Promise.all(
        paths.map(async (path) => {
          // The live stream never ends: its status and headers are what a client sees first.
          if (path === '/api/v1/live') return 'stream';
          const reply = await send(baseUrl, 'GET', path);
          const body = reply.headers['content-type']?.includes('json') ? reply.json() : reply.text;
          // The one intended difference: a non-default personality shows in the settings, like meters.
          if (path === '/api/v1/settings') delete body.services.emulate;
          return { path, status: reply.status, body: withoutProcessFigures(body) };
        }),
      );
    const before = await answers();
    assert.equal(ctx.config.apply(new Map([['services.emulate.shelly.enable', true]])).ok, true);
    assert.deepEqual(await answers(), before);
    assert.equal((await send(baseUrl, 'GET', '/shelly')).status, 200);
  });
});

test('GET and POST /rpc/ with a broken percent-escape answer 400, counted and not logged', () =>
  withServer(ON, async ({ baseUrl, ctx, logLines }) => {
    for (const method of ['GET', 'GET', 'GET', 'POST'] as const) {
      const answer = await send(baseUrl, method, '/rpc/%E0%A4%A');
      assert.equal(answer.status, 400, method);
      assert.equal(answer.json().error, 'bad_request');
    }
    assert.equal(ctx.refusals.get('http_bad_escape'), 4);
    assert.deepEqual(
      logLines.filter((line) => line.includes('%E0')),
      [],
    );
  }));
