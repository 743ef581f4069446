import { after, test, type TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { requireChromium, requireFullChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startDaemonInProcess, type InProcessDaemon } from '../helpers/daemon-in-process.js';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { corpusDir, requireCorpus } from '../helpers/environment.js';
import { PAGES } from '../helpers/ui-pages.js';
import { eventsAbove, jsonOf, liveCount, setUp, setUpChildProcess, trackRequests } from './page-rig.js';

/**
 * The daemon of a fresh install (config/default.json, a new state folder), shared by the two tests
 * that start from one: the tour of every page, which writes nothing, and then the live view, which
 * ends by stopping it. Started by the first of them that runs; stopped (again: a second stop waits
 * for the first) after the file's last test.
 */
let fresh: Promise<{ daemon: InProcessDaemon; stateDir: string }> | undefined;
after(async () => {
  const started = await fresh?.catch(() => undefined);
  if (!started) return;
  await started.daemon.stop();
  rmSync(started.stateDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});

/** The fresh install's daemon and a page in a browser context of the test's own. */
async function onFreshInstall(
  t: TestContext,
): Promise<{ daemon: InProcessDaemon; page: Page; pageErrors: string[] }> {
  fresh ??= (async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'mg-web-'));
    return { daemon: await startDaemonInProcess(stateDir), stateDir };
  })();
  const { daemon } = await fresh;
  const browser = await browserContext();
  t.after(() => browser.close());
  const page = await browser.context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { daemon, page, pageErrors };
}

test('on a fresh install no request of any page fails and the console shows no error', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await onFreshInstall(t);
  const consoleErrors: string[] = [];
  const failed: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${message.text()} ${message.location().url}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    // The live and peak streams end when the page is left; that is no failure of the page.
    if (request.resourceType() !== 'eventsource') failed.push(`failed ${request.url()}`);
  });
  const requests = trackRequests(page);
  await page.goto(`${daemon.baseUrl}/#/dashboard`);
  await eventsAbove(page, 0);
  for (const route of PAGES) {
    await page.evaluate((hash) => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = hash;
    }, `#/${route}`);
    await requests.settled();
  }
  // The actions the page reads on a fresh install: none, as an empty answer rather than a 404.
  const definition = await jsonOf<{ definition: unknown }>(`${daemon.baseUrl}/api/v1/actions/definition`);
  assert.equal(definition.definition, null);
  assert.equal((await fetch(`${daemon.baseUrl}/api/v1/actions`)).status, 404, "the device's answer stays");
  assert.deepEqual(failed, []);
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(pageErrors, []);
});

test('the page loads, the live chart receives events, and a stopped gateway shows "not connected"', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await onFreshInstall(t);
  const response = await page.goto(`${daemon.baseUrl}/`);
  assert.equal(response?.status(), 200);
  // The title names the gateway once /api/v1/system has answered, which may be after the load event.
  // A function, not a string: a string predicate still false at its first look is re-checked with
  // eval() in the page, which the page's Content-Security-Policy (script-src 'self') refuses.
  await page.waitForFunction(
    () =>
      (globalThis as unknown as { document: { title: string } }).document.title ===
      'meter-gateway · meter-gateway',
    undefined,
    { timeout: 10_000 },
  );
  // The simulator sends a reading every second; the stream delivers several.
  await eventsAbove(page, 2);
  await page.locator('#meter-status', { hasText: 'OK' }).waitFor();
  // The simulator's DSMR 5 meter sends its version as "50": shown as DSMR writes it.
  await page.locator('#meter-identity dd', { hasText: /^5\.0$/ }).waitFor({ timeout: 10_000 });
  assert.match((await page.locator('#p-in').textContent()) ?? '', /^\d+\.\d{3}$/);
  assert.match((await page.locator('[data-live="V_P1"]').textContent()) ?? '', /^\d{3}\.\d$/);
  assert.match((await page.locator('#volumes').textContent()) ?? '', /G0099000000005678: \d+\.\d{3} m³/);
  // uPlot drew the rolling chart with the five series.
  assert.equal(await page.locator('#live-chart canvas').count(), 1);
  assert.equal(await page.locator('#live-chart .u-legend .u-series').count(), 6);
  assert.equal(await page.locator('#stale-banner').isHidden(), true);
  assert.equal(await page.evaluate('document.body.classList.contains("stale")'), false);
  const before = await liveCount(page);
  await eventsAbove(page, before);
  // Under the chart: when the last reading came and how long ago, never a raw count of events.
  assert.match(
    (await page.locator('#live-age').textContent()) ?? '',
    /^Last reading received at \d\d:\d\d:\d\d( [AP]M)?, \d+ s ago$/,
  );
  const dashboardText = (await page.locator('#page-dashboard').innerText()).toLowerCase();
  assert.ok(!dashboardText.includes('events received'), 'no event counter on the dashboard');

  await daemon.stop();
  await page
    .locator('#stale-banner', { hasText: 'Not connected to the gateway' })
    .waitFor({ timeout: 15_000 });
  assert.equal(await page.evaluate('document.body.classList.contains("stale")'), true);
  assert.match((await page.locator('#stale-banner').textContent()) ?? '', /are not current/);
  assert.deepEqual(pageErrors, []);
});

