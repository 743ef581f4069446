import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LogView } from '../../src/contracts/status.js';
import type { SystemView } from '../../src/contracts/system.js';
import { requireChromium } from '../helpers/browser.js';
import { jsonOf, setUp, settingsOf, valueWhere } from './page-rig.js';

test('the Info page shows the facts of /api/v1/system and the log view filters by level', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  // A warning in the log: a settings write with a field nothing takes.
  const put = await fetch(`${daemon.baseUrl}/api/v1/settings`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ system: { colour: 'blue' } }),
  });
  assert.equal(put.status, 200);
  await page.goto(`${daemon.baseUrl}/#/info`);
  const system = await jsonOf<SystemView>(`${daemon.baseUrl}/api/v1/system`);
  const fact = (label: string) => page.locator(`#info-facts dd[data-fact="${label}"]`);
  await fact('Version').waitFor();
  assert.equal(await fact('Version').textContent(), system.runtime.version);
  assert.equal(await fact('Id').textContent(), system.device.id);
  assert.match((await fact('Memory (RSS)').textContent()) ?? '', /^\d+\.\d MB$/);
  assert.match((await fact('Uptime').textContent()) ?? '', /^\d+ (s|min)$/);
  const addresses = system.runtime.addresses.map((entry) => entry.address);
  for (const address of addresses) assert.ok((await fact('Addresses').textContent())!.includes(address));
  assert.ok((await page.locator('#info-counters dt').count()) > 0);

  const lines = page.locator('#log-lines li');
  await lines.filter({ hasText: 'http: listening on 127.0.0.1' }).first().waitFor();
  await page.locator('#log-level').selectOption('warn');
  await page.locator('#log-status', { hasText: /^\d+ lines/ }).waitFor();
  await page.waitForFunction(() => {
    type Item = { dataset: { level?: string } };
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<Item> } })
      .document;
    const items = [...doc.querySelectorAll('#log-lines li')];
    return (
      items.length > 0 &&
      items.every((item) => item.dataset.level === 'warn' || item.dataset.level === 'error')
    );
  });
  const shown = await lines.allTextContents();
  assert.ok(shown.some((text) => text.includes('ignored unknown fields system.colour')));
  const api = await jsonOf<LogView>(`${daemon.baseUrl}/api/v1/log?level=warn`);
  assert.equal(shown.length, api.lines.length);
  assert.deepEqual(pageErrors, []);
});

test('a settings backup downloaded from the page restores the settings; a bad file changes nothing', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, stateDir } = await setUp(t);
  const put = (body: unknown) =>
    fetch(`${daemon.baseUrl}/api/v1/settings`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  assert.equal((await put({ system: { name: 'Backed up' }, services: { report_interval: 17 } })).status, 200);
  await page.goto(`${daemon.baseUrl}/#/settings/maintenance`);
  const downloading = page.waitForEvent('download');
  await page.locator('#backup-download').click();
  const download = await downloading;
  assert.match(download.suggestedFilename(), /^meter-gateway-settings-\d{4}-\d\d-\d\d\.json$/);
  const file = join(stateDir, 'downloaded-backup.json');
  await download.saveAs(file);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as { secrets_included: boolean };
  assert.equal(saved.secrets_included, false);

  assert.equal(
    (await put({ system: { name: 'Changed since' }, services: { report_interval: 45 } })).status,
    200,
  );
  await page.locator('#backup-file').setInputFiles(file);
  await page.locator('#backup-restore').click();
  await page.locator('#backup-status', { hasText: 'Restored' }).waitFor();
  const restored = await settingsOf(daemon.baseUrl);
  assert.equal(restored.system.name, 'Backed up');
  assert.equal(restored.services.report_interval, 17);

  const bad = JSON.parse(readFileSync(file, 'utf8')) as { settings: { services: Record<string, unknown> } };
  bad.settings.services.report_interval = 99_999;
  const badFile = join(stateDir, 'bad-backup.json');
  writeFileSync(badFile, JSON.stringify(bad));
  await page.locator('#backup-file').setInputFiles(badFile);
  await page.locator('#backup-restore').click();
  await page
    .locator('#backup-status', { hasText: 'Not restored, nothing changed: services.report_interval' })
    .waitFor();
  assert.equal((await settingsOf(daemon.baseUrl)).services.report_interval, 17);

  // With secrets ticked the link says so, and so does the file.
  await page.locator('#backup-secrets').check();
  assert.match((await page.locator('#backup-download').textContent()) ?? '', /passwords and keys/);
  const withSecrets = page.waitForEvent('download');
  await page.locator('#backup-download').click();
  assert.match((await withSecrets).suggestedFilename(), /-with-secrets\.json$/);
});

