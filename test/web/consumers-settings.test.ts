import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireChromium } from '../helpers/browser.js';
import { setUp, settingsOf, valueWhere } from './page-rig.js';
import { waitFor } from '../helpers/wait.js';

test('Settings, Consumers: switching the HomeWizard personality on serves /api and shows the address to give', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t, { METER_GATEWAY_SERVICES_BROADCAST: 'true' });
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  await valueWhere(page, '#form-services input[name="services.emulate.homewizard.meter"]', 'is', 'main');
  assert.equal((await fetch(`${daemon.baseUrl}/api`)).status, 404);
  await page.locator('#form-services input[name="services.emulate.homewizard.enable"]').check();
  await page.locator('#form-services button[type=submit]').click();
  type View = { services: { emulate: { homewizard: { enable: boolean; meter: string } } } };
  const saved = await waitFor(
    'the personality saved on',
    async () => (await settingsOf<View>(daemon.baseUrl)).services.emulate.homewizard,
    (homewizard) => homewizard.enable,
  );
  assert.deepEqual(saved, { enable: true, meter: 'main' });
  assert.equal((await fetch(`${daemon.baseUrl}/api`)).status, 200);
  assert.equal(await page.locator('#homewizard-address').textContent(), new URL(daemon.baseUrl).host);
  // The Info page lists what mDNS announces, the HomeWizard service among it.
  await page.goto(`${daemon.baseUrl}/#/info`);
  await page
    .locator('#info-services [data-service="mdns"]', { hasText: '_hwenergy._tcp' })
    .waitFor({ timeout: 10_000 });
  assert.deepEqual(pageErrors, []);
});

test('Settings, Consumers: switching the Shelly personality on stores its port and smoothing and shows its addresses', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  const form = '#form-services';
  // Hidden by the API while at their defaults, the fields show the schema's defaults.
  await valueWhere(page, `${form} input[name="services.emulate.shelly.meter"]`, 'is', 'main');
  await valueWhere(page, `${form} input[name="services.emulate.shelly.udp_port"]`, 'is', '1010');
  await valueWhere(page, `${form} select[name="services.emulate.shelly.smoothing.mode"]`, 'is', 'off');
  assert.equal((await fetch(`${daemon.baseUrl}/shelly`)).status, 404);
  await page.locator(`${form} input[name="services.emulate.shelly.enable"]`).check();
  await page.locator(`${form} input[name="services.emulate.shelly.udp_port"]`).fill('0');
  await page.locator(`${form} select[name="services.emulate.shelly.smoothing.mode"]`).selectOption('average');
  await page.locator(`${form} input[name="services.emulate.shelly.smoothing.seconds"]`).fill('8');
  await page
    .locator(`${form} select[name="services.emulate.homewizard.smoothing.mode"]`)
    .selectOption('hold');
  await page.locator(`${form} button[type=submit]`).click();
  type Personality = { enable: boolean; meter: string; smoothing?: { mode: string; seconds: number } };
  type View = {
    services: { emulate: { shelly?: Personality & { udp_port?: number }; homewizard: Personality } };
  };
  const saved = await waitFor(
    'the Shelly personality saved on',
    async () => (await settingsOf<View>(daemon.baseUrl)).services.emulate,
    (emulate) => emulate.shelly?.enable === true,
  );
  assert.deepEqual(saved.shelly, { enable: true, udp_port: 0, smoothing: { mode: 'average', seconds: 8 } });
  // Each leaf at its default stays out of the view (seconds: 5).
  assert.deepEqual(saved.homewizard.smoothing, { mode: 'hold' });
  assert.equal((await fetch(`${daemon.baseUrl}/shelly`)).status, 200);
  const host = new URL(daemon.baseUrl).host;
  assert.equal(await page.locator('#shelly-ws-address').textContent(), `ws://${host}/rpc`);
  assert.equal(await page.locator('#shelly-udp-address').textContent(), '-');
  await page.locator(`${form} input[name="services.emulate.shelly.udp_port"]`).fill('1010');
  assert.equal(
    await page.locator('#shelly-udp-address').textContent(),
    `${new URL(daemon.baseUrl).hostname}:1010`,
  );
  assert.deepEqual(pageErrors, []);
});
