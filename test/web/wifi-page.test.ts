import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWifiBackend } from '../../src/device/wifi/backend.js';
import type { WifiBackend } from '../../src/device/wifi/wifi-backend.js';
import { registerWifiRoutes } from '../../src/http/routes/wifi.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { loadStaticAssets } from '../../src/web/static-assets.js';
import { createFakeNmcli } from '../device/wifi/fake-nmcli.js';
import { SCAN_FIELDS, scanLine } from '../device/wifi/wifi-rig.js';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startHttpContext } from '../helpers/http-context.js';

test('the Wi-Fi page scans, picks a network and saves it with a static address', async (t) => {
  if (!requireChromium(t)) return;
  // No Wi-Fi hardware here: a fake nmcli on the backend's PATH answers the scan.
  const nmcli = createFakeNmcli();
  const sysDir = mkdtempSync(join(tmpdir(), 'mg-web-sys-'));
  nmcli.answer([
    {
      prefix: ['-t', '-f', `${SCAN_FIELDS},BANDWIDTH`],
      stdout: `${scanLine('AA:BB:CC:00:00:01', 'Garden AP', 6, 80, 'WPA2', '20 MHz')}\n`,
    },
  ]);
  let backend: WifiBackend | undefined;
  const http = await startHttpContext({
    routes: (router, ctx) => {
      backend = createWifiBackend(ctx, { pathEnv: nmcli.dir, sysClassNet: sysDir });
      registerWifiRoutes(router, ctx, backend);
      registerWebRoutes(router, ctx, loadStaticAssets());
    },
  });
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await backend?.settle();
    await http.close();
    nmcli.remove();
    rmSync(sysDir, { recursive: true, force: true });
  });
  const page = await browser.context.newPage();
  await page.goto(`${http.baseUrl}/#/settings/wifi`);
  await page.locator('#wifi-scan').click();
  const row = page.locator('#wifi-networks tr', { hasText: 'Garden AP' });
  await row.waitFor();
  assert.match((await row.textContent()) ?? '', /80 % \(-52 dBm\).*channel 6.*WPA2/);
  await row.locator('button', { hasText: 'Use' }).click();
  const form = page.locator('#form-wifi');
  assert.equal(await form.locator('input[name=name]').inputValue(), 'Garden AP');
  await form.locator('input[name=password]').fill('correct horse battery');
  await form.locator('input[name=static_ip]').check();
  await form.locator('input[name=ip]').fill('192.168.1.50');
  await form.locator('input[name=netmask]').fill('255.255.255.0');
  await form.locator('input[name=gateway]').fill('192.168.1.1');
  await form.locator('input[name=dns]').fill('192.168.1.1');
  await form.locator('button[type=submit]').click();
  await form.locator('.form-status', { hasText: 'Saved.' }).waitFor();
  const station = (await (await fetch(`${http.baseUrl}/api/v1/wifi/sta/settings`)).json()) as Record<
    string,
    unknown
  >;
  assert.equal(station.enable, true);
  assert.equal(station.name, 'Garden AP');
  assert.equal(station.password_len, 'correct horse battery'.length);
  assert.equal(station.static_ip, true);
  assert.equal(station.ip, '192.168.1.50');
  // The page shows the stored settings, the password as empty (write-only).
  assert.equal(await form.locator('input[name=password]').inputValue(), '');
  assert.equal(await form.locator('input[name=ip]').inputValue(), '192.168.1.50');
});
