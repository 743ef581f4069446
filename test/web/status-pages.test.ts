import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { requireChromium } from '../helpers/browser.js';
import { requireCommand } from '../helpers/environment.js';
import { freePort, startMosquitto } from '../mqtt/mosquitto-broker.js';
import { SocatPty } from '../meter/transport/socat-pty.js';
import { tempDir } from '../meter/transport/meter-input-harness.js';
import { closeClient, connectClient, readWords } from '../modbus/clients.js';
import { setUp, valueWhere } from './page-rig.js';

test('the MQTT page and the dashboard show the broker error after a save: refused port, then not authorized', async (t) => {
  if (!requireChromium(t) || !requireCommand(t, 'mosquitto')) return;
  const broker = await startMosquitto({ user: { username: 'gateway', password: 'right' } });
  t.after(() => broker.stop());
  const { daemon, browser, page, pageErrors } = await setUp(t);
  const closed = await freePort();
  await page.goto(`${daemon.baseUrl}/#/settings/mqtt`);
  const form = page.locator('#form-mqtt');
  // The form is filled from the gateway first (its topic has a default); typing before that is lost.
  await valueWhere(page, '#form-mqtt input[name="publish.topic"]', 'has', 'meter-gateway/');
  await form.locator('input[name=enable]').check();
  await form.locator('input[name=url]').fill(`mqtt://127.0.0.1:${closed}`);
  await form.locator('button[type=submit]').click();
  await form.locator('.form-status', { hasText: 'Saved.' }).waitFor();
  const status = page.locator('#mqtt-status [data-service=mqtt]');
  await status.locator('.status-error', { hasText: `connect ECONNREFUSED 127.0.0.1:${closed}` }).waitFor();
  assert.match((await status.locator('.badge').textContent()) ?? '', /retrying|running/);

  // The dashboard (in a second tab: this one keeps its form as it is) shows the same line while
  // the link retries.
  const dashboard = await browser.context.newPage();
  await dashboard.goto(`${daemon.baseUrl}/#/dashboard`);
  await dashboard
    .locator('#dashboard-status [data-service=mqtt] .status-error', { hasText: 'ECONNREFUSED' })
    .waitFor();

  await form.locator('input[name=url]').fill(broker.url);
  await form.locator('input[name=username]').fill('gateway');
  await form.locator('input[name=password]').fill('wrong');
  await form.locator('button[type=submit]').click();
  await status.locator('.status-error', { hasText: /not authori[sz]ed/i }).waitFor();

  await form.locator('input[name=password]').fill('right');
  await form.locator('button[type=submit]').click();
  await status.locator('.badge', { hasText: /^running$/ }).waitFor();
  await status.locator('.status-detail', { hasText: /^connected/ }).waitFor();
  assert.deepEqual(await status.locator('.status-error').allTextContents(), []);
  assert.deepEqual(pageErrors, []);
});

test('the probe offers the serial ports present, and the meter status names why its port does not open', async (t) => {
  if (!requireChromium(t) || !requireCommand(t, 'socat')) return;
  const devices = tempDir('mg-dev-');
  const pty = new SocatPty(devices);
  await pty.start();
  t.after(async () => {
    await pty.stop();
    rmSync(devices, { recursive: true, force: true });
  });
  symlinkSync(pty.hostPath, join(devices, 'ttyUSB0'));
  const missing = join(devices, 'ttyUSB7');
  const { daemon, page, pageErrors } = await setUp(t, {
    METER_GATEWAY_PATHS_DEVICES: devices,
    METER_GATEWAY_METER_SOURCE: `serial:${missing}?protocol=dsmr`,
  });
  await page.goto(`${daemon.baseUrl}/#/dashboard`);
  const meter = page.locator('#dashboard-status [data-service=meter]');
  await meter.locator('.status-error', { hasText: missing }).waitFor();
  assert.match((await meter.locator('.status-error').textContent()) ?? '', /cannot open/);

  await page.goto(`${daemon.baseUrl}/#/settings/meter`);
  const picker = page.locator('#probe-ports');
  await picker.locator(`option[value="${join(devices, 'ttyUSB0')}"]`).waitFor({ state: 'attached' });
  await picker.selectOption(join(devices, 'ttyUSB0'));
  assert.equal(await page.locator('#form-probe input[name=device]').inputValue(), join(devices, 'ttyUSB0'));
  assert.deepEqual(pageErrors, []);
});

test('the services tab shows the Modbus TCP slave listening with its clients and requests, and why the RTU slave is down', async (t) => {
  if (!requireChromium(t)) return;
  const port = await freePort();
  const missing = join(tempDir('mg-rtu-'), 'ttyUSB5');
  const { daemon, page, pageErrors } = await setUp(t, {
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(port),
    METER_GATEWAY_MODBUS_TCP_HOST: '127.0.0.1',
    METER_GATEWAY_SERVICES_MODBUS_RTU_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_RTU_DEVICE: missing,
  });
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  const tcp = page.locator('#services-status [data-service=modbus]');
  await tcp.locator('.badge', { hasText: /^running$/ }).waitFor();
  await tcp
    .locator('.status-detail', { hasText: `port ${port} · clients 0 · requests 0 · errors 0` })
    .waitFor();
  const rtu = page.locator('#services-status [data-service=modbus_rtu]');
  await rtu.locator('.status-error', { hasText: missing }).waitFor();

  // Closed by the test itself, before the daemon stops (a client of a stopped slave never hears its close).
  const client = await connectClient(port);
  try {
    await readWords(client, 1, 2);
    await tcp
      .locator('.status-detail', { hasText: `port ${port} · clients 1 · requests 1 · errors 0` })
      .waitFor();
  } finally {
    await closeClient(client);
  }
  assert.deepEqual(pageErrors, []);
});

test('cloud switches without a URL say that one is needed, and a switched-on one shows it in the status', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t, {
    METER_GATEWAY_CLOUD_PARTNER_A_URL: 'http://127.0.0.1:9/report',
  });
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  await page.locator('[data-url-note=vendor]', { hasText: 'needs cloud.vendor.url' }).waitFor();
  assert.equal(await page.locator('[data-url-note=partner_a]').textContent(), '');
  await valueWhere(page, '#form-services input[name="services.report_interval"]', 'is', '30');
  await page.locator('#form-services input[name="services.cloud.vendor"]').check();
  await page.locator('#form-services button[type=submit]').click();
  await page
    .locator('#services-status [data-service=cloud] .status-error', {
      hasText: 'vendor is switched on but has no URL',
    })
    .waitFor();
  assert.deepEqual(pageErrors, []);
});
