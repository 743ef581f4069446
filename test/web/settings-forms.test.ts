import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireChromium } from '../helpers/browser.js';
import { requireCommand } from '../helpers/environment.js';
import { setUp, settingsOf, valueWhere, type MqttView } from './page-rig.js';
import { waitFor } from '../helpers/wait.js';

test('settings saved in the forms are what GET /api/v1/settings and /api/v1/mqtt/settings return', async (t) => {
  if (!requireChromium(t) || !requireCommand(t, 'openssl')) return;
  const { daemon, page, pageErrors, stateDir } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/system`);
  const name = page.locator('#form-system input[name="system.name"]');
  await valueWhere(page, '#form-system input[name="system.name"]', 'is', 'meter-gateway');
  await name.fill('Kitchen meter');
  await page.locator('#form-system button[type=submit]').click();
  await page.locator('#form-system .form-status', { hasText: 'Saved.' }).waitFor();
  assert.equal((await settingsOf(daemon.baseUrl)).system.name, 'Kitchen meter');
  await page.locator('#device-name', { hasText: 'Kitchen meter' }).waitFor({ timeout: 10_000 });

  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  const interval = page.locator('#form-services input[name="services.report_interval"]');
  await valueWhere(page, '#form-services input[name="services.report_interval"]', 'is', '30');
  await interval.fill('45');
  await page.locator('#form-services input[name="services.sd.enable"]').check();
  await page.locator('#form-services input[name="services.metrics.public"]').check();
  await page.locator('#form-services button[type=submit]').click();
  await page.locator('#form-services .form-status', { hasText: 'Saved.' }).waitFor();
  const services = (await settingsOf(daemon.baseUrl)).services;
  assert.equal(services.report_interval, 45);
  assert.equal(services.sd.enable, true);
  assert.deepEqual(services.metrics, { enable: true, public: true, process: false });
  assert.equal((await settingsOf(daemon.baseUrl)).system.name, 'Kitchen meter');

  // The meter emulation: the TCP slave's register map and the RTU slave's line.
  await page.locator('#form-services select[name="services.modbus.profile"]').selectOption('sunspec');
  await page.locator('#form-services input[name="services.modbus_rtu.device"]').fill('/dev/ttyUSB1');
  await page.locator('#form-services input[name="services.modbus_rtu.unit_id"]').fill('11');
  await page.locator('#form-services select[name="services.modbus_rtu.parity"]').selectOption('even');
  await page.locator('#form-services select[name="services.modbus_rtu.profile"]').selectOption('dtsu666');
  await page.locator('#form-services button[type=submit]').click();
  type ServicesView = { services: Record<string, Record<string, unknown>> };
  const emulation = await waitFor(
    'the saved Modbus profile',
    async () => (await settingsOf<ServicesView>(daemon.baseUrl)).services,
    (services) => services.modbus!.profile === 'sunspec',
  );
  assert.equal(emulation.modbus!.profile, 'sunspec');
  assert.deepEqual(emulation.modbus_rtu, {
    enable: false,
    device: '/dev/ttyUSB1',
    baud: 9600,
    parity: 'even',
    stop_bits: 1,
    unit_id: 11,
    profile: 'dtsu666',
    direction: 'import_positive',
  });

  // MQTT: the broker CA from a file input ends up as PEM text in the settings.
  const certificate = join(stateDir, 'ca.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(stateDir, 'ca.key'),
      '-out',
      certificate,
      '-days',
      '2',
      '-subj',
      '/CN=test-ca',
    ],
    { stdio: 'ignore' },
  );
  await page.goto(`${daemon.baseUrl}/#/settings/mqtt`);
  await valueWhere(page, '#form-mqtt input[name="publish.topic"]', 'not', '');
  await page.locator('#form-mqtt input[name=url]').fill('mqtt://127.0.0.1:1');
  await page.locator('#form-mqtt input[data-pem-for="broker.certificate"]').setInputFiles(certificate);
  await valueWhere(page, '#form-mqtt textarea[name="broker.certificate"]', 'has', 'BEGIN CERTIFICATE');
  await page.locator('#form-mqtt select[name="publish.qos"]').selectOption('1');
  await page.locator('#form-mqtt button[type=submit]').click();
  await page.locator('#form-mqtt .form-status', { hasText: 'Saved.' }).waitFor();
  const mqtt = await settingsOf<MqttView>(daemon.baseUrl, '/api/v1/mqtt/settings');
  assert.equal(mqtt.url, 'mqtt://127.0.0.1:1');
  assert.equal(mqtt.publish.qos, 1);
  assert.equal(mqtt.broker.certificate.trim(), readFileSync(certificate, 'utf8').trim());
  assert.deepEqual(pageErrors, []);
});

