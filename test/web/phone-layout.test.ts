// The interface on a phone (390 px wide) in real Chromium: no page wider than the screen, the
// Modbus register table reflowed so every cell is on screen, and no chart repeating a time label.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { requireChromium } from '../helpers/browser.js';
import { PAGES } from '../helpers/ui-pages.js';
import { setUp, trackRequests } from './page-rig.js';

const PHONE = { width: 390, height: 844 };

type Box = { left: number; right: number; width: number };
type PageGlobal = {
  document: {
    documentElement: { scrollWidth: number };
    querySelectorAll(selector: string): ArrayLike<{
      getBoundingClientRect(): Box;
      checkVisibility(): boolean;
      id: string;
      dataset: Record<string, string | undefined>;
    }>;
  };
};

/** Every chart's time-axis labels as last drawn, by chart id. */
async function axisLabels(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(() => {
    const charts = (globalThis as unknown as PageGlobal).document.querySelectorAll('[data-x-labels]');
    return Object.fromEntries(
      Array.from(charts).map((chart) => [chart.id, JSON.parse(chart.dataset.xLabels ?? '[]') as string[]]),
    );
  });
}

function assertNoRepeats(labels: Record<string, string[]>, where: string): void {
  for (const [chart, shown] of Object.entries(labels)) {
    const drawn = shown.filter(Boolean);
    assert.ok(drawn.length > 0, `${where} ${chart}: no labels`);
    assert.equal(new Set(drawn).size, drawn.length, `${where} ${chart}: ${drawn.join(' | ')}`);
  }
}

test('at 390 px no page is wider than the screen and every Modbus register cell is on screen', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  await page.setViewportSize(PHONE);
  const requests = trackRequests(page);
  for (const route of PAGES) {
    await page.goto(`${daemon.baseUrl}/#/${route}`);
    await requests.settled();
    const width = await page.evaluate(
      () => (globalThis as unknown as PageGlobal).document.documentElement.scrollWidth,
    );
    assert.ok(width <= PHONE.width, `#/${route} is ${width} px wide`);
  }
  await page.goto(`${daemon.baseUrl}/#/settings/modbus`);
  await page.locator('#modbus-table tr[data-id]').first().waitFor();
  const outside = await page.evaluate((screen) => {
    const cells = (globalThis as unknown as PageGlobal).document.querySelectorAll('#modbus-table td');
    return Array.from(cells)
      .filter((cell) => cell.checkVisibility())
      .map((cell) => cell.getBoundingClientRect())
      .filter((box) => box.left < 0 || box.right > screen + 0.5).length;
  }, PHONE.width);
  const cells = await page.locator('#modbus-table td').count();
  assert.ok(cells > 50, `${cells} cells`);
  assert.equal(outside, 0, `${outside} of ${cells} register cells reach past the screen`);
  assert.deepEqual(pageErrors, []);
});

for (const size of [PHONE, { width: 1280, height: 900 }]) {
  test(`at ${size.width} px no chart repeats a time label, in every explorer view`, async (t) => {
    if (!requireChromium(t)) return;
    const { daemon, page } = await setUp(t);
    await page.setViewportSize(size);
    await page.goto(`${daemon.baseUrl}/#/history`);
    await page.locator('#explorer[data-from]').waitFor();
    await page.locator('#history-year[data-x-labels]').waitFor();
    assertNoRepeats(await axisLabels(page), `${size.width} px`);
    for (const view of ['week', 'month', 'year', 'day']) {
      await page.click(`#explorer [data-view="${view}"]`);
      await page.locator(`#explore-chart[data-period="${view}"]`).waitFor();
      await page.waitForTimeout(300);
      const labels = await axisLabels(page);
      assertNoRepeats({ [`explorer ${view}`]: labels['explore-chart'] ?? [] }, `${size.width} px`);
    }
  });
}
