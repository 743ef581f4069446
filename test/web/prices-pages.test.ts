// Day-ahead prices in the web interface, in headless Chromium on the real daemon, in English and in
// German: the dynamic-price settings form (a source chosen, the formula with the user's numbers and
// a worked example, saved, still there after a reload), the dashboard's price chart (a bar per
// quarter of today and tomorrow, negative prices in their own colour, the current quarter marked,
// read from the SVG) and a `cheapest` trigger made in the Actions form, saved and listed. Every
// price source's base URL is a loopback server (Energy-Charts answers, the others 404); the daemon's
// clock is moved to 15:00 local time so tomorrow is published.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { PricesView } from '../../src/contracts/prices.js';
import { CLOCK_OFFSET_VARIABLE } from '../../src/context.js';
import { requireChromium } from '../helpers/browser.js';
import { startDaemonInProcess } from '../helpers/daemon-in-process.js';
import { browserContext } from '../helpers/file-browser.js';
import { waitFor } from '../helpers/wait.js';
import { recordingServer } from '../actions/rig.js';
import { energyCharts } from '../prices/fixtures.js';
import { startPriceServer } from '../prices/price-server.js';
import { jsonOf } from './page-rig.js';

process.env.TZ = 'Europe/Brussels';

const Q = 900;
/** Spot per MWh of a quarter (Unix s): -500 through the local hour 13, else 40..46. */
const spotAt = (s: number) => (new Date(s * 1000).getHours() === 13 ? -500 : 40 + ((s / Q) % 7));

const SOURCES = ['entsoe', 'energy_charts', 'nordpool', 'awattar', 'energyzero', 'tibber'] as const;

interface Language {
  locale: string;
  lang: string;
  saved: string;
  chart: string;
  /** The formula numbers typed in this pass: a, markup, vat, tax, b, fee. */
  terms: [number, number, number, number, number, number];
  formula: string;
  example: string;
  listed: RegExp;
}

const LANGUAGES: Language[] = [
  {
    locale: 'en-US',
    lang: 'en',
    saved: 'Saved.',
    chart: 'Day-ahead prices',
    terms: [1, 0.02, 0.21, 0.1, 1, 0.01],
    formula: 'Import (spot × 1 + 0.02) × (1 + 0.21) + 0.1, export spot × 1 − 0.01.',
    // (0.1 × 1 + 0.02) × 1.21 + 0.1 = 0.2452; 0.1 × 1 − 0.01 = 0.09
    example: 'At 100/MWh: 0.2452 and 0.09 per kWh.',
    listed: /cheapest 4 quarter hours 10:00-16:00/,
  },
  {
    locale: 'de-DE',
    lang: 'de',
    saved: 'Gespeichert.',
    chart: 'Day-Ahead-Preise',
    terms: [1.1, 0.03, 0.19, 0.12, 0.9, 0],
    formula: 'Bezug (spot × 1.1 + 0.03) × (1 + 0.19) + 0.12, Einspeisung spot × 0.9 − 0.',
    // (0.11 + 0.03) × 1.19 + 0.12 = 0.2866; 0.09 − 0 = 0.09
    example: '0.2866',
    listed: /günstigste 4 Viertelstunden 10:00-16:00/,
  },
];

const TERMS = ['a', 'markup', 'vat', 'tax', 'b', 'fee'];

type PageGlobal = {
  document: { querySelector(selector: string): { value?: string } | null };
};

