// The export limiter over HTTP (docs/architecture.md#export-limiter): GET /api/v1/export-limiter as
// its OpenAPI contract declares it, the SSE stream, and services.export_limiter through the settings
// API (a bad inverter source, a refresh longer than half the revert time: 400 naming the field).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExportLimiter } from '../../src/export-limiter/limiter.js';
import { registerExportLimiterRoutes } from '../../src/http/routes/export-limiter.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { valuesOf } from '../../src/reading/reading.js';
import { startHttpContext } from '../helpers/http-context.js';
import { startSimulatedInverter } from '../helpers/simulated-inverter.js';
import { waitFor } from '../helpers/wait.js';
import { send, sendJsonBody } from '../http/http-client.js';
import { responseProblems } from '../http/openapi-check.js';
import { openStream } from '../http/sse-client.js';

test('GET /api/v1/export-limiter follows its contract, the stream sends export_limiter events, settings are validated', async () => {
  let limiter: ExportLimiter | undefined;
  const h = await startHttpContext({
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      limiter = new ExportLimiter(ctx, componentLogger(ctx.logger, 'export-limiter'));
      registerExportLimiterRoutes(router, ctx, limiter);
    },
  });
  const inverter = await startSimulatedInverter({ clock: h.ctx.clock, deadTimeMs: 0 });
  const output = runOutput(h.ctx, limiter!);
  await output.start();
  try {
    const off = (await send(h.baseUrl, 'GET', '/api/v1/export-limiter')).json();
    assert.equal(off.enabled, false);
    assert.equal(off.state, 'idle');
    const bad = await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', {
      services: { export_limiter: { inverters: [{ id: 'pv1', source: 'http://x', profile: 'sunspec' }] } },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /services\.export_limiter\.inverters/);
    // A Victron GX answers its ESS settings on unit 100 only: another unit would read another device.
    const victron = await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', {
      services: {
        export_limiter: {
          inverters: [{ id: 'gx', source: 'modbus-tcp://127.0.0.1:502', profile: 'victron_ess' }],
        },
      },
    });
    assert.equal(victron.status, 400);
    assert.match(victron.text, /inverters\[0\]\.source.*unit 100/);
    const refresh = await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', {
      services: { export_limiter: { refresh_s: 100, revert_s: 120 } },
    });
    assert.equal(refresh.status, 400);
    assert.match(refresh.text, /services\.export_limiter\.refresh_s/);
    const on = await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', {
      services: {
        export_limiter: {
          enabled: true,
          inverters: [{ id: 'pv1', source: inverter.source, profile: 'sunspec' }],
        },
      },
    });
    assert.equal(on.status, 200, on.text);
    const stream = await openStream(h.baseUrl, '/api/v1/export-limiter/stream');
    const feed = () =>
      h.ctx.store.ingest({
        receivedAt: h.ctx.clock.now(),
        protocol: 'DSMR',
        identity: {},
        values: valuesOf({ '1.7.0': [0, 'kW'], '2.7.0': [2.2, 'kW'] }),
        mbus: [],
      });
    feed();
    const status = await waitFor(
      'the limiter writing a limit',
      async () => (await send(h.baseUrl, 'GET', '/api/v1/export-limiter')).json(),
      (body) => body.state === 'limiting',
    );
    assert.equal(status.inverters[0].commanded_w, 800);
    assert.equal(status.grid_w, -2200);
    const doc = (await send(h.baseUrl, 'GET', '/api/v1/openapi.json')).json();
    const reply = await send(h.baseUrl, 'GET', '/api/v1/export-limiter');
    assert.deepEqual(
      responseProblems(doc, 'get', '/api/v1/export-limiter', reply.status, 'application/json', reply.text),
      [],
    );
    assert.match(await stream.block(0), /^event: export_limiter\ndata: \{/);
    stream.close();
  } finally {
    await output.stop();
    await inverter.close();
    await h.close();
  }
});
