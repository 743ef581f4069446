// Costs in the web page: the settings form, the dashboard's "today" and "this month", the explorer, in headless
// Chromium on the real daemon with a history day built by the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryView } from '../../src/contracts/history.js';
import type { HistoryPoint } from '../../src/history/point.js';
import { RingFile } from '../../src/history/ring-file.js';
import { TIERS } from '../../src/history/tiers.js';
import { requireChromium } from '../helpers/browser.js';
import { jsonOf, setUp } from './page-rig.js';

function midnight(days = 0): number {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() + days).getTime() / 1000;
}

/** Yesterday: 8 quarter hours of 0.5 kWh imported, 2 of them with 0.25 kWh exported as well. */
function yesterday(): HistoryPoint[] {
  return Array.from({ length: 8 }, (_, i) => ({
    t: midnight(-1) + (8 + i) * 3600,
    n: 900,
    eIn: 0.5,
    eOut: i < 2 ? 0.25 : 0,
  }));
}

async function seededState(): Promise<string> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-costs-'));
  mkdirSync(join(stateDir, 'history'));
  const { ring } = await RingFile.open(join(stateDir, 'history', '15m.ring'), TIERS['15m'], Date.now());
  for (const point of yesterday()) await ring.write(point);
  await ring.close();
  return stateDir;
}

const ENV = {
  METER_GATEWAY_SERVICES_COSTS_ENABLE: 'true',
  METER_GATEWAY_SERVICES_COSTS_CURRENCY: 'CHF',
  METER_GATEWAY_SERVICES_COSTS_IMPORT_PRICE: '0.25',
  METER_GATEWAY_SERVICES_COSTS_EXPORT_PRICE: '0.1',
  METER_GATEWAY_SERVICES_COSTS_STANDING_CHARGE: '30',
};

