/**
 * `npm run screenshots`: the README's pictures of the web interface. Starts the built daemon on the
 * simulator, lets the live chart fill for SECONDS_OF_DATA seconds (default 45), and saves docs/web-dashboard.png
 * and docs/web-settings.png (the MQTT settings page) from the system Chromium.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from '../test/helpers/browser.js';
import { startDaemonProcess } from '../test/helpers/daemon-process.js';
import { repoRoot } from '../test/helpers/environment.js';

const seconds = Number(process.env.SECONDS_OF_DATA ?? 45);
const docs = join(repoRoot, 'docs');
mkdirSync(docs, { recursive: true });
const stateDir = mkdtempSync(join(tmpdir(), 'mg-screenshots-'));
const daemon = await startDaemonProcess(stateDir);
const browser = await launchBrowser({ width: 1280, height: 900 });
try {
  const page = await browser.context.newPage();
  await page.goto(`${daemon.baseUrl}/`);
  await page.waitForTimeout(seconds * 1000);
  await page.screenshot({ path: join(docs, 'web-dashboard.png'), fullPage: true });
  await page.goto(`${daemon.baseUrl}/#/settings/mqtt`);
  await page.locator('#form-mqtt input[name="publish.topic"]').waitFor();
  await page.waitForTimeout(1000);
  await page.screenshot({ path: join(docs, 'web-settings.png') });
  console.log(`saved ${join('docs', 'web-dashboard.png')} and ${join('docs', 'web-settings.png')}`);
} finally {
  await browser.close();
  await daemon.stop();
  rmSync(stateDir, { recursive: true, force: true });
}
