// The export limiter's decision in GET /api/v1/peak (docs/architecture.md#export-limiter): a
// negative import price asks for PV off, the running peak guard predicts the window above its
// limit, so the limiter runs zero export and the guard's view says why, as its contract declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { ExportLimiter } from '../../src/export-limiter/limiter.js';
import { peakForecastOf, showDecisionInPeakView } from '../../src/export-limiter/peak-link.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import type { PriceSignal, QuarterPrice } from '../../src/price-signal.js';
import { startHttpContext } from '../helpers/http-context.js';
import { startSimulatedInverter } from '../helpers/simulated-inverter.js';
import { waitFor } from '../helpers/wait.js';
import { send } from '../http/http-client.js';
import { responseProblems } from '../http/openapi-check.js';
import { importFeeder } from '../peak/import-feed.js';

process.env.TZ = 'Europe/Brussels';

const QUARTER = 900_000;

/** Every quarter at a negative import and export price. */
const negative: PriceSignal = {
  quarterAt(time) {
    const start = Math.floor(time / QUARTER) * QUARTER;
    return { start, end: start + QUARTER, import: -0.02, export: -0.1, estimated: false } as QuarterPrice;
  },
  quarters: () => [],
  onChange: () => () => undefined,
};

test('GET /api/v1/peak shows the limiter decision: PV off suppressed while the guard predicts the window above its limit', async () => {
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  let limiter: ExportLimiter | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    staleAfterMs: 3_600_000,
    env: {
      METER_GATEWAY_METER_TIMEOUT: '3600',
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_LIMIT_KW: '4',
      METER_GATEWAY_SERVICES_EXPORT_LIMITER_ENABLED: 'true',
      METER_GATEWAY_SERVICES_EXPORT_LIMITER_MODE: 'price',
      METER_GATEWAY_SERVICES_EXPORT_LIMITER_STALE_AFTER_S: '3600',
    },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      ctx.prices = negative;
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      registerPeakRoutes(router, ctx, guard);
      limiter = new ExportLimiter(ctx, componentLogger(ctx.logger, 'export-limiter'), peakForecastOf(guard));
      showDecisionInPeakView(guard, limiter);
    },
  });
  const inverter = await startSimulatedInverter({ clock: h.ctx.clock, deadTimeMs: 0 });
  const set = h.ctx.config.apply(
    new Map<string, unknown>([
      ['services.export_limiter.inverters', [{ id: 'pv1', source: inverter.source, profile: 'sunspec' }]],
    ]),
  );
  assert.ok(set.ok);
  const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!), runOutput(h.ctx, limiter!)];
  try {
    for (const output of outputs) await output.start();
    // At the start of a quarter, so the minute of 9 kW below lies in one window.
    h.clock.advance(QUARTER - (h.clock.now() % QUARTER) + 1000);
    const feed = importFeeder(h, 100);
    const peakView = async () => (await send(h.baseUrl, 'GET', '/api/v1/peak')).json();
    // A small import: the window stays below 4 kW, so the negative import price turns PV off.
    feed(0.5, 3);
    const off = await waitFor('PV off', peakView, (view) => view.export_limiter?.decision === 'pv_off');
    assert.deepEqual(Object.keys(off.export_limiter).sort(), ['decision', 'mode', 'reason', 'state']);
    assert.equal(off.export_limiter.mode, 'price');
    assert.match(off.export_limiter.reason, /import price -0.02 < 0: PV off/);
    // 9 kW for a minute: the guard predicts the window above 4 kW; PV off would add to it.
    feed(9, 60);
    const suppressed = await waitFor(
      'zero export instead of PV off',
      async () => {
        feed(9, 1);
        return peakView();
      },
      (view) => view.export_limiter?.decision === 'zero_export',
    );
    assert.ok(suppressed.predicted_kw > 4, `predicted ${suppressed.predicted_kw} kW`);
    assert.match(
      suppressed.export_limiter.reason,
      /PV off suppressed: the peak guard predicts [\d.]+ kW above 4 kW/,
    );
    const doc = (await send(h.baseUrl, 'GET', '/api/v1/openapi.json')).json();
    const reply = await send(h.baseUrl, 'GET', '/api/v1/peak');
    assert.deepEqual(
      responseProblems(doc, 'get', '/api/v1/peak', reply.status, 'application/json', reply.text),
      [],
    );
    // Disabled: the field is gone.
    h.ctx.config.apply(new Map<string, unknown>([['services.export_limiter.enabled', false]]));
    await waitFor('no limiter in the view', peakView, (view) => view.export_limiter === undefined);
  } finally {
    for (const output of outputs.reverse()) await output.stop();
    await inverter.close();
    await h.close();
  }
});