test('the dashboard and the explorer show the costs the history API computed; the settings form edits them', async (t) => {
  if (!requireChromium(t)) return;
  const started = Date.now();
  const { daemon, page, pageErrors } = await setUp(t, ENV, undefined, await seededState());
  await page.goto(`${daemon.baseUrl}/#/dashboard`);
  const today = page.locator('#today-cost');
  await today.waitFor({ state: 'visible', timeout: 15_000 });
  const month = new Date();
  const days = new Date(month.getFullYear(), month.getMonth() + 1, 0).getDate();
  // Today's standing charge so far (the dashboard asks for today): the share of the day elapsed
  // when the page asked, between the start of the test and now (docs/architecture.md#costs).
  const dayShare = (at: number) => (at / 1000 - midnight()) / (midnight(1) - midnight() || 86400);
  const standingToday = Number(await today.getAttribute('data-standing'));
  assert.ok(
    standingToday > 0 && standingToday <= (30 / days) * dayShare(Date.now()) + 1e-6,
    String(standingToday),
  );
  assert.ok(standingToday >= (30 / days) * dayShare(started) - 1e-6, String(standingToday));
  assert.match((await today.textContent()) ?? '', /CHF/);

  // This month so far, beside today: the month's daily history priced by the same API, yesterday
  // (rebuilt into the daily tier from its quarter hours at start) counted when it lies in this
  // month, the standing charge billed from the first recorded day to now (docs/architecture.md#costs).
  const line = page.locator('#month-cost-line');
  await line.waitFor({ state: 'visible', timeout: 15_000 });
  assert.match((await line.textContent()) ?? '', /^\s*This month so far\s+Import CHF/);
  const monthCost = page.locator('#month-cost');
  const monthValue = async (key: string) => Number(await monthCost.getAttribute(`data-${key}`));
  const yesterdayInMonth = new Date(midnight(-1) * 1000).getMonth() === month.getMonth();
  const fullDays = yesterdayInMonth ? 1 : 0;
  const standingMonth = await monthValue('standing');
  assert.ok(standingMonth <= (30 / days) * (fullDays + dayShare(Date.now())) + 1e-6, String(standingMonth));
  assert.ok(standingMonth >= (30 / days) * (fullDays + dayShare(started)) - 1e-6, String(standingMonth));
  // Import paid: yesterday's 1 CHF when it lies in this month, and today's.
  assert.ok((await monthValue('import')) >= fullDays * 1 - 1e-6, 'month import');
  assert.ok((await monthValue('export')) >= fullDays * 0.05 - 1e-6, 'month export credit');
  const parts = (await monthValue('import')) - (await monthValue('export')) + standingMonth;
  assert.ok(Math.abs((await monthValue('total')) - parts) < 1e-5, 'month total');

  await page.goto(`${daemon.baseUrl}/#/history`);
  await page.locator(`#explorer[data-from="${midnight()}"]`).waitFor({ timeout: 15_000 });
  await page.locator('#explore-prev').click();
  await page.locator(`#explorer[data-from="${midnight(-1)}"]`).waitFor({ timeout: 15_000 });
  const cost = page.locator('#explore-cost');
  // By hand: 8 × 0.5 kWh × 0.25 = 1 CHF paid, 2 × 0.25 kWh × 0.1 = 0.05 received, 30 / days standing.
  const y = new Date(midnight(-1) * 1000);
  const standing = Math.round((30 / new Date(y.getFullYear(), y.getMonth() + 1, 0).getDate()) * 1e6) / 1e6;
  assert.deepEqual(
    await Promise.all(
      ['import', 'export', 'standing', 'total'].map((key) => cost.getAttribute(`data-${key}`)),
    ),
    [
      '1',
      '0.05',
      String(standing),
      String(Math.round((0.95 + 30 / new Date(y.getFullYear(), y.getMonth() + 1, 0).getDate()) * 1e6) / 1e6),
    ],
  );
  const api = await jsonOf<HistoryView>(
    `${daemon.baseUrl}/api/v1/history?from=${midnight(-1)}&to=${midnight() - 1}&resolution=15m`,
  );
  assert.equal(Number(await cost.getAttribute('data-total')), api.costs!.total);
  // Per bar: the hour of 08:00 holds 0.5 kWh in and 0.25 out: 0.125 - 0.025.
  const bar = page.locator(`#explore-bar-costs tr[data-from="${midnight(-1) + 8 * 3600}"] td[data-cost]`);
  assert.equal(await bar.getAttribute('data-cost'), '0.1');
  assert.equal(await page.locator('#explore-bar-costs tbody tr').count(), 8);

  // Settings: the time-of-use field appears with its mode; a bad table is refused next to the field.
  await page.goto(`${daemon.baseUrl}/#/settings/services`);
  const form = page.locator('#form-costs');
  await page.waitForFunction(() => {
    const doc = (
      globalThis as unknown as { document: { querySelector(s: string): { value: string } | null } }
    ).document;
    return doc.querySelector('#form-costs [name="services.costs.currency"]')?.value === 'CHF';
  });
  const table = form.locator('[name="services.costs.import.time_of_use"]');
  assert.equal(await table.isVisible(), false);
  await form.locator('[name="services.costs.import.mode"]').selectOption('time_of_use');
  await table.fill('07:10=0.3');
  await form.locator('button[type=submit]').click();
  await form.locator('.field-error[data-field="services.costs.import.time_of_use"]').waitFor();
  await table.fill('07:00=0.32 22:00=0.21');
  await form.locator('button[type=submit]').click();
  await form.locator('output.form-status', { hasText: 'Saved.' }).waitFor();
  const settings = await jsonOf<{ services: { costs: { import: { mode: string; time_of_use: string } } } }>(
    `${daemon.baseUrl}/api/v1/settings`,
  );
  assert.deepEqual(settings.services.costs.import, {
    ...settings.services.costs.import,
    mode: 'time_of_use',
    time_of_use: '07:00=0.32 22:00=0.21',
  });
  assert.deepEqual(pageErrors, []);
});