async function settingsForm(page: Page, baseUrl: string, language: Language): Promise<void> {
  await page.goto(`${baseUrl}/#/settings/services`);
  await page.locator(`html[lang="${language.lang}"]`).waitFor();
  const form = page.locator('#form-costs');
  // The form is filled once the settings arrived (the currency is never empty).
  await page.waitForFunction(
    () =>
      (globalThis as unknown as PageGlobal).document.querySelector(
        '#form-costs [name="services.costs.currency"]',
      )?.value === 'EUR',
  );
  await form.locator('[name="services.costs.enable"]').check();
  await form.locator('[name="services.costs.import.mode"]').selectOption('dynamic');
  await form.locator('[name="services.costs.source.name"]').selectOption('energy_charts');
  await form.locator('[name="services.costs.source.zone"]').fill('BE');
  for (const [i, term] of TERMS.entries())
    await form.locator(`[name="services.costs.formula.${term}"]`).fill(String(language.terms[i]));
  const preview = form.locator('p.formula-preview');
  assert.match((await preview.textContent()) ?? '', new RegExp(escape(language.formula)));
  assert.match((await preview.textContent()) ?? '', new RegExp(escape(language.example)));
  await form.locator('button[type=submit]').click();
  await form.locator('output.form-status', { hasText: language.saved }).waitFor();
  const stored = await jsonOf<{
    services: {
      costs: { import: { mode: string }; source: { name: string }; formula: Record<string, number> };
    };
  }>(`${baseUrl}/api/v1/settings`);
  assert.equal(stored.services.costs.import.mode, 'dynamic');
  assert.equal(stored.services.costs.source.name, 'energy_charts');
  assert.deepEqual(
    TERMS.map((term) => stored.services.costs.formula[term]),
    language.terms,
  );
  // After a reload the form shows what was saved, and the formula again.
  await page.reload();
  await page.waitForFunction(
    () =>
      (globalThis as unknown as PageGlobal).document.querySelector(
        '#form-costs [name="services.costs.source.name"]',
      )?.value === 'energy_charts',
  );
  assert.equal(await form.locator('[name="services.costs.import.mode"]').inputValue(), 'dynamic');
  assert.equal(await form.locator('[name="services.costs.source.zone"]').inputValue(), 'BE');
  for (const [i, term] of TERMS.entries())
    assert.equal(
      Number(await form.locator(`[name="services.costs.formula.${term}"]`).inputValue()),
      language.terms[i],
    );
  assert.match((await preview.textContent()) ?? '', new RegExp(escape(language.example)));
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function priceChart(page: Page, baseUrl: string, language: Language): Promise<void> {
  // Today and tomorrow are stored with the formula of this pass.
  const day = (which: string) => jsonOf<PricesView>(`${baseUrl}/api/v1/prices?day=${which}`);
  const formulaA = language.terms[0];
  await waitFor(
    'today and tomorrow priced with this formula',
    async () => [await day('today'), await day('tomorrow')],
    (days) =>
      days.every(
        (view) =>
          view.slots.every((slot) => slot.import !== null && !slot.estimated) &&
          view.slots[0]!.spot !== null &&
          Math.abs(
            view.slots[0]!.import! -
              ((view.slots[0]!.spot! / 1000) * formulaA + language.terms[1]) * (1 + language.terms[2]) -
              language.terms[3],
          ) < 1e-6,
      ),
  );
  const today = await day('today');
  const tomorrow = await day('tomorrow');
  await page.goto(`${baseUrl}/#/dashboard`);
  const chart = page.locator('#price-card svg.price-chart');
  await chart.waitFor();
  assert.equal(await chart.getAttribute('aria-label'), language.chart);
  assert.equal(await page.locator('#price-card h2').textContent(), language.chart);
  const slots = [...today.slots, ...tomorrow.slots];
  const bars = chart.locator('rect.price-bar');
  assert.equal(await bars.count(), slots.length, 'a bar per quarter of today and tomorrow');
  assert.ok([92, 96, 100].includes(today.quarters) && [92, 96, 100].includes(tomorrow.quarters));
  // Negative: the local hour 13 of both days.
  const negative = chart.locator('rect.price-bar.negative');
  assert.equal(await negative.count(), slots.filter((slot) => slot.import! < 0).length);
  assert.equal(
    await negative.count(),
    8,
    `negative quarters: ${JSON.stringify(slots.filter((slot) => slot.import! < 0).map((slot) => slot.start))}`,
  );
  const fill = (locator: ReturnType<Page['locator']>) =>
    locator.evaluate(
      (element) =>
        (globalThis as unknown as { getComputedStyle(e: unknown): { fill: string } }).getComputedStyle(
          element,
        ).fill,
    );
  const negativeFill = await fill(negative.first());
  const positiveFill = await fill(chart.locator('rect.price-bar:not(.negative):not(.current)').first());
  assert.notEqual(negativeFill, positiveFill, 'negative bars in another colour');
  // A negative bar hangs below the zero line, a positive one stands on it.
  const zero = Number(await chart.locator('line.price-zero').getAttribute('y1'));
  assert.equal(Number(await negative.first().getAttribute('y')), zero);
  // The current quarter: one bar, at its place among today's quarters, in its own colour.
  const current = chart.locator('rect.price-bar.current');
  assert.equal(await current.count(), 1);
  const index = today.slots.findIndex((slot) => slot.start === today.current!.start);
  assert.ok(index > 0, `current quarter ${today.current?.start}`);
  const width = 800 / slots.length;
  assert.ok(Math.abs(Number(await current.getAttribute('x')) - index * width) < 1e-6);
  assert.notEqual(await fill(current), positiveFill);
  // The bars' order is the slots' order: the first negative bar is the first negative quarter.
  const firstNegative = slots.findIndex((slot) => slot.import! < 0);
  assert.ok(Math.abs(Number(await negative.first().getAttribute('x')) - firstNegative * width) < 1e-6);
}

async function cheapestAction(
  page: Page,
  baseUrl: string,
  language: Language,
  target: string,
): Promise<void> {
  await page.goto(`${baseUrl}/#/actions`);
  await page.locator(`html[lang="${language.lang}"]`).waitFor();
  const form = page.locator('#form-action');
  await form.locator('[name="cheapest.enable"]').waitFor({ state: 'attached' });
  const id = `cheap_${language.lang}`;
  await form.locator('[name=id]').fill(id);
  await form.locator('[name="cheapest.enable"]').check();
  await form.locator('[name="cheapest.quarters"]').fill('4');
  await form.locator('[name="cheapest.window_from"]').fill('10:00');
  await form.locator('[name="cheapest.window_to"]').fill('16:00');
  await form.locator('[name="cheapest.contiguous"]').check();
  await page.locator('#action-add-http').click();
  await form.locator('fieldset.action-request [data-field=url]').fill(`${target}/boiler/on`);
  await form.locator('#action-save').click();
  await form.locator('output.form-status', { hasText: language.saved }).waitFor();
  const row = page.locator(`#actions-list tr[data-action=${id}]`);
  await row.waitFor();
  assert.match((await row.textContent()) ?? '', language.listed);
  const stored = await jsonOf<{ actions: Array<{ id: string; cheapest?: unknown }> }>(
    `${baseUrl}/api/v1/actions`,
  );
  assert.deepEqual(stored.actions.find((action) => action.id === id)?.cheapest, {
    quarters: 4,
    window: '10:00-16:00',
    contiguous: true,
  });
  // Listed again after a reload, and the form shows the trigger when editing.
  await page.reload();
  await row.waitFor();
  assert.match((await row.textContent()) ?? '', language.listed);
  await row.locator('button').last().click();
  assert.equal(await form.locator('[name="cheapest.enable"]').isChecked(), true);
  assert.equal(await form.locator('[name="cheapest.quarters"]').inputValue(), '4');
  assert.equal(await form.locator('[name="cheapest.window_from"]').inputValue(), '10:00');
}

test(
  'prices in the web interface: settings form, price chart and the cheapest trigger, in English and German',
  { timeout: 240_000 },
  async (t) => {
    if (!requireChromium(t)) return;
    const prices = await startPriceServer((url) => {
      if (url.pathname !== '/price') return { status: 404, body: '' };
      const start = Number(url.searchParams.get('start'));
      const end = Number(url.searchParams.get('end'));
      const times: number[] = [];
      for (let s = start - (start % Q); s <= end; s += Q) times.push(s);
      return { status: 200, body: energyCharts(times, times.map(spotAt)) };
    });
    t.after(() => prices.close());
    const target = await recordingServer(200);
    t.after(() => target.close());
    // The daemon's now: 15:00 local time today (tomorrow is asked for from 13:00 to 13:45 CET).
    const now = new Date();
    const at = new Date(now.getFullYear(), now.getMonth(), now.getDate(), 15, 0, 0).getTime();
    const stateDir = mkdtempSync(join(tmpdir(), 'mg-prices-web-'));
    const urls = Object.fromEntries(
      SOURCES.map((source) => [
        `METER_GATEWAY_SERVICES_COSTS_SOURCE_URLS_${source.toUpperCase()}`,
        source === 'energy_charts' ? prices.url : `${prices.url}/${source}`,
      ]),
    );
    const daemon = await startDaemonInProcess(stateDir, {
      TZ: 'Europe/Brussels',
      [CLOCK_OFFSET_VARIABLE]: String(Math.round((at - Date.now()) / 1000)),
      METER_GATEWAY_LICENSE_TYPE: 'PLUS',
      ...urls,
    });
    t.after(async () => {
      await daemon.stop();
      rmSync(stateDir, { recursive: true, force: true });
    });
    for (const language of LANGUAGES) {
      const browser = await browserContext({ locale: language.locale });
      t.after(() => browser.close());
      const page = await browser.context.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await settingsForm(page, daemon.baseUrl, language);
      await priceChart(page, daemon.baseUrl, language);
      await cheapestAction(page, daemon.baseUrl, language, target.url);
      assert.deepEqual(pageErrors, [], language.lang);
      await browser.close();
    }
    // Only loopback sources were asked: Energy-Charts for the days.
    assert.ok(prices.requests.some((url) => url.pathname === '/price'));
  },
);
