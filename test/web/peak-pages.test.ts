// The peak guard's web interface in real Chromium, on an in-process daemon with a frozen clock fed
// 1 Hz readings (the Belgian case: 3.0 kW 18:00–18:05, then more): the dashboard card shows the
// values of GET /api/v1/peak and follows the peak stream; the peak page lists the month peaks of
// /api/v1/peak/history (computed and the meter's own) and the shed stage; the settings form stores
// a change and shows the server's 400 next to the field it names (a bad limit, a stage twice).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { PEAK_GUARD_SCHEMA } from '../../src/config/peak-schema.js';
import { registerActionsRoutes } from '../../src/http/routes/actions.js';
import { registerMetersRoutes } from '../../src/http/routes/meters.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { valuesOf } from '../../src/reading/reading.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { recordingServer } from '../actions/rig.js';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { jsonOf } from './page-rig.js';
import { de } from '../../src/web/ui/i18n/de/index.js';
import { fr } from '../../src/web/ui/i18n/fr/index.js';
import { nl } from '../../src/web/ui/i18n/nl/index.js';
import { collectVisibleText } from './i18n/visible-text.js';
import { englishLeft } from './i18n/english-left.js';
import { EV } from '../peak/simulate.js';

process.env.TZ = 'Europe/Brussels';

interface PeakJson {
  state: string;
  running_kw: number;
  predicted_kw: number;
  allowed_kw: number | null;
  headroom_kw: number | null;
  limit_kw: number;
  effective_limit_kw: number;
  window: { remaining_s: number };
  shed: { id: string }[];
  rolling: { kw: number; months: { month: string }[] };
  month_peak: { kw: number } | null;
}

interface HistoryJson {
  months: {
    month: string;
    peak_kw: number | null;
    meter_kw: number | null;
    computed_kw: number | null;
    source: string;
  }[];
}

/** Five earlier months the guard's state file already holds: fewer than 12, so the average is flagged. */
const SEEDED = ['2026-06', '2026-07', '2026-08', '2026-09', '2026-10'].map((month, index) => ({
  month,
  top: [{ at: Date.parse(`${month}-10T19:00:00+02:00`), kw: 3 + index / 10 }],
}));

