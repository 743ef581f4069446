import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireChromium } from '../helpers/browser.js';
import { setUp, settingsOf } from './page-rig.js';

test('settings locked by the add-on options are disabled and marked; the form still saves the others', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t, {
    METER_GATEWAY_ADDON_ENABLE: 'true',
    METER_GATEWAY_ADDON_LOCKED: 'services.modbus.enable,services.modbus.port',
  });
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  const enable = page.locator('#form-services input[name="services.modbus.enable"]');
  const port = page.locator('#form-services input[name="services.modbus.port"]');
  await page.locator('#form-services .locked-note').first().waitFor();
  assert.equal(await enable.isDisabled(), true);
  assert.equal(await port.isDisabled(), true);
  assert.equal(await page.locator('#form-services .locked-note').count(), 2);
  assert.match(await page.locator('#form-services').innerText(), /locked by the add-on options/);
  assert.equal(
    await page.locator('#form-services input[name="services.report_interval"]').isDisabled(),
    false,
  );

  await page.locator('#form-services input[name="services.report_interval"]').fill('40');
  await page.locator('#form-services button[type=submit]').click();
  await page.locator('#form-services .form-status', { hasText: 'Saved.' }).waitFor();
  assert.equal((await settingsOf(daemon.baseUrl)).services.report_interval, 40);
  assert.deepEqual(pageErrors, []);
});
