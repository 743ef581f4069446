import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireChromium } from '../helpers/browser.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { setUp, setUpChildProcess, settingsOf } from './page-rig.js';

test("the firmware page shows the gateway's refusal of a file that is no release bundle", async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/settings/maintenance`);
  await page.locator('#firmware-file').setInputFiles({
    name: 'not-a-bundle.bin',
    mimeType: 'application/octet-stream',
    buffer: Buffer.alloc(256 * 1024, 7),
  });
  await page.locator('#firmware-upload').click();
  // Verification comes first: the gateway refuses the file at once, and the page says why.
  const status = page.locator('#firmware-status', { hasText: 'Refused (HTTP 400)' });
  await status.waitFor({ timeout: 20_000 });
  assert.match((await status.textContent()) ?? '', /MGBUNDLE|bundle/);
  assert.equal(await page.locator('#firmware-progress').isVisible(), true);
});

test('reboot asks first; dismissed nothing happens, accepted the gateway restarts', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page } = await setUpChildProcess(t);
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

  const exited = daemon.exited;
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('#reboot').click();
  await page.locator('#maintenance-status', { hasText: 'Restarting' }).waitFor();
  // Without systemd the restart is an exit, which the unit's Restart= would follow.
  await exited;
  assert.match(daemon.output(), /restart requested: reboot requested through the API/);
});

test('factory restore asks first, then deletes the settings made here and restarts', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, stateDir } = await setUpChildProcess(t);
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

  const exited = daemon.exited;
  page.once('dialog', (dialog) => void dialog.accept());
  await page.locator('#restore').click();
  await page.locator('#maintenance-status', { hasText: 'Factory settings restored' }).waitFor();
  await exited;
  // Stopped here, not in an after hook: the set-up's hooks run first and remove the state folder,
  // which this daemon still writes to.
  const restarted = await startDaemonProcess(stateDir);
  try {
    assert.equal((await settingsOf(restarted.baseUrl)).system.name, 'meter-gateway');
  } finally {
    await restarted.stop();
  }
});