async function startGuard(
  target: string,
  seeded: boolean = true,
): Promise<{ h: HttpTestContext; stop(): Promise<void> }> {
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  const request = (path: string) => [{ http: { url: `${target}${path}`, method: 'POST' } }];
  const h = await startHttpContext({
    clockFrozen: true,
    staleAfterMs: 3_600_000,
    env: {
      METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify({
        actions: [
          { id: 'ev_off', requests: request('/ev/off') },
          { id: 'ev_on', requests: request('/ev/on') },
        ],
      }),
      METER_GATEWAY_METER_TIMEOUT: '3600',
      METER_GATEWAY_LICENSE_TYPE: 'PLUS',
    },
    routes: (router, ctx) => {
      const core = registerCoreRoutes(router, ctx);
      registerMetersRoutes(router, ctx, core);
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      registerActionsRoutes(router, ctx, actions);
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      registerPeakRoutes(router, ctx, guard, core.page);
      registerWebRoutes(router, ctx);
    },
  });
  // The guard's settings through the API (a METER_GATEWAY_* variable would shadow what the form saves).
  const stage = EV;
  await jsonOf(`${h.baseUrl}/api/v1/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ services: { peak_guard: { enabled: true, limit_kw: 4, stages: [stage] } } }),
  });
  const state = { version: 1, shed: [], restoredAt: {}, ineffective: [], months: SEEDED };
  if (seeded) writeFileSync(join(h.ctx.config.stateDirectory.dir, 'peak-guard.json'), JSON.stringify(state));
  const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!)];
  for (const output of outputs) await output.start();
  return {
    h,
    async stop() {
      for (const output of outputs.reverse()) await output.stop();
      await h.close();
    },
  };
}

/** The card's text values, as the page shows them in English. */
async function cardValues(page: Page): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const id of ['running', 'predicted', 'limit', 'allowed', 'headroom', 'remaining', 'month'])
    values[id] = (await page.locator(`#peak-${id}`).textContent()) ?? '';
  values.state = (await page.locator('#peak-state').getAttribute('data-state')) ?? '';
  return values;
}

/** Time left as the page shows it: m:ss (425 s -> 7:05). */
function minutes(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function expectedCard(peak: PeakJson): Record<string, string> {
  const kw = (value: number | null) => (value === null ? '—' : value.toFixed(3));
  return {
    running: kw(peak.running_kw),
    predicted: kw(peak.predicted_kw),
    limit: kw(peak.effective_limit_kw),
    allowed: kw(peak.allowed_kw),
    headroom: kw(peak.headroom_kw),
    remaining: minutes(peak.window.remaining_s),
    month: kw(peak.month_peak?.kw ?? null),
    state: peak.state,
  };
}

/** Waits until the card shows GET /api/v1/peak (the stream delivers it after the last reading). */
async function cardMatches(page: Page, baseUrl: string, state: string): Promise<PeakJson> {
  const peak = await jsonOf<PeakJson>(`${baseUrl}/api/v1/peak`);
  assert.equal(peak.state, state);
  const want = expectedCard(peak);
  const shown = await waitFor(
    `the card at ${state}`,
    () => cardValues(page),
    (values) => JSON.stringify(values) === JSON.stringify(want),
    { deadlineMs: 15_000, intervalMs: 100 },
  ).catch(async () => cardValues(page));
  assert.deepEqual(shown, want);
  return peak;
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Every value of the card sits with its own label: beside it on its line, or under it at its left
 * edge, and no other label is nearer to it than its own.
 */
async function pairsTogether(page: Page, width: number): Promise<void> {
  const labels = page.locator('#peak-card .peak-facts dt');
  const values = page.locator('#peak-card .peak-facts dd');
  const count = await labels.count();
  assert.equal(count, 7);
  assert.equal(await values.count(), count);
  const boxes = async (list: typeof labels) => {
    const found: Box[] = [];
    for (let i = 0; i < count; i += 1) found.push((await list.nth(i).boundingBox())!);
    return found;
  };
  const terms = await boxes(labels);
  const details = await boxes(values);
  const names = await labels.allTextContents();
  // How far a value lies from a label: beside it on its line, or under it at its left edge.
  const distance = (term: Box, value: Box): number => {
    const beside = Math.abs(value.y - term.y) <= 2 && value.x >= term.x + term.width - 1;
    if (beside) return value.x - (term.x + term.width);
    const below = Math.abs(value.x - term.x) <= 1 && value.y >= term.y + term.height - 1;
    return below ? value.y - (term.y + term.height) : Infinity;
  };
  details.forEach((value, i) => {
    const own = distance(terms[i]!, value);
    assert.ok(own < 24, `at ${width} px the value of "${names[i]}" is not beside or under its label`);
    terms.forEach((other, j) => {
      if (j !== i)
        assert.ok(
          distance(other, value) > own,
          `at ${width} px the value of "${names[i]}" sits at "${names[j]}"`,
        );
    });
  });
}

interface Rig {
  h: HttpTestContext;
  page: Page;
  /** Feeds 1 Hz readings of `kw` import up to the local time `until`. */
  feedUntil(until: string, kw: number): Promise<void>;
  calls(): string[];
}

type PageGlobal = {
  document: {
    querySelector(selector: string): { value: string } | null;
    documentElement: { scrollWidth: number };
  };
  getComputedStyle(node: unknown): { backgroundColor: string };
};

/** The card from 18:05 (idle), through the warning (4.2 kW predicts 3.8 kW) to ev shed (7 kW). */
async function checkCard({ h, page, feedUntil, calls }: Rig): Promise<void> {
  h.clock.advance(Date.parse('2026-11-25T17:59:00+01:00') - h.clock.now());
  await feedUntil('2026-11-25T18:05:00+01:00', 3);
  await page.goto(`${h.baseUrl}/#/dashboard`);
  await page.locator('#peak-card:not([hidden])').waitFor();
  const idle = await cardMatches(page, h.baseUrl, 'idle');
  assert.equal(idle.running_kw, 1);
  assert.match((await page.locator('#peak-remaining').textContent()) ?? '', /^\d{1,2}:\d\d$/);
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await pairsTogether(page, width);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  // 3.8 kW predicted: within the 0.3 kW warn margin of 4 kW, under the 0.1 kW shed margin.
  await feedUntil('2026-11-25T18:06:00+01:00', 4.2);
  await cardMatches(page, h.baseUrl, 'warning');
  assert.match((await page.locator('#peak-state').textContent()) ?? '', /Warning/);
  assert.match((await page.locator('#peak-bar').getAttribute('aria-label')) ?? '', /limit 4\.000 kW/);
  // 7 kW sheds ev at 18:06:02; its load then goes (1.0 kW left): an effective stage, shedding.
  await feedUntil('2026-11-25T18:06:03+01:00', 7);
  await feedUntil('2026-11-25T18:08:00+01:00', 1);
  const shedding = await cardMatches(page, h.baseUrl, 'shedding');
  assert.deepEqual(
    shedding.shed.map((stage) => stage.id),
    ['ev'],
  );
  await waitFor('the shed call', calls, (urls) => urls.includes('/ev/off'));
}

/** The stage list with ev shed; after the quarter closes, the month table gains November. */
async function checkPeakPage({ h, page, feedUntil }: Rig): Promise<void> {
  await page.goto(`${h.baseUrl}/#/peak`);
  await page.locator('#peak-stages tr[data-stage="ev"][data-shed="true"]').waitFor();
  const evCells = await page.locator('#peak-stages tr[data-stage="ev"] td').allTextContents();
  assert.deepEqual(evCells.slice(0, 5), ['ev', 'ev_off', 'ev_on', '3.700', 'shed']);
  assert.notEqual(evCells[5], '—', 'shed since');
  assert.notEqual(evCells[6], '—', 'last shed');
  assert.equal(evCells[7], '—', 'never restored');
  await feedUntil('2026-11-25T18:15:01+01:00', 3.3);
  const history = await jsonOf<HistoryJson>(`${h.baseUrl}/api/v1/peak/history?months=13`);
  assert.equal(history.months.length, 6);
  await page.locator('#peak-months tr[data-month="2026-11"]').waitFor();
  const shown = await page
    .locator('#peak-months tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => (row as unknown as { dataset: { month: string } }).dataset.month),
    );
  assert.deepEqual(shown, history.months.map((month) => month.month).reverse());
  assert.deepEqual(
    history.months.filter((month) => month.meter_kw !== null).map((month) => [month.month, month.meter_kw]),
    [
      ['2026-10', 3.456],
      ['2026-11', 4.125],
    ],
  );
  // The page reloads its months on the guard's event of the window that just closed: wait for it.
  for (const month of history.months) {
    const cells = page.locator(`#peak-months tr[data-month="${month.month}"] td`);
    const want = [month.computed_kw, month.meter_kw].map((kw) => (kw === null ? '—' : kw.toFixed(3)));
    await waitFor(
      `the Peak page's ${month.month} row: computed ${want[0]}, meter ${want[1]}`,
      async () => [await cells.nth(1).textContent(), await cells.nth(3).textContent()],
      (shown) => shown[0] === want[0] && shown[1] === want[1],
      { deadlineMs: 10_000 },
    );
  }
  const peak = await jsonOf<PeakJson>(`${h.baseUrl}/api/v1/peak`);
  assert.equal(peak.rolling.months.length, 6);
  await page.locator('#peak-rolling-short:not([hidden])').waitFor();
  assert.match(
    (await page.locator('#peak-rolling').textContent()) ?? '',
    new RegExp(`${peak.rolling.kw.toFixed(3)} kW over 6 months`),
  );
}

/** The settings form: limits from the schema, a change stored, a bad limit refused by name. */
async function checkSettingsForm({ h, page }: Rig): Promise<void> {
  type Saved = { services: { peak_guard: { limit_kw: number; stages: { relief_kw: number }[] } } };
  await page.goto(`${h.baseUrl}/#/settings/services`);
  const limit = page.locator('#form-peak input[name="services.peak_guard.limit_kw"]');
  await page.waitForFunction(
    () =>
      (globalThis as unknown as PageGlobal).document.querySelector(
        '#form-peak input[name="services.peak_guard.limit_kw"]',
      )?.value === '4',
  );
  assert.equal(await limit.getAttribute('min'), String(PEAK_GUARD_SCHEMA.limit_kw.min));
  assert.equal(await limit.getAttribute('max'), String(PEAK_GUARD_SCHEMA.limit_kw.max));
  const actions = await page.locator('#form-peak [data-stage-field="shed"] option').allTextContents();
  assert.deepEqual(actions, ['ev_off', 'ev_on']);
  await limit.fill('5.5');
  await page.locator('#form-peak [data-stage-field="relief_kw"]').fill('2.5');
  await page.locator('#form-peak button[type=submit]').click();
  await page.locator('#form-peak .form-status.ok', { hasText: 'Saved.' }).waitFor();
  let saved = await jsonOf<Saved>(`${h.baseUrl}/api/v1/settings`);
  assert.equal(saved.services.peak_guard.limit_kw, 5.5);
  assert.equal(saved.services.peak_guard.stages[0]!.relief_kw, 2.5);
  await limit.fill('-1');
  await page.locator('#form-peak button[type=submit]').click();
  await page.locator('#form-peak .field-error[data-field="services.peak_guard.limit_kw"]').waitFor();
  assert.equal(await limit.getAttribute('aria-invalid'), 'true');
  saved = await jsonOf<Saved>(`${h.baseUrl}/api/v1/settings`);
  assert.equal(saved.services.peak_guard.limit_kw, 5.5, 'nothing stored');
  // A second stage with the same id: the server's 400 is shown at that stage's id field.
  await limit.fill('5.5');
  await page.locator('#peak-add-stage').click();
  const second = page.locator('#form-peak fieldset.peak-stage').nth(1);
  await second.locator('[data-stage-field="id"]').fill('ev');
  await page.locator('#form-peak button[type=submit]').click();
  await second.locator('.field-error').waitFor();
  assert.equal(await second.locator('[data-stage-field="id"]').getAttribute('aria-invalid'), 'true');
  assert.match((await second.locator('.field-error').textContent()) ?? '', /twice/);
  saved = await jsonOf<Saved>(`${h.baseUrl}/api/v1/settings`);
  assert.equal(saved.services.peak_guard.stages.length, 1, 'nothing stored');
}

/** At a phone's width the card, the peak page and the form fit; the dark theme's colours apply. */
async function checkPhoneInDark({ h, page }: Rig): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  const shown: Record<string, string> = {
    dashboard: '#peak-card:not([hidden])',
    peak: '#peak-months tbody tr',
    'settings/services': '#form-peak fieldset.peak-stage',
  };
  for (const [route, selector] of Object.entries(shown)) {
    await page.goto(`${h.baseUrl}/#/${route}`);
    await page.locator(selector).first().waitFor();
    const width = await page.evaluate(
      () => (globalThis as unknown as PageGlobal).document.documentElement.scrollWidth,
    );
    assert.ok(width <= 390, `#/${route} is ${width} px wide`);
  }
  await page.goto(`${h.baseUrl}/#/dashboard`);
  const card = page.locator('#peak-card:not([hidden])');
  await card.waitFor();
  assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
  const background = await card.evaluate(
    (node) => (globalThis as unknown as PageGlobal).getComputedStyle(node).backgroundColor,
  );
  assert.equal(background, 'rgb(27, 32, 41)', "theme.css's dark --card");
}

/**
 * A full 0-0:98.1.0 buffer: 13 months, October 2025 to October 2026, each with its period stamp
 * (00:00 on the 1st of the month after, local time) and a peak of 3.0 + month / 10 kW.
 */
const BUFFER = Array.from({ length: 13 }, (_, index) => {
  const stamp = new Date(2025, 10 + index, 1);
  const iso = (ms: number) => {
    const date = new Date(ms);
    const offset = -date.getTimezoneOffset() / 60;
    const pad = (value: number) => String(value).padStart(2, '0');
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:00+${pad(offset)}:00`;
  };
  return {
    month: iso(stamp.getTime()),
    at: iso(stamp.getTime() - 10 * 86_400_000),
    kw: 3 + index / 10,
  };
});

/** 1 Hz readings of `kw` import up to the local time `until`, on the frozen clock. */
function feeder(
  h: HttpTestContext,
  months: readonly { month?: string; at: string; kw: number }[] = [
    { at: '2026-10-12T20:00:00+02:00', kw: 3.456 },
  ],
): (until: string, kw: number) => Promise<void> {
  let kwh = 100;
  return async (until, kw) => {
    const end = Date.parse(until);
    while (h.clock.now() < end) {
      // The page's stream is a slow consumer when readings come faster than it reads: a pause now
      // and then lets it read, as a 1 Hz meter does (docs/architecture.md#hostile-input).
      if (h.clock.now() % 50_000 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      h.clock.advance(1000);
      kwh += kw / 3600;
      h.ctx.store.ingest({
        receivedAt: h.clock.now(),
        protocol: 'DSMR',
        identity: {},
        // The meter's own demand registers (Belgian P1): November's maximum, October's in 98.1.0.
        values: valuesOf({ '1.8.0': [kwh, 'kWh'], '1.7.0': [kw, 'kW'], '1.6.0': [4.125, 'kW'] }),
        demand: {
          monthPeakAt: '2026-11-03T19:15:00+01:00',
          months: [...months],
        },
        mbus: [],
      });
    }
  };
}

test('peak card, month table, stage list and settings form in Chromium', async (t) => {
  if (!requireChromium(t)) return;
  const target = await recordingServer(200);
  const { h, stop } = await startGuard(target.url);
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await stop();
    await target.close();
  });
  const feedUntil = feeder(h);
  const page = await browser.context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const rig: Rig = { h, page, feedUntil, calls: () => target.requests.map((request) => request.url) };
  await checkCard(rig);
  await checkPeakPage(rig);
  await checkSettingsForm(rig);
  await checkPhoneInDark(rig);
  assert.deepEqual(pageErrors, []);
});

test("a fresh install shows the meter's 0-0:98.1.0 months in the month table and a 12-month average", async (t) => {
  if (!requireChromium(t)) return;
  const target = await recordingServer(200);
  const { h, stop } = await startGuard(target.url, false);
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await stop();
    await target.close();
  });
  const feedUntil = feeder(h, BUFFER);
  h.clock.advance(Date.parse('2026-11-25T18:00:00+01:00') - h.clock.now());
  await feedUntil('2026-11-25T18:00:10+01:00', 1);
  const history = await jsonOf<HistoryJson>(`${h.baseUrl}/api/v1/peak/history?months=13`);
  // November 2025 to November 2026: 12 months of the buffer and November's 1-0:1.6.0.
  assert.equal(history.months.length, 13);
  assert.ok(history.months.every((month) => month.source === 'meter'));
  const peak = await jsonOf<PeakJson>(`${h.baseUrl}/api/v1/peak`);
  assert.equal(peak.rolling.months.length, 12);
  const page = await browser.context.newPage();
  await page.goto(`${h.baseUrl}/#/peak`);
  await page.locator('#peak-months tr[data-month="2025-11"]').waitFor();
  assert.equal(await page.locator('#peak-months tbody tr').count(), 13);
  assert.equal(await page.locator('#peak-months tbody tr.in-average').count(), 12);
  assert.equal(
    await page.locator('#peak-months tr[data-month="2026-01"] td').nth(3).textContent(),
    (3 + 3 / 10).toFixed(3),
  );
  assert.match(
    (await page.locator('#peak-rolling').textContent()) ?? '',
    new RegExp(`${peak.rolling.kw.toFixed(3)} kW over 12 months`),
  );
  assert.ok(await page.locator('#peak-rolling-short').isHidden());
});

for (const [locale, catalogue] of [
  ['de-DE', de],
  ['fr-BE', fr],
  ['nl-NL', nl],
] as const) {
  test(`over the limit with an ineffective stage, the peak card, page and form show no English in ${locale}`, async (t) => {
    if (!requireChromium(t)) return;
    const target = await recordingServer(200);
    const { h, stop } = await startGuard(target.url);
    const browser = await browserContext({ locale });
    t.after(async () => {
      await browser.close();
      await stop();
      await target.close();
    });
    const feedUntil = feeder(h);
    h.clock.advance(Date.parse('2026-11-25T18:14:00+01:00') - h.clock.now());
    await feedUntil('2026-11-25T18:15:01+01:00', 2);
    await feedUntil('2026-11-25T18:17:00+01:00', 9);
    // 9 kW that shedding ev does not lower: ev ineffective, nothing left, over the limit.
    assert.equal((await jsonOf<PeakJson>(`${h.baseUrl}/api/v1/peak`)).state, 'over_limit');
    const page = await browser.context.newPage();
    const shown: Record<string, string> = {
      dashboard: '#peak-card:not([hidden])',
      peak: '#peak-stages tr[data-ineffective="true"]',
      'settings/services': '#form-peak fieldset.peak-stage',
    };
    for (const [route, selector] of Object.entries(shown)) {
      await page.goto(`${h.baseUrl}/#/${route}`);
      await page.locator('html[lang]:not([lang="en"])').waitFor();
      await page.locator(selector).first().waitFor();
      const texts = await page.evaluate(collectVisibleText);
      assert.deepEqual(englishLeft(texts, catalogue), [], `${locale} #/${route}`);
    }
    assert.equal(
      await page.locator('#form-peak select[name="services.peak_guard.model"] option').first().textContent(),
      catalogue['peak.choice_be_quarter'],
    );
  });
}

/** The peak page's live numbers as shown, and what GET /api/v1/peak says they should be. */
const LIVE_IDS = ['running', 'predicted', 'allowed', 'remaining'] as const;

async function pageLive(page: Page): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const id of LIVE_IDS) values[id] = (await page.locator(`#peak-page-${id}`).textContent()) ?? '';
  return values;
}

async function pageLiveMatches(page: Page, baseUrl: string): Promise<Record<string, string>> {
  const want = expectedCard(await jsonOf<PeakJson>(`${baseUrl}/api/v1/peak`));
  const expected = Object.fromEntries(LIVE_IDS.map((id) => [id, want[id]!]));
  const shown = await waitFor(
    'the live numbers of the peak page',
    () => pageLive(page),
    (values) => JSON.stringify(values) === JSON.stringify(expected),
    { deadlineMs: 15_000, intervalMs: 100 },
  ).catch(async () => pageLive(page));
  assert.deepEqual(shown, expected);
  return shown;
}

test('the peak page follows the window live, reads its months again after the stream was down, and counts months in four languages', async (t) => {
  if (!requireChromium(t)) return;
  const target = await recordingServer(200);
  const { h, stop } = await startGuard(target.url, false);
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await stop();
    await target.close();
  });
  // No earlier months: November's own 1-0:1.6.0 is the one month of the average.
  const feedUntil = feeder(h, []);
  // From before 18:00, so the guard saw the quarter's start and records it when it closes.
  h.clock.advance(Date.parse('2026-11-25T17:59:30+01:00') - h.clock.now());
  await feedUntil('2026-11-25T18:14:30+01:00', 3);
  const page = await browser.context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // The page's first stream ends at once (as a stream dropped for a slow read does); the
  // browser's reconnect is held until the window below has closed, so its event never reaches it.
  let streams = 0;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/v1/page/stream?*', async (route) => {
    streams += 1;
    if (streams === 1)
      return route.fulfill({ status: 200, contentType: 'text/event-stream', body: 'retry: 50\n\n' });
    if (streams === 2) await released;
    return route.continue();
  });
  await page.goto(`${h.baseUrl}/#/peak`);
  const november = page.locator('#peak-months tr[data-month="2026-11"] td');
  await november.first().waitFor();
  assert.equal(await november.nth(1).textContent(), '—', 'no window of November closed yet');
  await pageLiveMatches(page, h.baseUrl);

  // One month: singular in every language (Intl.PluralRules), with the count.
  const peak = await jsonOf<PeakJson>(`${h.baseUrl}/api/v1/peak`);
  assert.equal(peak.rolling.months.length, 1);
  const rollingKw = peak.rolling.kw.toFixed(3);
  assert.equal(
    await page.locator('#peak-rolling').textContent(),
    `Rolling average: ${rollingKw} kW over 1 month`,
  );
  assert.equal(
    await page.locator('#peak-rolling-short').textContent(),
    'Fewer than 12 months recorded: the average is the value of 1 month.',
  );

  // The quarter closes while the page has no stream: the guard's event is sent to nobody.
  await feedUntil('2026-11-25T18:15:01+01:00', 3.3);
  const history = await jsonOf<HistoryJson>(`${h.baseUrl}/api/v1/peak/history?months=13`);
  const computed = history.months.find((month) => month.month === '2026-11')?.computed_kw;
  assert.ok(typeof computed === 'number', 'the closed quarter is recorded');
  assert.equal(streams, 2, 'the reconnect waits');
  release();
  await waitFor(
    "November's computed peak after the reconnect",
    () => november.nth(1).textContent(),
    (text) => text === computed.toFixed(3),
    { deadlineMs: 15_000 },
  );

  // The live numbers follow the stream now: a new window, other numbers.
  const before = await pageLiveMatches(page, h.baseUrl);
  await feedUntil('2026-11-25T18:16:10+01:00', 6);
  const after = await pageLiveMatches(page, h.baseUrl);
  assert.notEqual(after.remaining, before.remaining);
  assert.notEqual(after.running, before.running);
  assert.match(after.remaining ?? '', /^\d{1,2}:\d\d$/);

  for (const [language, catalogue] of [
    ['de', de],
    ['fr', fr],
    ['nl', nl],
  ] as const) {
    await page.evaluate((chosen) => {
      (
        globalThis as unknown as { localStorage: { setItem(key: string, value: string): void } }
      ).localStorage.setItem('meter-gateway.language', chosen);
    }, language);
    await page.reload();
    await page.locator(`html[lang="${language}"]`).waitFor();
    const fill = (text: string) => text.replace('{kw}', rollingKw.replace('.', ',')).replace('{count}', '1');
    await page.locator('#peak-months tr[data-month="2026-11"]').waitFor();
    assert.equal(await page.locator('#peak-rolling').textContent(), fill(catalogue['peak.rolling_one']));
    assert.equal(
      await page.locator('#peak-rolling-short').textContent(),
      fill(catalogue['peak.rolling_short_one']),
    );
  }
  assert.deepEqual(pageErrors, []);
});
