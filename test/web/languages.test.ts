// Every page in German, French and Dutch, in real Chromium: no visible English left outside the
// catalogue, the browser's language chosen, the menu's override kept, numbers in the locale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startDaemonInProcess, type InProcessDaemon } from '../helpers/daemon-in-process.js';
import { de } from '../../src/web/ui/i18n/de/index.js';
import { fr } from '../../src/web/ui/i18n/fr/index.js';
import { nl } from '../../src/web/ui/i18n/nl/index.js';
import type { Messages } from '../../src/web/ui/i18n/i18n.js';
import { collectVisibleText } from './i18n/visible-text.js';
import { englishLeft } from './i18n/english-left.js';
import { serverEnglish } from './i18n/server-english.js';
import { exercise } from './i18n/exercise.js';
import { PAGES } from '../helpers/ui-pages.js';
import { eventsAbove, trackRequests } from './page-rig.js';

const LANGUAGES: Array<[locale: string, catalogue: Messages]> = [
  ['de-DE', de],
  ['fr-BE', fr],
  ['nl-NL', nl],
];

const METERS = [
  { id: 'pv', name: 'PV', role: 'pv', source: 'simulator' },
  { id: 'house', name: 'House', role: 'consumer', expression: 'main' },
];

async function daemonFor(t: { after(fn: () => Promise<void>): void }): Promise<InProcessDaemon> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-languages-'));
  // PLUS: the Actions page lists and edits actions instead of naming the licence it needs. Further
  // meters: the Meters page, its energy-flow card and the meters editor show their texts.
  const daemon = await startDaemonInProcess(stateDir, {
    METER_GATEWAY_LICENSE_TYPE: 'PLUS',
    METER_GATEWAY_METERS: JSON.stringify(METERS),
  });
  t.after(async () => {
    await daemon.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  return daemon;
}

/** Opens a page by its route and lets its requests (status, settings, history) answer. */
async function open(
  page: Page,
  requests: ReturnType<typeof trackRequests>,
  baseUrl: string,
  route: string,
): Promise<void> {
  await page.goto(`${baseUrl}/#/${route}`);
  await page.locator('html[lang]:not([lang="en"])').waitFor();
  await requests.settled();
}

/** The Meters page names roles, virtual meters and flows in the language, numbers in its locale. */
async function checkMetersPage(page: Page, catalogue: Messages, locale: string): Promise<void> {
  // The primary's default name is the daemon's, sent with its key and shown in the language.
  const main = await page.locator('#meters-table tr[data-meter="main"] td').first().textContent();
  assert.equal(main, catalogue['meters.main_name'], locale);
  const house = await page.locator('#meters-table tr[data-meter="house"] td').allTextContents();
  assert.equal(house[0], catalogue['meters.virtual_name'].replace('{name}', 'House'), locale);
  assert.equal(house[1], catalogue['meters.role_consumer'], locale);
  assert.match(house[3] ?? '', /^-?\d+,\d{3}$/, `${locale}: power in the locale`);
  const pv = await page.locator('#meters-table tr[data-meter="pv"] td').nth(1).textContent();
  assert.equal(pv, catalogue['meters.role_pv'], locale);
  const flows = await page.locator('#energy-flow dt').allTextContents();
  assert.ok(flows.includes(catalogue['meters.flow_house']), `${locale}: ${flows.join(', ')}`);
}

for (const [locale, catalogue] of LANGUAGES) {
  test(`every page in ${locale} shows no English text outside the catalogue`, async (t) => {
    if (!requireChromium(t)) return;
    const daemon = await daemonFor(t);
    const failures: string[] = [];
    const browser = await browserContext({ locale });
    try {
      const page = await browser.context.newPage();
      const requests = trackRequests(page);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${daemon.baseUrl}/`);
      await eventsAbove(page, 1);
      for (const route of PAGES) {
        await open(page, requests, daemon.baseUrl, route);
        const check = async (stage: string) => {
          const texts = await page.evaluate(collectVisibleText);
          assert.ok(texts.length >= 8, `${locale} #/${route}${stage}: only ${texts.length} texts collected`);
          const findings = englishLeft(texts, catalogue);
          t.diagnostic(`${locale} #/${route}${stage}: ${texts.length} texts, ${findings.length} English`);
          // The server's own prose, in status lines and tables too (marked translate="no").
          const server = serverEnglish(await page.evaluate(collectVisibleText, true), catalogue);
          for (const finding of [...findings, ...server]) {
            failures.push(`${locale} #/${route}${stage}: "${finding.text}" (${finding.why})`);
            t.diagnostic(failures.at(-1)!);
          }
        };
        await check('');
        if (await exercise(page, route)) await check(' (after input)');
        if (route === 'meters') await checkMetersPage(page, catalogue, locale);
      }
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
    assert.deepEqual(failures, []);
  });
}

