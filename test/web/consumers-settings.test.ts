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
