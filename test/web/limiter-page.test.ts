// The export limiter's web interface in real Chromium on an in-process gateway with a simulated
// SunSpec inverter on loopback: the dashboard card follows the page stream's export_limiter events (state,
// grid power, the inverter's output and commanded limit), and the settings form stores
// services.export_limiter (a number and an inverter row added), shows it again after a reload and
// marks the server's 400 on the inverter field it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ExportLimiter, type LimiterStatus } from '../../src/export-limiter/limiter.js';
import { registerExportLimiterRoutes } from '../../src/http/routes/export-limiter.js';
import { registerMetersRoutes } from '../../src/http/routes/meters.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { valuesOf } from '../../src/reading/reading.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startHttpContext } from '../helpers/http-context.js';
import { startSimulatedInverter } from '../helpers/simulated-inverter.js';
import { waitFor } from '../helpers/wait.js';
import { enableLimiterOn, jsonOf } from './page-rig.js';

async function startGateway() {
  let limiter: ExportLimiter | undefined;
  const h = await startHttpContext({
    staleAfterMs: 3_600_000,
    env: { METER_GATEWAY_METER_TIMEOUT: '3600', METER_GATEWAY_LICENSE_TYPE: 'PLUS' },
    routes: (router, ctx) => {
      const core = registerCoreRoutes(router, ctx);
      registerMetersRoutes(router, ctx, core);
      limiter = new ExportLimiter(ctx, componentLogger(ctx.logger, 'export-limiter'));
      registerExportLimiterRoutes(router, ctx, limiter, core.page);
      registerWebRoutes(router, ctx);
    },
  });
  const inverter = await startSimulatedInverter({ clock: h.ctx.clock, deadTimeMs: 0 });
  await enableLimiterOn(h.baseUrl, inverter.source);
  const output = runOutput(h.ctx, limiter!);
  await output.start();
  const feed = (gridW: number) =>
    h.ctx.store.ingest({
      receivedAt: h.ctx.clock.now(),
      protocol: 'DSMR',
      identity: {},
      values: valuesOf({
        '1.7.0': [Math.max(0, gridW) / 1000, 'kW'],
        '2.7.0': [Math.max(0, -gridW) / 1000, 'kW'],
      }),
      mbus: [],
    });
  return {
    h,
    inverter,
    limiter: limiter!,
    feed,
    async stop() {
      await output.stop();
      await inverter.close();
      await h.close();
    },
  };
}

interface CardText {
  state: string;
  grid: string;
  mode: string;
  reason: string;
  row: string;
}

async function card(page: Page): Promise<CardText> {
  const text = async (selector: string) => ((await page.locator(selector).textContent()) ?? '').trim();
  return {
    state: (await page.locator('#limiter-state').getAttribute('data-state')) ?? '',
    grid: await text('#limiter-grid'),
    mode: await text('#limiter-mode'),
    reason: await text('#limiter-reason'),
    row: await text('#limiter-inverters tbody tr[data-inverter="pv1"]'),
  };
}

test('dashboard card: follows the limiter stream (state, grid power, output and commanded limit)', async (t) => {
  if (!requireChromium(t)) return;
  const gateway = await startGateway();
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await gateway.stop();
  });
  const page = await browser.context.newPage();
  await page.goto(`${gateway.h.baseUrl}/#/dashboard`);
  await page.locator('#limiter-card:not([hidden])').waitFor();
  gateway.feed(-2200);
  const status = await waitFor(
    'a limit held',
    () => gateway.limiter.status(),
    (s: LimiterStatus) => s.state === 'limiting',
  );
  const inverter = status.inverters[0]!;
  const limiting = await waitFor(
    'the card limiting',
    () => card(page),
    (shown) => shown.state === 'limiting' && shown.grid === '-2200 W',
    { deadlineMs: 15_000, intervalMs: 100 },
  );
  assert.equal(limiting.mode, 'Zero export');
  assert.equal(limiting.reason, 'mode zero_export');
  assert.match(limiting.row, new RegExp(`^pv1`));
  assert.ok(
    limiting.row.includes(`${inverter.commanded_w} W (${inverter.commanded_pct!.toFixed(1)} %)`),
    limiting.row,
  );
  // A later reading reaches the card without a reload.
  gateway.feed(300);
  await waitFor(
    'the card at the next reading',
    () => card(page),
    (shown) => shown.grid === '300 W',
    { deadlineMs: 15_000, intervalMs: 100 },
  );
  // Switched off: the card goes.
  await jsonOf(`${gateway.h.baseUrl}/api/v1/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ services: { export_limiter: { enabled: false } } }),
  });
  await page.locator('#limiter-card[hidden]').waitFor({ state: 'attached' });
});

test('settings form: a target and a second inverter saved and shown after a reload; a bad address marked on its field', async (t) => {
  if (!requireChromium(t)) return;
  const gateway = await startGateway();
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await gateway.stop();
  });
  const page = await browser.context.newPage();
  await page.goto(`${gateway.h.baseUrl}/#/settings/services`);
  const form = page.locator('#form-limiter');
  await form.locator('fieldset.limiter-inverter').first().waitFor();
  assert.equal(await form.locator('[name="services.export_limiter.enabled"]').isChecked(), true);
  assert.equal(await form.locator('fieldset.limiter-inverter [data-field="id"]').inputValue(), 'pv1');
  await form.locator('[name="services.export_limiter.target_w"]').fill('-150');
  await form.locator('[name="services.export_limiter.mode"]').selectOption('price');
  await form.locator('#limiter-add-inverter').click();
  const second = form.locator('fieldset.limiter-inverter').nth(1);
  await second.locator('[data-field="id"]').fill('pv2');
  await second.locator('[data-field="source"]').fill('modbus-tcp://127.0.0.1:1502?unit=3');
  await second.locator('[data-field="wmax_w"]').fill('4000');
  await form.locator('footer button[type=submit]').click();
  const stored = await waitFor(
    'the settings stored',
    () => gateway.h.ctx.config.config.services.export_limiter,
    (limiter) => limiter.inverters.length === 2,
  );
  assert.equal(stored.target_w, -150);
  assert.equal(stored.mode, 'price');
  assert.deepEqual(stored.inverters[1], {
    id: 'pv2',
    source: 'modbus-tcp://127.0.0.1:1502?unit=3',
    profile: 'sunspec',
    wmax_w: 4000,
  });

  await page.reload();
  await form.locator('fieldset.limiter-inverter').nth(1).waitFor();
  assert.equal(await form.locator('[name="services.export_limiter.target_w"]').inputValue(), '-150');
  assert.equal(await form.locator('[name="services.export_limiter.mode"]').inputValue(), 'price');
  const reloaded = form.locator('fieldset.limiter-inverter').nth(1);
  assert.equal(await reloaded.locator('[data-field="id"]').inputValue(), 'pv2');
  assert.equal(await reloaded.locator('[data-field="wmax_w"]').inputValue(), '4000');

  await reloaded.locator('[data-field="source"]').fill('http://example.invalid/');
  await form.locator('footer button[type=submit]').click();
  await reloaded.locator('[data-field="source"][aria-invalid="true"]').waitFor();
  assert.match((await reloaded.locator('.field-error').textContent()) ?? '', /modbus-tcp:\/\/host/);
  assert.equal(
    gateway.h.ctx.config.config.services.export_limiter.inverters[1]!.source,
    'modbus-tcp://127.0.0.1:1502?unit=3',
    'nothing stored',
  );
});
