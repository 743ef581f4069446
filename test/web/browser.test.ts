import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, requireChromium, type TestBrowser } from '../helpers/browser.js';
import { startDaemonProcess, type DaemonProcess } from '../helpers/daemon-process.js';
import { requireCommand } from '../helpers/environment.js';

/** The real daemon (simulator meter) and a headless Chromium, both cleaned up after the test. */
async function setUp(
  t: TestContext,
  env: Record<string, string> = {},
  credentials?: { username: string; password: string },
): Promise<{
  daemon: DaemonProcess;
  browser: TestBrowser;
  page: Page;
  pageErrors: string[];
  stateDir: string;
}> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-web-'));
  const daemon = await startDaemonProcess(stateDir, env);
  const browser = await launchBrowser(credentials ? { httpCredentials: credentials } : {});
  t.after(async () => {
    await browser.close();
    await daemon.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const page = await browser.context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { daemon, browser, page, pageErrors, stateDir };
}

/** The fields of GET /api/v1/settings and /api/v1/mqtt/settings the tests read. */
interface SettingsView {
  system: { name: string };
  services: { report_interval: number; sd: { enable: boolean } };
}
interface MqttView {
  url: string;
  publish: { qos: number };
  broker: { certificate: string };
}

async function settingsOf<View = SettingsView>(baseUrl: string, path = '/api/v1/settings'): Promise<View> {
  const response = await fetch(`${baseUrl}${path}`);
  assert.equal(response.status, 200);
  return (await response.json()) as View;
}

async function liveCount(page: Page): Promise<number> {
  return Number(await page.locator('#live-count').textContent());
}

/**
 * The part of the page's DOM the predicates below read. Tests compile without the DOM library, and
 * predicates are passed as functions: the page's Content-Security-Policy forbids evaluating strings.
 */
type PageGlobal = {
  document: { querySelector(selector: string): { value?: string; textContent: string | null } | null };
};

/** Waits until the live stream has delivered more than `count` events. */
async function eventsAbove(page: Page, count: number, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    (seen) =>
      Number((globalThis as unknown as PageGlobal).document.querySelector('#live-count')?.textContent) > seen,
    count,
    { timeout },
  );
}

/** Waits until a form control's value passes `test` ('is': equals, 'has': contains, 'not': differs). */
async function valueWhere(
  page: Page,
  selector: string,
  test: 'is' | 'has' | 'not',
  text: string,
): Promise<void> {
  await page.waitForFunction(
    ([sel, how, want]) => {
      const value = (globalThis as unknown as PageGlobal).document.querySelector(sel!)?.value ?? '';
      return how === 'is' ? value === want : how === 'has' ? value.includes(want!) : value !== want;
    },
    [selector, test, text],
  );
}

test('the page loads, the live chart receives events, and a stopped gateway shows "not connected"', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  const response = await page.goto(`${daemon.baseUrl}/`);
  assert.equal(response?.status(), 200);
  assert.equal(await page.title(), 'meter-gateway · meter-gateway');
  // The simulator sends a reading every second; the stream delivers several.
  await eventsAbove(page, 2);
  await page.locator('#meter-status', { hasText: 'OK' }).waitFor();
  assert.match((await page.locator('#p-in').textContent()) ?? '', /^\d+\.\d{3}$/);
  assert.match((await page.locator('[data-live="V_P1"]').textContent()) ?? '', /^\d{3}\.\d$/);
  assert.match((await page.locator('#volumes').textContent()) ?? '', /G0099000000005678: \d+\.\d{3} m³/);
  // uPlot drew the rolling chart with the five series.
  assert.equal(await page.locator('#live-chart canvas').count(), 1);
  assert.equal(await page.locator('#live-chart .u-legend .u-series').count(), 6);
  assert.equal(await page.locator('#stale-banner').isHidden(), true);
  assert.equal(await page.evaluate('document.body.classList.contains("stale")'), false);
  const before = await liveCount(page);
  await eventsAbove(page, before);

  await daemon.stop();
  await page
    .locator('#stale-banner', { hasText: 'Not connected to the gateway' })
    .waitFor({ timeout: 15_000 });
  assert.equal(await page.evaluate('document.body.classList.contains("stale")'), true);
  assert.match((await page.locator('#stale-banner').textContent()) ?? '', /are not current/);
  assert.deepEqual(pageErrors, []);
});

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
  await page.locator('#form-services button[type=submit]').click();
  await page.locator('#form-services .form-status', { hasText: 'Saved.' }).waitFor();
  const services = (await settingsOf(daemon.baseUrl)).services;
  assert.equal(services.report_interval, 45);
  assert.equal(services.sd.enable, true);
  assert.equal((await settingsOf(daemon.baseUrl)).system.name, 'Kitchen meter');

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

  // A correction clears the marks.
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  await page.locator('#form-services input[name="services.report_interval"]').fill('60');
  await page.locator('#form-services input[name="services.modbus.port"]').fill('1502');
  await page.locator('#form-services button[type=submit]').click();
  await page.locator('#form-services .form-status', { hasText: 'Saved.' }).waitFor();
  assert.equal(await page.locator('#form-services .field-error').count(), 0);
  assert.equal((await settingsOf(daemon.baseUrl)).services.report_interval, 60);
});

