import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerUpdateRoutes } from '../../src/http/routes/update.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { loadStaticAssets } from '../../src/web/static-assets.js';
import { buildFakeBundle, installRootWith, newSigningKey } from '../device/update/fake-release.js';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startHttpContext } from '../helpers/http-context.js';

const UPLOAD_WITH_PROGRESS =
  "the firmware page uploads a signed bundle with a progress bar and shows the gateway's answer";

// The upload, verification and install of 4 MB can take up to a minute on a loaded machine.
test(UPLOAD_WITH_PROGRESS, { timeout: 120_000 }, async (t) => {
  if (!requireChromium(t)) return;
  const assets = loadStaticAssets();
  assert.ok(assets.length > 0, 'web interface not built (npm run build)');
  const work = mkdtempSync(join(tmpdir(), 'mg-web-load-'));
  const key = newSigningKey();
  const root = installRootWith(work, '1.0.0', 'works');
  const restarts: string[] = [];
  // The page and the upload route on a real server: /load verifies and installs into `root`.
  const http = await startHttpContext({
    env: { METER_GATEWAY_UPDATE_PUBLIC_KEY: key.publicKeyPem },
    routes: (router, ctx) => {
      ctx.requestRestart = (reason) => restarts.push(reason);
      registerUpdateRoutes(router, ctx, { installRoot: root });
      registerWebRoutes(router, ctx, assets);
    },
  });
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await http.close();
    rmSync(work, { recursive: true, force: true });
  });
  // 4 MB of padding, so the upload takes many progress events.
  const bundle = await buildFakeBundle(work, '1.1.0', 'works', key, 4 * 1024 * 1024);
  const page = await browser.context.newPage();
  await page.goto(`${http.baseUrl}/#/settings/maintenance`);
  await page.locator('#firmware-file').setInputFiles(bundle);
  await page.locator('#firmware-upload').click();
  const status = page.locator('#firmware-status', { hasText: 'verified and installed' });
  await status.waitFor({ timeout: 60_000 });
  assert.match((await status.textContent()) ?? '', /^firmware 1\.1\.0 verified and installed .*restarting/);
  // The bar is driven only by XHR upload progress events: full means every byte was reported sent.
  // (HTMLProgressElement.value reflects the content attribute.)
  assert.equal(await page.locator('#firmware-progress').getAttribute('value'), '1');
  assert.deepEqual(restarts, ['firmware update to 1.1.0']);
});
