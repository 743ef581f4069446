// The dashboard's headline (net grid power, today so far), its prefilled chart and the dark theme,
// in headless Chromium on the real daemon (simulator meter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { HistoryView, RecentView } from '../../src/contracts/history.js';
import type { ReportView } from '../../src/contracts/reading.js';
import { requireChromium } from '../helpers/browser.js';
import { waitFor } from '../helpers/wait.js';
import { eventsAbove, liveCount, setUp } from './page-rig.js';

async function json<T>(url: string): Promise<T> {
  const response = await fetch(url);
  assert.equal(response.status, 200, url);
  return (await response.json()) as T;
}

/** Import minus export of the report, as the page formats it (sign, three decimals, never -0). */
function reportNet(report: ReportView): string {
  const active = report.report.instantaneous_power?.active;
  const net = (active?.positive?.total ?? 0) - (active?.negative?.total ?? 0);
  const text = net.toFixed(3);
  if (/^-0\.0+$/.test(text)) return text.slice(1);
  return net > 0 && Number(text) !== 0 ? `+${text}` : text;
}

/** kWh imported since local midnight: the 15-minute history, summed. */
async function todayImport(baseUrl: string): Promise<number> {
  const now = new Date();
  const from = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime() / 1000;
  const to = Math.ceil(Date.now() / 1000);
  const history = await json<HistoryView>(`${baseUrl}/api/v1/history?from=${from}&to=${to}&resolution=15m`);
  return history.points.reduce((sum, point) => sum + (point.e_in ?? 0), 0);
}

test('net grid power equals the report; today so far is the history sum since midnight', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  const before = await todayImport(daemon.baseUrl);
  await page.goto(`${daemon.baseUrl}/`);
  await eventsAbove(page, 1);
  // The page and the report are compared on one reading: the page's event count is the same
  // before and after the report was read.
  const seen = await waitFor(
    'the page showing the net power of the current report',
    async () => {
      const before = await liveCount(page);
      const shown = await page.locator('#net-power').textContent();
      const report = await json<ReportView>(`${daemon.baseUrl}/api/v1/report`);
      const after = await liveCount(page);
      return { before, after, shown, expected: reportNet(report) };
    },
    (s) => s.before === s.after && s.shown === s.expected,
  );
  assert.match(seen.shown ?? '', /^[+-]?\d+\.\d{3}$/);
  const direction = await page.locator('#net-direction').textContent();
  assert.ok(['importing from the grid', 'exporting to the grid', 'balanced'].includes(direction ?? ''));

  // Today so far: the 15-minute history since local midnight, summed; it grows while the page
  // loads, so what the page shows lies between the sums read before and after it.
  await page.locator('#today-note', { hasText: /^as of / }).waitFor({ timeout: 15_000 });
  const shownIn = Number(await page.locator('#today-in').textContent());
  const after = await todayImport(daemon.baseUrl);
  assert.ok(
    shownIn >= Number(before.toFixed(3)) && shownIn <= Number(after.toFixed(3)),
    `${shownIn} not within [${before}, ${after}]`,
  );
  assert.deepEqual(pageErrors, []);
});

/** The chart's row count and how many of them came from the gateway before the first event. */
async function chartRows(page: Page): Promise<{ prefilled: number; points: number }> {
  const chart = page.locator('#live-chart[data-prefilled]');
  await chart.waitFor({ timeout: 15_000 });
  return {
    prefilled: Number(await chart.getAttribute('data-prefilled')),
    points: Number(await chart.getAttribute('data-points')),
  };
}

test('the rolling chart starts filled from the recent buffer and the 1-minute history', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  const recent = await waitFor(
    'five readings in the recent buffer',
    () => json<RecentView>(`${daemon.baseUrl}/api/v1/history/recent`),
    (view) => view.points.length >= 5,
  );
  assert.equal(recent.seconds, 300);
  await page.goto(`${daemon.baseUrl}/`);
  const rows = await chartRows(page);
  assert.ok(rows.prefilled >= recent.points.length, `${rows.prefilled} rows before the stream`);
  assert.ok(rows.points >= rows.prefilled);
  assert.equal(await page.locator('#live-chart canvas').count(), 1);
  assert.deepEqual(pageErrors, []);
});

/** Computed colours of the page, read in the page (tests compile without the DOM library). */
type ColourPage = {
  getComputedStyle(element: unknown): { backgroundColor: string; color: string };
  document: { documentElement: unknown; body: unknown; querySelector(selector: string): unknown };
};

async function colours(page: Page): Promise<{ body: string; card: string; text: string }> {
  return page.evaluate(() => {
    const { getComputedStyle, document } = globalThis as unknown as ColourPage;
    return {
      body: getComputedStyle(document.documentElement).backgroundColor,
      card: getComputedStyle(document.querySelector('.card')).backgroundColor,
      text: getComputedStyle(document.body).color,
    };
  });
}

test('the page follows the OS theme (light, dark under prefers-color-scheme: dark); a phone shows the meter last', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`${daemon.baseUrl}/`);
  await eventsAbove(page, 0);
  assert.deepEqual(await colours(page), {
    body: 'rgb(243, 245, 248)',
    card: 'rgb(255, 255, 255)',
    text: 'rgb(29, 35, 48)',
  });
  // On a phone the live power comes first and the meter's identity last.
  await page.setViewportSize({ width: 390, height: 844 });
  const top = async (selector: string) => (await page.locator(selector).boundingBox())!.y;
  const net = await top('#net-power');
  const meter = await top('.meter-card');
  assert.ok(net < (await top('#p-in')), 'net power above the power card');
  for (const later of ['#p-in', '#energy-rows', '#live-chart'])
    assert.ok(meter > (await top(later)), `meter identity below ${later}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.ok((await top('.meter-card')) < (await top('#live-chart')), 'on a desktop the grid stays');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${daemon.baseUrl}/#/history`);
  await page.locator('#explorer[data-from]').waitFor({ timeout: 15_000 });
  assert.deepEqual(await colours(page), {
    body: 'rgb(18, 21, 28)',
    card: 'rgb(27, 32, 41)',
    text: 'rgb(227, 231, 238)',
  });
  assert.equal(await page.locator('#explore-chart canvas').count(), 1);
  assert.deepEqual(pageErrors, []);
});
