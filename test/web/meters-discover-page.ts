// Child process of the "Find on the network" test in meters-page.test.ts, run inside a network
// namespace whose only link leads to the test's dongles (test/device/mdns-dongles-peer.ts): the
// daemon (announcing its own Shelly and HomeWizard personalities) and Chromium both run in it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireChromium } from '../helpers/browser.js';
import { waitFor } from '../helpers/wait.js';
import { setUp } from './page-rig.js';

// Started with --after-stdin-line, the test begins after the first line on stdin: the parent test
// starts this process beside the dongles' peer and says when the dongles answer.
if (process.argv.includes('--after-stdin-line')) {
  await new Promise<void>((resolve) => {
    process.stdin.once('data', () => resolve());
    process.stdin.once('end', () => resolve());
  });
  process.stdin.destroy();
}

test('Settings: "Find on the network" lists the dongles mDNS found, not the gateway itself; picking one fills the form', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t, {
    METER_GATEWAY_SERVICES_BROADCAST: 'true',
    METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
    METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
  });
  await page.goto(`${daemon.baseUrl}/#/settings/meter`);
  const form = page.locator('#form-meters');
  await form.locator('#meters-add:not([disabled])').click();
  const row = form.locator('.meter-entry').nth(0);
  await row.getByLabel('Id', { exact: true }).fill('grid2');
  await row.getByLabel('Name', { exact: true }).fill('Second grid meter');
  const find = row.getByRole('button', { name: 'Find on the network' });
  assert.equal(await find.isVisible(), false, 'hidden for a Modbus TCP source');
  await row.getByLabel('Source', { exact: true }).selectOption('shelly');
  await find.click();
  await waitFor(
    'the browse finished',
    () => row.locator('.meter-test').textContent(),
    (text) => /^devices found: \d+$/.test(text ?? '') || /no HomeWizard/.test(text ?? ''),
    { deadlineMs: 20_000 },
  );
  const picker = row.getByLabel('Found devices');
  const offered = await picker.locator('option').allTextContents();
  // The gateway's own personalities (shellypro3em-<its id>, p1meter-<its serial>) are not offered.
  assert.deepEqual(offered, [
    'choose a device…',
    'p1meter-334455 · HWE-P1 · 10.231.80.2',
    'shellypro3em-c8f09e8e1234 · Pro3EM · 10.231.80.2:8080',
  ]);
  await picker.selectOption({ label: 'p1meter-334455 · HWE-P1 · 10.231.80.2' });
  assert.equal(await row.getByLabel('Source', { exact: true }).inputValue(), 'homewizard');
  assert.equal(await row.getByLabel('Host name or IP address').inputValue(), '10.231.80.2');
  assert.equal(await row.locator('.meter-uri').textContent(), 'Source URI: homewizard://10.231.80.2');
  await picker.selectOption({ label: 'shellypro3em-c8f09e8e1234 · Pro3EM · 10.231.80.2:8080' });
  assert.equal(await row.getByLabel('Source', { exact: true }).inputValue(), 'shelly');
  assert.equal(await row.getByLabel('TCP port').inputValue(), '8080');
  assert.equal(await row.locator('.meter-uri').textContent(), 'Source URI: shelly://10.231.80.2:8080');
  await form.getByRole('button', { name: 'Save' }).click();
  await waitFor(
    'saved',
    () => form.locator('.form-status').textContent(),
    (text) => text === 'saved',
  );
  const settings = (await (await fetch(`${daemon.baseUrl}/api/v1/settings`)).json()) as {
    meters: Array<{ id: string; source?: string }>;
  };
  assert.deepEqual(
    settings.meters.map((meter) => [meter.id, meter.source]),
    [['grid2', 'shelly://10.231.80.2:8080']],
  );
  assert.deepEqual(pageErrors, []);
});