test('the browser language decides, the menu overrides and is remembered, numbers follow the locale', async (t) => {
  if (!requireChromium(t)) return;
  const daemon = await daemonFor(t);
  const browser = await browserContext({ locale: 'de-DE' });
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  await page.goto(`${daemon.baseUrl}/`);
  await page.locator('html[lang="de"]').waitFor();
  assert.equal(await page.locator('nav a[data-page="dashboard"]').textContent(), 'Übersicht');
  await eventsAbove(page, 1);
  // German decimal comma, three decimals of kW; the chart's clock labels in 24-hour time.
  assert.match((await page.locator('#p-in').textContent()) ?? '', /^\d+,\d{3}$/);
  const labels = JSON.parse((await page.locator('#live-chart').getAttribute('data-x-labels')) ?? '[]');
  assert.ok(
    labels.length > 0 && labels.every((label: string) => /^(\d\d:\d\d(:\d\d)?)?$/.test(label)),
    labels,
  );

  await Promise.all([page.waitForEvent('load'), page.selectOption('#language-choice', 'fr')]);
  await page.locator('html[lang="fr"]').waitFor();
  assert.equal(await page.locator('nav a[data-page="dashboard"]').textContent(), 'Tableau de bord');
  await page.goto(`${daemon.baseUrl}/#/history`);
  await page.locator('html[lang="fr"]').waitFor();
  assert.equal(await page.locator('#explorer [data-view="week"]').textContent(), 'Semaine');
  assert.equal(await page.locator('#language-choice').inputValue(), 'fr');

  await Promise.all([page.waitForEvent('load'), page.selectOption('#language-choice', 'en')]);
  await page.locator('html[lang="en"]').waitFor();
  assert.equal(await page.locator('#explorer [data-view="week"]').textContent(), 'Week');
});

test('a refused setting in Dutch shows the rule in Dutch, by the key the API sends beside its English', async (t) => {
  if (!requireChromium(t)) return;
  const daemon = await daemonFor(t);
  const browser = await browserContext({ locale: 'nl-NL' });
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  const field = '#form-services input[name="services.report_interval"]';
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  await page.locator('html[lang="nl"]').waitFor();
  await page.waitForFunction(
    (selector) =>
      (
        globalThis as unknown as { document: { querySelector(s: string): { max: string } | null } }
      ).document.querySelector(selector)?.max === '3600',
    field,
  );
  await page.locator(field).fill('0');
  await page.locator('#form-services button[type=submit]').click();
  const note = page.locator('#form-services .field-error[data-field="services.report_interval"]');
  await note.waitFor();
  assert.equal(
    await note.textContent(),
    nl['rule.integer_range'].replace('{min}', '1').replace('{max}', '3600'),
  );
  assert.notEqual(
    await note.getAttribute('translate'),
    'no',
    'a translated note is not marked translate="no"',
  );
  assert.equal(
    await page.locator('#form-services output.form-status').textContent(),
    nl['settings.correct_fields'],
  );
});