test('the dashboard hints at a password until one is set', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/dashboard`);
  await page.locator('#first-run-hint').waitFor({ state: 'visible' });
  const put = await fetch(`${daemon.baseUrl}/api/v1/settings`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ system: { password: 'first-password' } }),
  });
  assert.equal(put.status, 200);
  await page.reload();
  await page.locator('#first-run-hint').waitFor({ state: 'hidden' });
});

test('the MQTT tab sets Home Assistant discovery on or off and its state interval', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/mqtt`);
  const form = page.locator('#form-mqtt-discovery');
  await valueWhere(page, '#form-mqtt-discovery input[name=state_interval]', 'is', '10');
  assert.equal(await form.locator('input[name=enable]').isChecked(), true);
  await form.locator('input[name=enable]').uncheck();
  await form.locator('input[name=state_interval]').fill('30');
  await form.locator('button[type=submit]').click();
  await form.locator('.form-status', { hasText: 'Saved.' }).waitFor();
  assert.deepEqual(await jsonOf(`${daemon.baseUrl}/api/v1/mqtt/discovery`), {
    enable: false,
    state_interval: 30,
  });

  await form.locator('input[name=state_interval]').fill('9999');
  await form.locator('button[type=submit]').click();
  await form.locator('.field-error[data-field="state_interval"]').waitFor();
  assert.deepEqual(pageErrors, []);
});

test('the Modbus tab shows the served layout as a table, without a failed request when no custom layout is set', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') failed.push(message.text());
  });
  await page.goto(`${daemon.baseUrl}/#/settings/modbus`);
  const row = page.locator('#modbus-table tr[data-id="power.active"]');
  await row.waitFor();
  const detailed = await jsonOf<Array<{ registers: Array<{ id: string; address: number }> }>>(
    `${daemon.baseUrl}/api/v1/modbus/default?address_format=dec`,
  );
  const address = detailed
    .flatMap((set) => set.registers)
    .find((register) => register.id === 'power.active')!.address;
  const cells = await row.locator('td').allTextContents();
  assert.deepEqual(cells.slice(0, 6), [
    String(address),
    `0x${address.toString(16).toUpperCase().padStart(4, '0')}`,
    'Active power, import minus export',
    'kW',
    // The register type in words, from the page's catalogue (modbus.type.float).
    '32-bit float',
    '×10^3',
  ]);
  assert.match((await page.locator('#modbus-state').textContent()) ?? '', /default layout/);
  assert.match(await page.locator('#form-modbus textarea[name=layout]').inputValue(), /"power.active"/);

  const custom = [
    { start_address: 100, word_order: 'lsw', registers: [{ id: '1.8.0', type: 'double', scaler: 0 }] },
  ];
  const saved = await fetch(`${daemon.baseUrl}/api/v1/modbus`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(custom),
  });
  assert.equal(saved.status, 200);
  await page.reload();
  await page.locator('#modbus-state', { hasText: 'A custom layout is in use.' }).waitFor();
  const energy = await page.locator('#modbus-table tr[data-id="1.8.0"] td').allTextContents();
  assert.deepEqual(energy.slice(0, 5), ['100', '0x0064', 'Energy import', 'kWh', '64-bit float']);
  assert.deepEqual(failed, []);
  assert.deepEqual(pageErrors, []);
});
