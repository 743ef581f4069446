/**
 * `npm run screenshots:pages [-- DIR]`: every page of the interface in every language, light and
 * dark, at 1280 and 390 px wide, as full-page PNGs in DIR (default .tmp/screenshots, not committed)
 * named <language>-<theme>-<width>-<page>.png: the pictures to look through after a change of text
 * or layout. The daemon runs on the simulator; the language and the theme come from the browser
 * (locale, prefers-color-scheme), as a visitor's would.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchBrowser } from '../test/helpers/browser.js';
import { startDaemonProcess } from '../test/helpers/daemon-process.js';
import { repoRoot } from '../test/helpers/environment.js';
import { PAGES } from '../test/helpers/ui-pages.js';

const out = resolve(process.argv[2] ?? join(repoRoot, '.tmp', 'screenshots'));
mkdirSync(out, { recursive: true });
const LOCALES = { en: 'en-GB', de: 'de-CH', fr: 'fr-BE', nl: 'nl-NL' };
const WIDTHS = [1280, 390];

const stateDir = mkdtempSync(join(tmpdir(), 'mg-screenshots-'));
const daemon = await startDaemonProcess(stateDir, { METER_GATEWAY_LICENSE_TYPE: 'PLUS' });
let count = 0;
try {
  for (const [language, locale] of Object.entries(LOCALES)) {
    for (const theme of ['light', 'dark'] as const) {
      const browser = await launchBrowser({ locale, colorScheme: theme });
      try {
        const page = await browser.context.newPage();
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: width > 600 ? 800 : 844 });
          for (const route of PAGES) {
            await page.goto(`${daemon.baseUrl}/#/${route}`);
            await page.waitForTimeout(1_200);
            const name = `${language}-${theme}-${width}-${route.replace('/', '-')}.png`;
            await page.screenshot({ path: join(out, name), fullPage: true });
            count += 1;
          }
        }
      } finally {
        await browser.close();
      }
    }
  }
  console.log(`${count} screenshots in ${out}`);
} finally {
  await daemon.stop();
  rmSync(stateDir, { recursive: true, force: true });
}
