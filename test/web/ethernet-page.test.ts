import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWifiBackend } from '../../src/device/wifi/backend.js';
import { ETHERNET_PROFILE } from '../../src/device/wifi/nmcli-ethernet.js';
import type { WifiBackend } from '../../src/device/wifi/wifi-backend.js';
import { registerEthernetRoutes } from '../../src/http/routes/ethernet.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { loadStaticAssets } from '../../src/web/static-assets.js';
import { createFakeNmcli } from '../device/wifi/fake-nmcli.js';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { createNetworkOutput } from '../../src/device/network/network-output.js';
import { runOutput } from '../../src/output-runner.js';
import { startNetwork } from '../device/wifi/wifi-rig.js';

test('the Ethernet section beside Wi-Fi shows a refused gateway by its field, then saves a static address', async (t) => {
  if (!requireChromium(t)) return;
  const nmcli = createFakeNmcli();
  const sysDir = mkdtempSync(join(tmpdir(), 'mg-web-sys-'));
  let backend: WifiBackend | undefined;
  const http = await startHttpContext({
    routes: (router, ctx) => {
      backend = createWifiBackend(ctx, { pathEnv: nmcli.dir, sysClassNet: sysDir });
      registerEthernetRoutes(router, ctx);
      registerWebRoutes(router, ctx, loadStaticAssets());
    },
  });
  const network = runOutput(http.ctx, createNetworkOutput(http.ctx, backend!));
  await startNetwork({ network, backend: backend!, nmcli, http });
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await network.stop();
    await backend?.settle();
    await http.close();
    nmcli.remove();
    rmSync(sysDir, { recursive: true, force: true });
  });
  const page = await browser.context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${http.baseUrl}/#/settings/wifi`);
  await page.locator('nav.tabs a', { hasText: 'Ethernet' }).click();
  const form = page.locator('#form-eth');
  await form.waitFor({ state: 'visible' });
  // Loaded: the stored settings (enabled, DHCP) are in the form.
  await waitFor('the Ethernet settings in the form', () => form.locator('input[name=enable]').isChecked());
  await form.locator('input[name=static_ip]').check();
  await form.locator('input[name=ip]').fill('10.0.5.20');
  await form.locator('input[name=netmask]').fill('255.255.255.0');
  await form.locator('input[name=gateway]').fill('10.0.6.1');
  await form.locator('input[name=dns]').fill('10.0.5.1');
  await form.locator('button[type=submit]').click();
  const note = form.locator('.field-error[data-field=gateway]');
  await note.waitFor();
  assert.match((await note.textContent()) ?? '', /subnet/);
  assert.deepEqual(nmcli.calls(), [], 'nothing applied');

  await form.locator('input[name=gateway]').fill('10.0.5.1');
  await form.locator('button[type=submit]').click();
  await form.locator('.form-status', { hasText: 'Saved.' }).waitFor();
  await backend!.settle();
  const add = nmcli.calls().find((args) => args[1] === 'add');
  assert.deepEqual(add?.slice(0, 6), ['connection', 'add', 'type', 'ethernet', 'con-name', ETHERNET_PROFILE]);
  assert.deepEqual(add?.slice(-6), [
    'ipv4.addresses',
    '10.0.5.20/24',
    'ipv4.gateway',
    '10.0.5.1',
    'ipv4.dns',
    '10.0.5.1',
  ]);
  const stored = (await (await fetch(`${http.baseUrl}/api/v1/eth/settings`)).json()) as Record<
    string,
    unknown
  >;
  assert.equal(stored.gateway, '10.0.5.1');
  assert.equal(stored.static_ip, true);
  assert.deepEqual(pageErrors, []);
});
