import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import type { BrowserOptions, TestBrowser } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startDaemonInProcess, type InProcessDaemon } from '../helpers/daemon-in-process.js';
import { startDaemonProcess, type ListeningDaemon } from '../helpers/daemon-process.js';
import { waitFor } from '../helpers/wait.js';

/** What setUp gives a test: the daemon, a browser context of the file's browser, a page. */
export interface PageRig<D> {
  daemon: D;
  browser: TestBrowser;
  page: Page;
  pageErrors: string[];
  stateDir: string;
}

/**
 * The real daemon (simulator meter) in the test's process (test/helpers/daemon-in-process.ts) and
 * a browser context with a page, all cleaned up after the test. For a test of a restart or an exit,
 * setUpChildProcess.
 */
export function setUp(
  t: TestContext,
  env: Record<string, string> = {},
  credentials?: { username: string; password: string },
  /** A state folder the test prepared (seeded history, ...); a fresh one otherwise. */
  preparedStateDir?: string,
  /** More of the browser context's options, e.g. `fullChromium` (test/helpers/browser.ts). */
  browserOptions: BrowserOptions = {},
): Promise<PageRig<InProcessDaemon>> {
  return rig(t, startDaemonInProcess, env, credentials, preparedStateDir, browserOptions);
}

/** setUp with the daemon as a child process (test/helpers/daemon-process.ts): its exit can be awaited. */
export function setUpChildProcess(
  t: TestContext,
  env: Record<string, string> = {},
): Promise<PageRig<ListeningDaemon>> {
  return rig(t, startDaemonProcess, env);
}

async function rig<D extends { stop(): Promise<void> }>(
  t: TestContext,
  start: (stateDir: string, env: Record<string, string>) => Promise<D>,
  env: Record<string, string>,
  credentials?: { username: string; password: string },
  preparedStateDir?: string,
  browserOptions: BrowserOptions = {},
): Promise<PageRig<D>> {
  const stateDir = preparedStateDir ?? mkdtempSync(join(tmpdir(), 'mg-web-'));
  const daemon = await start(stateDir, env);
  const browser = await browserContext({
    ...browserOptions,
    ...(credentials ? { httpCredentials: credentials } : {}),
  });
  t.after(async () => {
    await browser.close();
    await daemon.stop();
    // Retried: a daemon child ending beside the removal may still add a file.
    rmSync(stateDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });
  const page = await browser.context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { daemon, browser, page, pageErrors, stateDir };
}

/** The fields of GET /api/v1/settings and /api/v1/mqtt/settings the tests read. */
export interface SettingsView {
  system: { name: string };
  services: {
    report_interval: number;
    sd: { enable: boolean };
    metrics: { enable: boolean; public: boolean; process: boolean };
  };
}
export interface MqttView {
  url: string;
  publish: { qos: number };
  broker: { certificate: string };
}

export async function settingsOf<View = SettingsView>(
  baseUrl: string,
  path = '/api/v1/settings',
): Promise<View> {
  const response = await fetch(`${baseUrl}${path}`);
  assert.equal(response.status, 200);
  return (await response.json()) as View;
}

/** The number of live events the dashboard received (kept as a data attribute, not shown). */
export async function liveCount(page: Page): Promise<number> {
  return Number(await page.locator('#live-age').getAttribute('data-events'));
}

/**
 * The part of the page's DOM the predicates below read. Tests compile without the DOM library, and
 * predicates are passed as functions: the page's Content-Security-Policy forbids evaluating strings.
 */
type PageGlobal = {
  document: {
    querySelector(
      selector: string,
    ): { value?: string; textContent: string | null; getAttribute(name: string): string | null } | null;
  };
};

/** Waits until the live stream has delivered more than `count` events. */
export async function eventsAbove(page: Page | Frame, count: number, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    (seen) =>
      Number(
        (globalThis as unknown as PageGlobal).document
          .querySelector('#live-age')
          ?.getAttribute('data-events'),
      ) > seen,
    count,
    { timeout },
  );
}

/** Waits until a form control's value passes `test` ('is': equals, 'has': contains, 'not': differs). */
export async function valueWhere(
  page: Page | Frame,
  selector: string,
  test: 'is' | 'has' | 'not',
  text: string,
): Promise<void> {
  await page.waitForFunction(
    ([sel, how, want]) => {
      const value = (globalThis as unknown as PageGlobal).document.querySelector(sel!)?.value ?? '';
      return how === 'is' ? value === want : how === 'has' ? value.includes(want!) : value !== want;
    },
    [selector, test, text],
  );
}

/**
 * Counts the page's requests in flight (documents, scripts, fetches; not the live stream, which
 * stays open): `settled()` waits until none has been in flight for `quietMs` and the page drew a
 * frame after the last answer. What "the page has loaded its data" means to a check that reads the
 * rendered page, without a fixed pause per page. Attach it before the navigation it should see.
 */
export function trackRequests(page: Page): { settled(quietMs?: number): Promise<void> } {
  let inFlight = 0;
  let changedAt = performance.now();
  const streams = new Set(['eventsource', 'websocket']);
  const counted = new WeakSet<object>();
  page.on('request', (request) => {
    if (streams.has(request.resourceType())) return;
    counted.add(request);
    inFlight += 1;
    changedAt = performance.now();
  });
  const done = (request: object) => {
    if (!counted.has(request)) return;
    counted.delete(request);
    inFlight -= 1;
    changedAt = performance.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    async settled(quietMs = 250) {
      await waitFor(
        'the page requests to settle',
        () => ({ inFlight, quiet: performance.now() - changedAt }),
        (seen) => seen.inFlight === 0 && seen.quiet >= quietMs,
        { intervalMs: 25 },
      );
      await page.evaluate(
        () =>
          new Promise<void>((resolve) =>
            (globalThis as unknown as { requestAnimationFrame(fn: () => void): void }).requestAnimationFrame(
              () => resolve(),
            ),
          ),
      );
    },
  };
}

/** GET (or `init`) a JSON answer that must be 200. */
export async function jsonOf<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as T;
}

/** Switches the export limiter on through the settings API with one SunSpec inverter `pv1` at `source`. */
export async function enableLimiterOn(baseUrl: string, source: string): Promise<void> {
  await jsonOf(`${baseUrl}/api/v1/settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      services: {
        export_limiter: { enabled: true, inverters: [{ id: 'pv1', source, profile: 'sunspec' }] },
      },
    }),
  });
}