test("the firmware upload shows its progress bar and the gateway's refusal", async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/maintenance`);
  await page.locator('#firmware-file').setInputFiles({
    name: 'not-a-bundle.bin',
    mimeType: 'application/octet-stream',
    buffer: Buffer.alloc(256 * 1024, 7),
  });
  await page.locator('#firmware-upload').click();
  // A checkout is no release installation: the gateway refuses at once, and the page says why.
  const status = page.locator('#firmware-status', { hasText: 'Refused (HTTP 500)' });
  await status.waitFor({ timeout: 20_000 });
  assert.match((await status.textContent()) ?? '', /not running from a release installation/);
  assert.equal(await page.locator('#firmware-progress').isVisible(), true);
});

test('with protection on the page asks for credentials; with them it loads and streams', async (t) => {
  if (!requireChromium(t)) return;
  const env = { METER_GATEWAY_SYSTEM_PROTECTION: 'true', METER_GATEWAY_SYSTEM_PASSWORD: 'Secret-123' };
  const { daemon, page } = await setUp(t, env);
  // Chromium gets the 401 with the Digest challenge and would show its password prompt; without
  // credentials to give, the navigation ends as ERR_INVALID_AUTH_CREDENTIALS.
  const challenged = page.waitForResponse(`${daemon.baseUrl}/`);
  await assert.rejects(page.goto(`${daemon.baseUrl}/`), /ERR_INVALID_AUTH_CREDENTIALS/);
  const refused = await challenged;
  assert.equal(refused.status(), 401);
  const challenge = (await refused.allHeaders())['www-authenticate'] ?? '';
  assert.match(challenge, /Digest realm="meter-gateway"/);
  assert.match(challenge, /algorithm=MD5/);

  const authorised = await launchBrowser({ httpCredentials: { username: 'admin', password: 'Secret-123' } });
  t.after(() => authorised.close());
  const page2 = await authorised.context.newPage();
  const loaded = await page2.goto(`${daemon.baseUrl}/`);
  assert.equal(loaded?.status(), 200);
  await eventsAbove(page2, 1);
  await page2.locator('#meter-status', { hasText: 'OK' }).waitFor();
  const wrong = await launchBrowser({ httpCredentials: { username: 'admin', password: 'wrong' } });
  t.after(() => wrong.close());
  // A wrong password: the browser tries it, and the page is the 401 error body, not the interface.
  const deniedPage = await wrong.context.newPage();
  const denied = await deniedPage.goto(`${daemon.baseUrl}/`);
  assert.equal(denied?.status(), 401);
  assert.equal(JSON.parse(await denied!.text()).error, 'unauthorized');
  assert.equal(await deniedPage.locator('#live-count').count(), 0);
});

interface HistoryView {
  points: Array<{ t: number; n: number }>;
}

/** Points of today's 1-minute history as the API gives them. */
async function todayHistory(baseUrl: string): Promise<HistoryView['points']> {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const from = Math.floor(midnight.getTime() / 1000);
  const response = await fetch(
    `${baseUrl}/api/v1/history?from=${from}&to=${Math.ceil(Date.now() / 1000)}&resolution=1m`,
  );
  assert.equal(response.status, 200);
  return ((await response.json()) as HistoryView).points;
}

/** The number of points the history page says its chart of `id` shows, once it has loaded. */
async function chartPoints(page: Page, id: string): Promise<number> {
  const note = page.locator(`#${id}-note[data-points]`);
  await note.waitFor({ timeout: 15_000 });
  return Number(await note.getAttribute('data-points'));
}

