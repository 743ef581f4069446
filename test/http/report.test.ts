import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes, type CoreRoutes } from '../../src/http/server.js';
import { buildReport } from '../../src/reading/report.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';
import { send, sendJsonBody } from './http-client.js';

async function withServer(
  fn: (server: HttpTestContext, core: CoreRoutes) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  let core: CoreRoutes | undefined;
  // The clock stands still from the start: time since boot is exactly the hour the context sets.
  const server = await startHttpContext({
    env,
    clockFrozen: true,
    routes: (router, ctx) => (core = registerCoreRoutes(router, ctx)),
  });
  try {
    await fn(server, core!);
  } finally {
    await server.close();
  }
}

test('before the first reading the report is 200 with meter and system objects and no measurements', () =>
  withServer(async ({ baseUrl, ctx }) => {
    const reply = await send(baseUrl, 'GET', '/api/v1/report');
    assert.equal(reply.status, 200);
    const body = reply.json();
    assert.deepEqual(body.report, { id: 0 });
    assert.equal(body.meter.status, 'NOT CONNECTED');
    assert.equal(body.meter.interface, 'SIMULATOR');
    assert.equal(body.system.id, ctx.system.id);
    assert.equal(body.system.boot_id, ctx.system.bootId);
    assert.equal(body.system.time_since_boot, 3600);
  }));

test('after a reading the report is exactly buildReport of the store, with measurements', () =>
  withServer(async ({ baseUrl, ctx, clock }) => {
    clock.freeze();
    ctx.store.ingest(syntheticReading(clock.now() - 1000));
    ctx.store.ingest(syntheticReading(clock.now(), 1));
    const reply = await send(baseUrl, 'GET', '/api/v1/report');
    const expected = buildReport({
      reading: ctx.store.latest,
      reportId: ctx.store.reportId,
      interval: ctx.store.interval,
      meter: ctx.store.meter,
      system: ctx.system,
      convFactor: 1,
      now: clock.now(),
    });
    assert.equal(reply.text, JSON.stringify(expected));
    const { report, meter } = reply.json();
    assert.equal(report.id, 2);
    assert.equal(report.interval, 1);
    assert.equal(report.tariff, 2);
    assert.equal(report.energy.active.positive.t1, 9811.205);
    assert.equal(report.instantaneous_power.active.positive.total, 2.413);
    assert.equal(report.volume[0].meter_id, 'G0058000987654321');
    assert.equal(meter.status, 'OK');
    assert.equal(meter.protocol, 'DSMR');
    assert.equal(meter.vendor, 'Iskraemeco');
  }));

test('the report is serialised once per change, not per request', () =>
  withServer(async ({ baseUrl, ctx, clock }, core) => {
    clock.freeze();
    ctx.store.ingest(syntheticReading(clock.now()));
    const bodies = new Set<string>();
    for (let i = 0; i < 50; i++) bodies.add((await send(baseUrl, 'GET', '/api/v1/report')).text);
    assert.equal(bodies.size, 1);
    assert.equal(core.report.builds, 1);

    ctx.store.ingest(syntheticReading(clock.now(), 5));
    const afterReading = (await send(baseUrl, 'GET', '/api/v1/report')).json();
    assert.equal(afterReading.report.id, 2);
    assert.equal(core.report.builds, 2);

    ctx.store.setStatus('NOT RECOGNIZED');
    assert.equal((await send(baseUrl, 'GET', '/api/v1/report')).json().meter.status, 'NOT RECOGNIZED');
    assert.equal(core.report.builds, 3);

    const put = await sendJsonBody(baseUrl, 'PUT', '/api/v1/meter/settings', { conv_factor: 2.5 });
    assert.equal(put.status, 200);
    assert.equal((await send(baseUrl, 'GET', '/api/v1/report')).json().report.conv_factor, 2.5);
    assert.equal(core.report.builds, 4);

    clock.advance(1000);
    const later = (await send(baseUrl, 'GET', '/api/v1/report')).json();
    assert.equal(later.system.time_since_boot, 3601, 'system time moves with the clock second');
    assert.equal(core.report.builds, 5);
  }));

test("while the reading is stale (before the store's timer turns the status) the report is still built once", () =>
  withServer(async ({ baseUrl, ctx, clock }, core) => {
    clock.freeze();
    ctx.store.ingest(syntheticReading(clock.now()));
    await send(baseUrl, 'GET', '/api/v1/report');
    const builds = core.report.builds;
    clock.advance(61_000);
    for (let i = 0; i < 20; i++) {
      const body = (await send(baseUrl, 'GET', '/api/v1/report')).json();
      assert.equal(body.meter.status, 'NO DATA');
      assert.equal(body.report.energy, undefined);
    }
    assert.equal(core.report.builds, builds + 1);
  }));

test('a stale reading leaves the report: no old numbers are passed off as current', () =>
  withServer(async ({ baseUrl, ctx, clock }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    assert.ok((await send(baseUrl, 'GET', '/api/v1/report')).json().report.energy);
    clock.advance(61_000);
    const body = (await send(baseUrl, 'GET', '/api/v1/report')).json();
    assert.equal(body.report.energy, undefined);
  }));

test('license FREE answers 404 license_required; PLUS serves the report', async () => {
  await withServer(
    async ({ baseUrl }) => {
      const reply = await send(baseUrl, 'GET', '/api/v1/report');
      assert.equal(reply.status, 404);
      assert.equal(reply.json().error, 'license_required');
      // The refusal's message key beside its English, for the web page's languages.
      assert.equal(reply.json().key, 'error.license_required');
      assert.deepEqual(reply.json().args, { path: '/api/v1/report' });
    },
    { METER_GATEWAY_LICENSE_TYPE: 'FREE' },
  );
  await withServer(
    async ({ baseUrl }) => {
      assert.equal((await send(baseUrl, 'GET', '/api/v1/report')).status, 200);
    },
    { METER_GATEWAY_LICENSE_TYPE: 'PLUS' },
  );
});