test("the API's validation errors are shown next to the fields, and nothing is stored", async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  await valueWhere(page, '#form-services input[name="services.report_interval"]', 'is', '30');
  // The controls' limits come from GET /api/v1/settings/limits (the config schema), not the HTML.
  await page.waitForFunction(
    'document.querySelector(\'#form-services input[name="services.report_interval"]\').max === "3600" && ' +
      'document.querySelector(\'#form-eth input[name="ip"]\').maxLength === 15 && ' +
      'document.querySelector(\'#form-mqtt textarea[name="publish.template"]\').maxLength === 8192',
  );
  await page.locator('#form-services input[name="services.report_interval"]').fill('0');
  await page.locator('#form-services input[name="services.modbus.port"]').fill('70000');
  await page.locator('#form-services button[type=submit]').click();
  const intervalError = page.locator('#form-services .field-error[data-field="services.report_interval"]');
  await intervalError.waitFor();
  assert.match((await intervalError.textContent()) ?? '', /1\.\.3600/);
  assert.match(
    (await page.locator('#form-services .field-error[data-field="services.modbus.port"]').textContent()) ??
      '',
    /1\.\.65535/,
  );
  // The message sits right after its input, inside the field's label.
  assert.equal(
    await page.evaluate(
      'document.querySelector(\'#form-services input[name="services.report_interval"]\').nextElementSibling.dataset.field',
    ),
    'services.report_interval',
  );
  assert.equal(
    await page.locator('#form-services input[name="services.report_interval"]').getAttribute('aria-invalid'),
    'true',
  );
  assert.equal((await settingsOf(daemon.baseUrl)).services.report_interval, 30);

  // Wi-Fi: the station rules between fields, named by body field.
  await page.goto(`${daemon.baseUrl}/#/settings/wifi`);
  await page.locator('#form-wifi input[name=static_ip]').check();
  await page.locator('#form-wifi button[type=submit]').click();
  await page
    .locator('#form-wifi .field-error[data-field="ip"]', { hasText: 'required when static_ip is true' })
    .waitFor();

  // A correction clears the marks. The tab reloads the stored settings first; filling before they
  // arrive would be overwritten by them.
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  await valueWhere(page, '#form-services input[name="services.report_interval"]', 'is', '30');
  await page.locator('#form-services input[name="services.report_interval"]').fill('60');
  await page.locator('#form-services input[name="services.modbus.port"]').fill('1502');
  await page.locator('#form-services button[type=submit]').click();
  await page.locator('#form-services .form-status', { hasText: 'Saved.' }).waitFor();
  assert.equal(await page.locator('#form-services .field-error').count(), 0);
  assert.equal((await settingsOf(daemon.baseUrl)).services.report_interval, 60);
});

test("the Modbus page saves a layout as JSON, lists the validator's issues and resets to the default", async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/modbus`);
  await page.locator('#modbus-state', { hasText: 'default layout' }).waitFor();
  const editor = page.locator('#form-modbus textarea[name=layout]');
  // The default layout is shown, as GET /api/v1/modbus/default has it, and its address view too.
  const defaultLayout = await (await fetch(`${daemon.baseUrl}/api/v1/modbus/default`)).json();
  assert.deepEqual(JSON.parse(await editor.inputValue()), defaultLayout);
  await page.locator('#modbus-addresses').click();
  await page.locator('#modbus-detail', { hasText: '"start_address": "0x' }).waitFor();
  await editor.fill(
    JSON.stringify([{ start_address: 100, registers: [{ id: '1.7.0', type: 'float', scaler: 9 }] }]),
  );
  await page.locator('#form-modbus button[type=submit]').click();
  await page
    .locator('#modbus-issues li', { hasText: 'set 0, register 0 scaler: must be an integer in -6..6' })
    .waitFor();
  assert.equal((await fetch(`${daemon.baseUrl}/api/v1/modbus`)).status, 404);

  const layout = [
    { start_address: 100, word_order: 'msw', registers: [{ id: '1.7.0', type: 'float', scaler: 3 }] },
  ];
  await editor.fill(JSON.stringify(layout));
  await page.locator('#form-modbus button[type=submit]').click();
  await page.locator('#form-modbus .form-status', { hasText: 'Saved.' }).waitFor();
  assert.equal(await page.locator('#modbus-issues li').count(), 0);
  assert.deepEqual(await (await fetch(`${daemon.baseUrl}/api/v1/modbus`)).json(), layout);
  await page.locator('#modbus-state', { hasText: 'custom layout' }).waitFor();

  // Reset asks first; dismissed, nothing happens; accepted, the default is back.
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.locator('#modbus-reset').click();
  assert.equal((await fetch(`${daemon.baseUrl}/api/v1/modbus`)).status, 200);
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('#modbus-reset').click();
  await page.locator('#form-modbus .form-status', { hasText: 'Default layout restored.' }).waitFor();
  assert.equal((await fetch(`${daemon.baseUrl}/api/v1/modbus`)).status, 404);
});