test('the history charts show what the gateway recorded, also after a daemon restart', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, stateDir, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/`);
  await eventsAbove(page, 3);
  await page.goto(`${daemon.baseUrl}/#/history`);
  assert.ok((await chartPoints(page, 'history-today')) >= 1);
  assert.equal(await page.locator('#history-today canvas').count(), 1);
  assert.equal(await page.locator('#history-year canvas').count(), 1);
  const firstRun = await todayHistory(daemon.baseUrl);
  const firstCount = firstRun.reduce((sum, point) => sum + point.n, 0);
  assert.ok(firstCount >= 3, `only ${firstCount} readings recorded`);
  await daemon.stop();

  // A second start on the same state directory has every bucket of the first run, each with at
  // least the readings it had (the open minute goes on counting when the restart falls into it).
  const second = await startDaemonProcess(stateDir);
  t.after(() => second.stop());
  const afterRestart = await todayHistory(second.baseUrl);
  for (const point of firstRun) {
    const kept = afterRestart.find((candidate) => candidate.t === point.t);
    assert.ok(
      kept && kept.n >= point.n,
      `bucket ${point.t} (${point.n} readings) lost: ${JSON.stringify(kept)}`,
    );
  }
  await page.goto(`${second.baseUrl}/#/history`);
  assert.ok((await chartPoints(page, 'history-today')) >= firstRun.length);
  assert.match(
    (await page.locator('#history-today-note').textContent()) ?? '',
    / points? of 1m; energy import \d+\.\d{3} kWh/,
  );
  assert.deepEqual(pageErrors, []);
});

test("the Modbus page saves a layout as JSON, lists the validator's issues and resets to the default", async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/modbus`);
  await page.locator('#modbus-state', { hasText: 'default layout' }).waitFor();
  const editor = page.locator('#form-modbus textarea[name=layout]');
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

/** Resolves when the daemon process has exited. */
function exitOf(daemon: DaemonProcess): Promise<void> {
  if (daemon.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => daemon.child.once('exit', () => resolve()));
}

test('reboot asks first; dismissed nothing happens, accepted the gateway restarts', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/maintenance`);
  let question = '';
  page.once('dialog', (dialog) => {
    question = dialog.message();
    void dialog.dismiss();
  });
  await page.locator('#reboot').click();
  assert.match(question, /Restart the gateway now\?/);
  assert.equal((await fetch(`${daemon.baseUrl}/api/v1/system`)).status, 200);
  assert.equal(daemon.child.exitCode, null);

  const exited = exitOf(daemon);
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('#reboot').click();
  await page.locator('#maintenance-status', { hasText: 'Restarting' }).waitFor();
  // Without systemd the restart is an exit, which the unit's Restart= would follow.
  await exited;
  assert.match(daemon.output(), /restart requested: reboot requested through the API/);
});

test('factory restore asks first, then deletes the settings made here and restarts', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, stateDir } = await setUp(t);
  const put = await fetch(`${daemon.baseUrl}/api/v1/settings`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ system: { name: 'Before restore' } }),
  });
  assert.equal(put.status, 200);
  await page.goto(`${daemon.baseUrl}/#/settings/maintenance`);
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.locator('#restore').click();
  assert.equal((await settingsOf(daemon.baseUrl)).system.name, 'Before restore');

  const exited = exitOf(daemon);
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('#restore').click();
  await page.locator('#maintenance-status', { hasText: 'Factory settings restored' }).waitFor();
  await exited;
  const restarted = await startDaemonProcess(stateDir);
  t.after(() => restarted.stop());
  assert.equal((await settingsOf(restarted.baseUrl)).system.name, 'meter-gateway');
});