test('with protection on the page asks for credentials; with them it loads and streams', async (t) => {
  if (!requireChromium(t) || !requireFullChromium(t)) return;
  const env = {
    METER_GATEWAY_SYSTEM_PROTECTION: 'true',
    METER_GATEWAY_SYSTEM_PASSWORD: 'Secret-123',
    // A reading every 0.2 s: the stream's first events come sooner (their pace is not checked here).
    METER_GATEWAY_METER_SIMULATOR_INTERVAL: '0.2',
  };
  // The full browser: the headless shell has no password prompt and shows the 401 body instead.
  const { daemon, page } = await setUp(t, env, undefined, undefined, { fullChromium: true });
  // Chromium gets the 401 with the Digest challenge and would show its password prompt; without
  // credentials to give, the navigation ends as ERR_INVALID_AUTH_CREDENTIALS.
  const challenged = page.waitForResponse(`${daemon.baseUrl}/`);
  await assert.rejects(page.goto(`${daemon.baseUrl}/`), /ERR_INVALID_AUTH_CREDENTIALS/);
  const refused = await challenged;
  assert.equal(refused.status(), 401);
  const challenge = (await refused.allHeaders())['www-authenticate'] ?? '';
  assert.match(challenge, /Digest realm="meter-gateway"/);
  assert.match(challenge, /algorithm=MD5/);

  const authorised = await browserContext({ httpCredentials: { username: 'admin', password: 'Secret-123' } });
  t.after(() => authorised.close());
  const page2 = await authorised.context.newPage();
  const loaded = await page2.goto(`${daemon.baseUrl}/`);
  assert.equal(loaded?.status(), 200);
  await eventsAbove(page2, 1);
  await page2.locator('#meter-status', { hasText: 'OK' }).waitFor();
  const wrong = await browserContext({ httpCredentials: { username: 'admin', password: 'wrong' } });
  t.after(() => wrong.close());
  // A wrong password: the browser tries it, and the page is the 401 error body, not the interface.
  const deniedPage = await wrong.context.newPage();
  const denied = await deniedPage.goto(`${daemon.baseUrl}/`);
  assert.equal(denied?.status(), 401);
  assert.equal(JSON.parse(await denied!.text()).error, 'unauthorized');
  assert.equal(await deniedPage.locator('#live-age').count(), 0);
});

interface HistoryView {
  points: Array<{ t: number; n: number }>;
}

/** Points of today's 1-minute history as the API gives them. */
async function todayHistory(baseUrl: string): Promise<HistoryView['points']> {
  const midnight = new Date();
  midnight.setHours(0, 0, 0, 0);
  const from = Math.floor(midnight.getTime() / 1000);
  const response = await fetch(
    `${baseUrl}/api/v1/history?from=${from}&to=${Math.ceil(Date.now() / 1000)}&resolution=1m`,
  );
  assert.equal(response.status, 200);
  return ((await response.json()) as HistoryView).points;
}

/** The number of points the history page says its chart of `id` shows, once it has loaded. */
async function chartPoints(page: Page, id: string): Promise<number> {
  const note = page.locator(`#${id}-note[data-points]`);
  await note.waitFor({ timeout: 30_000 });
  return Number(await note.getAttribute('data-points'));
}

