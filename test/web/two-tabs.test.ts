// Two dashboard tabs with the peak guard and the export limiter enabled, in real Chromium on an
// in-process gateway (docs/architecture.md#page-stream). A browser keeps at most 6 HTTP/1.1
// connections to one host: with a stream per card (live, peak, limiter) two tabs held all six and
// every further request of that host waited. Each page now holds one stream: the gateway counts 2
// open streams, and a third request completes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { ExportLimiter } from '../../src/export-limiter/limiter.js';
import { registerExportLimiterRoutes } from '../../src/http/routes/export-limiter.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startHttpContext, syntheticReading } from '../helpers/http-context.js';
import { startSimulatedInverter } from '../helpers/simulated-inverter.js';
import { settleWithin, waitFor } from '../helpers/wait.js';
import { enableLimiterOn } from './page-rig.js';

/** Every event stream path of the gateway's web interface and API. */
const STREAM = /^\/api\/v1\/(live|page\/stream|peak\/stream|export-limiter\/stream)(\?|$)/;

/** The server's open event streams, counted from node's `http.server.request.start` channel. */
function streamCounter() {
  const open = new Set<ServerResponse>();
  const onStart = (message: unknown) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    if (!STREAM.test(request.url ?? '')) return;
    open.add(response);
    response.once('close', () => open.delete(response));
  };
  subscribe('http.server.request.start', onStart);
  return {
    open: () => [...open].filter((response) => response.statusCode === 200).length,
    stop: () => unsubscribe('http.server.request.start', onStart),
  };
}

test('two dashboard tabs hold one stream each; a third request to the host completes', async (t) => {
  if (!requireChromium(t)) return;
  const streams = streamCounter();
  const outputs: Array<ReturnType<typeof runOutput>> = [];
  const h = await startHttpContext({
    staleAfterMs: 3_600_000,
    env: {
      METER_GATEWAY_METER_TIMEOUT: '3600',
      METER_GATEWAY_LICENSE_TYPE: 'PLUS',
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
    },
    routes: (router, ctx) => {
      const core = registerCoreRoutes(router, ctx);
      const actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      const guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      registerPeakRoutes(router, ctx, guard, core.page);
      const limiter = new ExportLimiter(ctx, componentLogger(ctx.logger, 'limiter'));
      registerExportLimiterRoutes(router, ctx, limiter, core.page);
      registerWebRoutes(router, ctx);
      outputs.push(runOutput(ctx, actions), runOutput(ctx, guard), runOutput(ctx, limiter));
    },
  });
  const inverter = await startSimulatedInverter({ clock: h.ctx.clock, deadTimeMs: 0 });
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    for (const output of outputs) await output.stop();
    await inverter.close();
    await h.close();
    streams.stop();
  });
  await enableLimiterOn(h.baseUrl, inverter.source);
  for (const output of outputs) await output.start();
  h.ctx.store.ingest(syntheticReading(h.clock.now(), 0));

  const tabs = [await browser.context.newPage(), await browser.context.newPage()];
  for (const tab of tabs) {
    await tab.goto(`${h.baseUrl}/#/dashboard`);
    await tab.locator('#limiter-card:not([hidden])').waitFor();
  }
  let step = 1;
  for (const tab of tabs)
    await waitFor(
      'a live event in the tab',
      async () => {
        h.ctx.store.ingest(syntheticReading(h.clock.now(), step++));
        return tab.locator('#live-age').getAttribute('data-events');
      },
      (events) => Number(events) > 0,
      { deadlineMs: 15_000, intervalMs: 200 },
    );
  for (const tab of tabs) assert.notEqual(await tab.locator('#peak-state').textContent(), '');

  // A further request of the same host (the pool a third tab would share) is answered.
  const status = await settleWithin(
    'a third request to the host',
    tabs[0]!.evaluate(() => fetch('/api/v1/system').then((response) => response.status)),
    10_000,
  );
  assert.equal(status, 200);
  assert.equal(streams.open(), 2, 'one event stream per tab');
  const third = await browser.context.newPage();
  await settleWithin('a third tab', third.goto(`${h.baseUrl}/#/dashboard`), 10_000);
  await third.locator('#limiter-card:not([hidden])').waitFor();
  await waitFor(
    'the third stream',
    () => streams.open(),
    (count) => count === 3,
  );
});
