// The history page's energy explorer and the CSV download, in headless Chromium on the real daemon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryView } from '../../src/contracts/history.js';
import type { HistoryPoint } from '../../src/history/point.js';
import { RingFile } from '../../src/history/ring-file.js';
import { TIERS } from '../../src/history/tiers.js';
import { requireChromium } from '../helpers/browser.js';
import { setUp } from './page-rig.js';

/** Local midnight (Unix s) `days` days after today's. */
function midnight(days = 0): number {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + days).getTime() / 1000;
}

/** Yesterday as the 15-minute tier would hold it: one quarter hour an hour, from 06:00 on. */
function yesterdayPoints(): HistoryPoint[] {
  const start = midnight(-1);
  return Array.from({ length: 12 }, (_, i) => ({
    t: start + (6 + i) * 3600,
    n: 900,
    pIn: { n: 900, min: 0.1, sum: 900 * (0.4 + i / 10), max: 2.5 },
    pOut: { n: 900, min: 0, sum: 900 * 0.05, max: 0.8 },
    eIn: 0.125 + i / 10,
    eOut: i % 3 === 0 ? 0.25 : 0,
  }));
}

/** A state directory whose 15-minute history already has yesterday in it. */
async function seededState(): Promise<string> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-explore-'));
  mkdirSync(join(stateDir, 'history'));
  const { ring } = await RingFile.open(join(stateDir, 'history', '15m.ring'), TIERS['15m'], Date.now());
  for (const point of yesterdayPoints()) await ring.write(point);
  await ring.close();
  return stateDir;
}

test('the explorer steps to the previous day, shows the API sum of its kWh, and downloads it as CSV', async (t) => {
  if (!requireChromium(t)) return;
  const stateDir = await seededState();
  const { daemon, page, pageErrors } = await setUp(t, {}, undefined, stateDir);
  await page.goto(`${daemon.baseUrl}/#/history`);
  await page.locator(`#explorer[data-from="${midnight()}"]`).waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#explorer [data-view].active').textContent(), 'Day');
  assert.equal(await page.locator('#explore-next').isDisabled(), true, 'no step into the future');

  await page.locator('#explore-prev').click();
  await page.locator(`#explorer[data-from="${midnight(-1)}"]`).waitFor({ timeout: 15_000 });
  const from = midnight(-1);
  const to = midnight() - 1;
  const response = await fetch(`${daemon.baseUrl}/api/v1/history?from=${from}&to=${to}&resolution=15m`);
  const points = ((await response.json()) as HistoryView).points.filter((p) => p.t >= from && p.t <= to);
  const sum = (key: 'e_in' | 'e_out') => points.reduce((total, point) => total + (point[key] ?? 0), 0);
  assert.equal(points.length, 12);
  assert.ok(Math.abs(sum('e_in') - 8.1) < 1e-6, `seeded import ${sum('e_in')}`);
  assert.equal(await page.locator('#explore-import').textContent(), sum('e_in').toFixed(3));
  assert.equal(await page.locator('#explore-export').textContent(), sum('e_out').toFixed(3));
  assert.equal(
    await page.locator('#explore-net').textContent(),
    `+${(sum('e_in') - sum('e_out')).toFixed(3)}`,
  );
  assert.ok(
    Math.abs(Number(await page.locator('#explore-import').getAttribute('data-kwh')) - sum('e_in')) < 1e-9,
  );
  assert.match(
    (await page.locator('#explore-power').textContent()) ?? '',
    /^Import power min 0\.100 \/ mean 0\.950 \/ max 2\.500 kW · Export power min 0\.000 \/ mean 0\.050 \/ max 0\.800 kW \(10800 readings\)$/,
  );
  assert.equal(await page.locator('#explore-chart canvas').count(), 1);
  assert.equal(await page.locator('#explore-next').isDisabled(), false);

  // The CSV link downloads the shown day, the same bytes the API gives for it.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#explore-csv').click()]);
  const csv = readFileSync((await download.path())!, 'utf8');
  const api = await fetch(`${daemon.baseUrl}/api/v1/history?from=${from}&to=${to}&resolution=15m&format=csv`);
  assert.equal(csv, await api.text());
  assert.match(
    download.suggestedFilename(),
    /^history-15m-\d{4}-\d{2}-\d{2}T0000-\d{4}-\d{2}-\d{2}T2359\.csv$/,
  );
  const lines = csv.trimEnd().split('\r\n');
  assert.equal(lines.length, 1 + 12);
  assert.ok(lines.slice(1).every((line) => line.split(',').length === 11));

  // The week, month and year views sum the daily tier; the date picker jumps to a day.
  await page.locator('#explorer [data-view="year"]').click();
  const year = new Date(from * 1000).getFullYear();
  await page
    .locator(`#explorer[data-from="${new Date(year, 0, 1).getTime() / 1000}"]`)
    .waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#explore-title').textContent(), String(year));
  // Year -> Month keeps the month, Month -> Day the day the user was on (yesterday), not the 1st.
  const yesterday = new Date(from * 1000);
  await page.locator('#explorer [data-view="month"]').click();
  const monthStart = new Date(yesterday.getFullYear(), yesterday.getMonth(), 1).getTime() / 1000;
  await page.locator(`#explorer[data-from="${monthStart}"]`).waitFor({ timeout: 15_000 });
  await page.locator('#explorer [data-view="day"]').click();
  await page.locator(`#explorer[data-from="${from}"]`).waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#explore-date').inputValue(), yesterday.toLocaleDateString('sv-SE'));
  assert.equal(await page.locator('#explore-import').textContent(), sum('e_in').toFixed(3));
  // A month step keeps the day of the month (clamped to the month's length) when going back to Day.
  await page.locator('#explorer [data-view="month"]').click();
  await page.locator(`#explorer[data-from="${monthStart}"]`).waitFor({ timeout: 15_000 });
  await page.locator('#explore-prev').click();
  const earlier = new Date(yesterday.getFullYear(), yesterday.getMonth() - 1, 1);
  const lastDay = new Date(earlier.getFullYear(), earlier.getMonth() + 1, 0).getDate();
  const kept = new Date(earlier.getFullYear(), earlier.getMonth(), Math.min(yesterday.getDate(), lastDay));
  await page.locator(`#explorer[data-from="${earlier.getTime() / 1000}"]`).waitFor({ timeout: 15_000 });
  await page.locator('#explorer [data-view="day"]').click();
  await page.locator(`#explorer[data-from="${kept.getTime() / 1000}"]`).waitFor({ timeout: 15_000 });
  await page.locator('#explore-date').fill(yesterday.toLocaleDateString('sv-SE'));
  await page.locator(`#explorer[data-from="${from}"]`).waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#explore-import').textContent(), sum('e_in').toFixed(3));
  assert.deepEqual(pageErrors, []);
});
