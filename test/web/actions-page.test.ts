// The Actions page's form in headless Chromium on the real daemon: an action made without typing
// JSON, saved, run against a real loopback HTTP server, messages next to the fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { requireChromium } from '../helpers/browser.js';
import { freePort, recordingServer } from '../actions/rig.js';
import { jsonOf, setUp } from './page-rig.js';

interface Stored {
  const: Record<string, unknown>;
  actions: Array<Record<string, unknown>>;
}

/** Picks an entry of a request's value picker by its shown text; it goes in at the cursor. */
async function pick(page: Page, request: ReturnType<Page['locator']>, field: string, text: string) {
  await request.locator(`[data-field=${field}]`).click();
  await page.keyboard.press('End');
  const picker = request.locator('select.value-picker');
  const value = await picker.locator('option', { hasText: text }).first().getAttribute('value');
  await picker.selectOption(value!);
}

test('the Actions form makes an action without JSON, saves it, runs it and shows the result', async (t) => {
  if (!requireChromium(t)) return;
  const target = await recordingServer(200);
  t.after(() => target.close());
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/actions`);
  const form = page.locator('#form-action');
  await form.locator('[name="when.value"]').waitFor({ state: 'attached' });
  await page.locator('#actions-list', { hasText: 'No actions yet.' }).waitFor();

  await form.locator('[name=id]').fill('plug');
  // Schedule from a preset, condition from the quantity table (label and unit shown).
  await form.locator('[name="schedule.kind"]').selectOption('weekdays');
  await form.locator('[name="schedule.time"]').fill('07:30');
  await form.locator('[name="when.enable"]').check();
  await form.locator('[name="when.value"]').selectOption({ label: 'Active power export (kW)' });
  assert.equal(await form.locator('label:has([name="when.threshold"]) .unit').textContent(), '(kW)');
  await form.locator('[name="when.kind"]').selectOption('above');
  await form.locator('[name="when.for"]').fill('300');
  // A constant as a row, used in the URL through the value picker.
  await page.locator('#actions-const-add').click();
  await page.locator('#actions-const [name="const.name"]').fill('turn');
  await page.locator('#actions-const [name="const.value"]').fill('on');
  await page.locator('#action-add-http').click();
  const request = form.locator('fieldset.action-request').first();
  await request.locator('[data-field=url]').fill(`${target.url}/relay?turn=`);
  await pick(page, request, 'url', 'turn');
  await request.locator('[data-field=url]').press('End');
  await request.locator('[data-field=url]').pressSequentially('&p=');
  await pick(page, request, 'url', 'Active power import (kW)');
  assert.equal(
    await request.locator('[data-field=url]').inputValue(),
    `${target.url}/relay?turn=\${const.turn}&p=\${1_7_0}`,
  );

  // The form's own check (no threshold) and the server's 400 (an unknown variable) land next to the field.
  await form.locator('#action-save').click();
  await form.locator('.field-error[data-field="actions[0].when.above"]').waitFor();
  await form.locator('[name="when.threshold"]').fill('1.5');
  await request.locator('[data-field=payload]').fill('${nope}');
  await form.locator('#action-save').click();
  const payloadError = form.locator('.field-error[data-field="actions[0].requests[0].http.payload"]');
  await payloadError.waitFor();
  assert.match((await payloadError.textContent()) ?? '', /unknown variable \$\{nope\}/);
  assert.equal(await form.locator('.field-error[data-field="actions[0].when.above"]').count(), 0);
  await request.locator('[data-field=payload]').fill('');
  await form.locator('#action-save').click();
  await form.locator('output.form-status', { hasText: 'Saved.' }).waitFor();
  await page.locator('#actions-list tr[data-action=plug]').waitFor();

  const stored = await jsonOf<Stored>(`${daemon.baseUrl}/api/v1/actions`);
  assert.deepEqual(stored, {
    const: { turn: 'on' },
    actions: [
      {
        id: 'plug',
        enable: true,
        schedule: '30 7 * * 1-5',
        when: { value: 'P_Out', above: 1.5, for: 300 },
        requests: [{ http: { url: `${target.url}/relay?turn=\${const.turn}&p=\${1_7_0}`, method: 'GET' } }],
      },
    ],
  });

  // Run now from the form: the loopback server records the call; the result is shown.
  await page.locator('#action-run').click();
  const result = page.locator('#action-run-result');
  await result.locator('xpath=self::*[@data-code]').waitFor({ timeout: 15_000 });
  assert.equal(await result.getAttribute('data-code'), '200');
  assert.match((await result.textContent()) ?? '', /^Success — HTTP status 200 in [\d.]+ s$/);
  assert.equal(target.requests.length, 1);
  assert.match(target.requests[0]!.url, /^\/relay\?turn=on&p=(\d+(\.\d+)?|null)$/);

  // Editing shows the stored action in the builders again.
  await form.locator('#action-new').click();
  await page.locator('#actions-list tr[data-action=plug] button', { hasText: 'Edit' }).click();
  assert.equal(await form.locator('[name="schedule.kind"]').inputValue(), 'weekdays');
  assert.equal(await form.locator('[name="schedule.time"]').inputValue(), '07:30');
  assert.equal(await form.locator('[name="when.value"]').inputValue(), 'P_Out');
  assert.equal(await form.locator('[name="when.threshold"]').inputValue(), '1.5');
  assert.deepEqual(pageErrors, []);
});

test('a refused connection is shown by the code table; without a definition the list is empty and nothing answers 404', async (t) => {
  if (!requireChromium(t)) return;
  const closed = await freePort();
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/actions`);
  const form = page.locator('#form-action');
  await form.locator('[name="when.value"]').waitFor({ state: 'attached' });
  await form.locator('[name=id]').fill('nobody');
  await page.locator('#action-add-http').click();
  await form.locator('fieldset.action-request [data-field=url]').fill(`http://127.0.0.1:${closed}/x`);
  await page.locator('#action-run').click();
  const result = page.locator('#action-run-result');
  await result.locator('xpath=self::*[@data-code]').waitFor({ timeout: 15_000 });
  const choices = await jsonOf<{ status_codes: Array<{ code: number; name: string }> }>(
    `${daemon.baseUrl}/api/v1/actions/choices`,
  );
  const refused = choices.status_codes.find((entry) => entry.name === 'connection')!.code;
  assert.equal(await result.getAttribute('data-code'), String(refused));
  assert.match((await result.textContent()) ?? '', /^Failed — connection refused or host unreachable/);

  // Without a definition (deleted) the page's own route answers null where the device's GET answers
  // 404: the page shows no actions, and asks nothing that fails.
  const deleted = await fetch(`${daemon.baseUrl}/api/v1/actions`, { method: 'DELETE' });
  assert.equal(deleted.status, 204);
  assert.equal((await fetch(`${daemon.baseUrl}/api/v1/actions`)).status, 404);
  const missing: string[] = [];
  page.on('response', (response) => {
    if (response.status() === 404) missing.push(response.url());
  });
  await page.reload();
  await page.locator('#actions-list', { hasText: 'No actions yet.' }).waitFor();
  assert.deepEqual(missing, []);
  assert.equal(await page.locator('#actions-status').textContent(), '');
  assert.deepEqual(pageErrors, []);
});

