/**
 * `npm run screenshots`: the README's pictures of the web interface. Starts the built daemon on the
 * simulator, lets the live chart fill for SECONDS_OF_DATA seconds (default 45), and saves from the
 * system Chromium, at 1280x800 (desktop) and 390x844 (phone): the dashboard (also in the dark theme),
 * the history page and the MQTT settings page.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/helpers/browser.js';
import { startDaemonProcess } from '../test/helpers/daemon-process.js';
import { repoRoot } from '../test/helpers/environment.js';

const seconds = Number(process.env.SECONDS_OF_DATA ?? 45);
const docs = join(repoRoot, 'docs');
mkdirSync(docs, { recursive: true });
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const saved: string[] = [];

async function shoot(page: Page, name: string, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  // Charts follow their container's width on the next frame.
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(docs, name) });
  saved.push(join('docs', name));
}

const stateDir = mkdtempSync(join(tmpdir(), 'mg-screenshots-'));
const daemon = await startDaemonProcess(stateDir);
const browser = await launchBrowser(DESKTOP);
try {
  const page = await browser.context.newPage();
  await page.waitForTimeout(seconds * 1000);
  await page.goto(`${daemon.baseUrl}/`);
  await page.locator('#live-chart[data-prefilled]').waitFor();
  await page.waitForTimeout(3000);
  await shoot(page, 'web-dashboard.png', DESKTOP);
  await shoot(page, 'web-dashboard-phone.png', PHONE);
  await page.emulateMedia({ colorScheme: 'dark' });
  await shoot(page, 'web-dashboard-dark.png', DESKTOP);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${daemon.baseUrl}/#/history`);
  await page.locator('#explorer[data-from]').waitFor();
  await shoot(page, 'web-history.png', DESKTOP);
  await shoot(page, 'web-history-phone.png', PHONE);
  await page.goto(`${daemon.baseUrl}/#/settings/mqtt`);
  await page.locator('#form-mqtt input[name="publish.topic"]').waitFor();
  await page.waitForTimeout(1000);
  await shoot(page, 'web-settings.png', DESKTOP);
  console.log(`saved ${saved.join(', ')}`);
} finally {
  await browser.close();
  await daemon.stop();
  rmSync(stateDir, { recursive: true, force: true });
}