test('the history charts show what the gateway recorded, also after a daemon restart', async (t) => {
  if (!requireChromium(t)) return;
  // A reading every 0.2 s: the three readings the first run records come sooner.
  const { daemon, page, stateDir, pageErrors } = await setUpChildProcess(t, {
    METER_GATEWAY_METER_SIMULATOR_INTERVAL: '0.2',
  });
  await page.goto(`${daemon.baseUrl}/`);
  await eventsAbove(page, 3);
  await page.goto(`${daemon.baseUrl}/#/history`);
  assert.ok((await chartPoints(page, 'history-today')) >= 1);
  // Each chart draws when its own history request has answered: the year's may come after today's.
  for (const chart of ['history-today', 'history-year']) {
    await page.locator(`#${chart} canvas`).first().waitFor({ timeout: 15_000 });
    assert.equal(await page.locator(`#${chart} canvas`).count(), 1, chart);
  }
  const firstRun = await todayHistory(daemon.baseUrl);
  const firstCount = firstRun.reduce((sum, point) => sum + point.n, 0);
  assert.ok(firstCount >= 3, `only ${firstCount} readings recorded`);
  await daemon.stop();

  // A second start on the same state directory has every bucket of the first run, each with at
  // least the readings it had (the open minute goes on counting when the restart falls into it).
  // Stopped here, not in an after hook: the set-up's hooks run first and remove the state folder,
  // which this daemon still writes to.
  const second = await startDaemonProcess(stateDir);
  try {
    const afterRestart = await todayHistory(second.baseUrl);
    for (const point of firstRun) {
      const kept = afterRestart.find((candidate) => candidate.t === point.t);
      assert.ok(
        kept && kept.n >= point.n,
        `bucket ${point.t} (${point.n} readings) lost: ${JSON.stringify(kept)}`,
      );
    }
    await page.goto(`${second.baseUrl}/#/history`);
    assert.ok((await chartPoints(page, 'history-today')) >= firstRun.length);
    assert.match(
      (await page.locator('#history-today-note').textContent()) ?? '',
      / points? of 1m; energy import \d+\.\d{3} kWh/,
    );
    assert.deepEqual(pageErrors, []);
  } finally {
    await second.stop();
  }
});

/** The page's DOM as the staleness predicate reads it (tests compile without the DOM library). */
type StalePage = {
  document: {
    getElementById(id: string): { hidden?: boolean; textContent: string | null } | null;
    querySelectorAll(selector: string): { length: number };
  };
};

test('a meter that stops sending greys the last values out as not current; no meter shows "no data"', async (t) => {
  if (!requireChromium(t) || !requireCorpus(t)) return;
  // One telegram from a capture, then silence: after meter.timeout (2 s) the status is NO DATA.
  const capture = join(corpusDir, 'dsmr', 'ndokter_v5.txt');
  const { daemon, page } = await setUp(t, {
    METER_GATEWAY_METER_SOURCE: `file:${capture}?interval=1&loop=false`,
    METER_GATEWAY_METER_TIMEOUT: '2',
  });
  await page.goto(`${daemon.baseUrl}/`);
  await eventsAbove(page, 0);
  // NO DATA lasts from meter.timeout until the watchdog reopens the replay (3 x meter.timeout),
  // which sends the telegram again: banner, greying and badge are read together, from one state
  // of the page, not one after another across that reopen.
  const noData = await page.waitForFunction(
    () => {
      const { document } = globalThis as unknown as StalePage;
      const banner = document.getElementById('stale-banner');
      if (!banner || banner.hidden || !banner.textContent?.includes('Meter status NO DATA')) return false;
      return {
        banner: banner.textContent,
        stale: document.querySelectorAll('body.stale').length,
        badge: document.getElementById('meter-status')?.textContent ?? '',
      };
    },
    undefined,
    { timeout: 15_000 },
  );
  const seen = (await noData.jsonValue()) as { banner: string; stale: number; badge: string };
  assert.match(seen.banner, /The values shown are from .+ and are not current\./);
  assert.equal(seen.stale, 1);
  assert.match(seen.badge, /NO DATA/);

  // A source that never connects: nothing to show, and the page says so.
  const silent = await setUp(t, { METER_GATEWAY_METER_SOURCE: 'tcp://127.0.0.1:1?protocol=dsmr' });
  await silent.page.goto(`${silent.daemon.baseUrl}/`);
  await silent.page
    .locator('#stale-banner', { hasText: 'No data: no reading has arrived yet (meter status NOT CONNECTED)' })
    .waitFor({ timeout: 15_000 });
  assert.equal(await silent.page.locator('#p-in').textContent(), '—');
  assert.equal(await silent.page.locator('#live-age').getAttribute('data-events'), '0');
  assert.equal(await silent.page.locator('#live-age').textContent(), '—');
});