test('a Modbus write made with the form is stored as the API takes it and shown again when edited', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/actions`);
  const form = page.locator('#form-action');
  await form.locator('[name="when.value"]').waitFor({ state: 'attached' });
  await form.locator('[name=id]').fill('sg_ready');
  await form.locator('[name="schedule.kind"]').selectOption('every');
  await form.locator('[name="schedule.minutes"]').fill('15');
  await form.locator('[name=min_interval]').fill('900');
  await page.locator('#action-add-modbus').click();
  const write = form.locator('fieldset.action-request').first();
  assert.equal(await write.locator('[data-field=port]').getAttribute('placeholder'), '502');
  await write.locator('[data-field=host]').fill('127.0.0.2');
  await write.locator('[data-field=func]').selectOption('16');
  await write.locator('[data-field=address]').fill('4000');
  await write.locator('[data-field=type]').selectOption('float');
  await write.locator('[data-field=value]').fill('2.5');
  await write.locator('[data-field=timeout]').fill('600');
  await form.locator('#action-save').click();
  // The timeout's limit is the server's (choices), checked before posting.
  await form.locator('.field-error[data-field="actions[0].requests[0].modbus.timeout"]').waitFor();
  await write.locator('[data-field=timeout]').fill('');
  await form.locator('#action-save').click();
  await form.locator('output.form-status', { hasText: 'Saved.' }).waitFor();
  const stored = await jsonOf<Stored>(`${daemon.baseUrl}/api/v1/actions`);
  assert.deepEqual(stored.actions, [
    {
      id: 'sg_ready',
      enable: true,
      schedule: '*/15 * * * *',
      min_interval: 900,
      requests: [{ modbus: { host: '127.0.0.2', func: 16, address: 4000, value: '2.5', type: 'float' } }],
    },
  ]);
  await form.locator('#action-new').click();
  await page.locator('#actions-list tr[data-action=sg_ready] button', { hasText: 'Edit' }).click();
  assert.equal(await form.locator('[name="schedule.minutes"]').inputValue(), '15');
  assert.equal(await write.locator('[data-field=type]').inputValue(), 'float');
  assert.deepEqual(pageErrors, []);
});
