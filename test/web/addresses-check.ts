import assert from 'node:assert/strict';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_LAUNCH } from '../helpers/browser.js';
import { PAGES } from '../helpers/ui-pages.js';
import { eventsAbove, trackRequests, valueWhere } from './page-rig.js';

/**
 * A Chromium that resolves `names` to 127.0.0.1 itself (--host-resolver-rules), so a test opens
 * the interface by names the machine's resolver does not know, and its traffic stays on loopback;
 * no proxy from the environment.
 */
export function launchMappedBrowser(names: readonly string[]): Promise<Browser> {
  const rules = names.map((name) => `MAP ${name} 127.0.0.1`).join(',');
  return chromium.launch({
    ...CHROMIUM_LAUNCH,
    args: [...CHROMIUM_LAUNCH.args, `--host-resolver-rules=${rules}`, '--no-proxy-server'],
  });
}

/** The parts of the page's DOM the predicates read (tests compile without the DOM library). */
type PageGlobal = {
  document: {
    querySelector(selector: string): {
      value?: string;
      textContent: string | null;
      hidden?: boolean;
      getAttribute(name: string): string | null;
    } | null;
  };
};

/** The text of the refusal banner when it shows, else undefined. */
function refusalOf(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const banner = (globalThis as unknown as PageGlobal).document.querySelector('#origin-refused');
    return banner && banner.hidden === false ? (banner.textContent ?? '') : undefined;
  });
}

/**
 * What a user does at `url` (the interface's address, ending in `/`): the page loads and connects
 * (live events arrive), every page of the interface opens without a refusal or a script error, a
 * setting saves and shows again after a reload. `name` is the device name it saves.
 */
export async function useEveryPage(browser: Browser, url: string, name: string): Promise<void> {
  await useEveryPageAt(browser, [{ url, name }]);
}

/**
 * useEveryPage at each of `visits`, in a browser context of its own each: the interface's pages are
 * opened at every address at once (each page's checks wait on its own requests, so the waits
 * overlap), then the saves go one after another, as they write the same setting: `saved` runs after
 * each, before the next address saves.
 */
export async function useEveryPageAt(
  browser: Browser,
  visits: readonly { url: string; name: string }[],
  saved: (visit: { url: string; name: string }) => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const contexts = await Promise.all(
    visits.map(() => browser.newContext({ viewport: { width: 1280, height: 900 } })),
  );
  try {
    const pages = await Promise.all(visits.map(({ url }, index) => openEveryPage(contexts[index]!, url)));
    for (const [index, visit] of visits.entries()) {
      await saveName(pages[index]!, visit.url, visit.name);
      await saved(visit);
    }
  } finally {
    await Promise.all(contexts.map((context) => context.close()));
  }
}

/** A page at `url` that loaded, connected and opened every page of the interface; its script errors. */
async function openEveryPage(
  context: BrowserContext,
  url: string,
): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const requests = trackRequests(page);
  const response = await page.goto(`${url}#/dashboard`);
  assert.equal(response?.status(), 200, `${url}: the page`);
  await eventsAbove(page, 0, 20_000);
  await page.locator('#connection.ok').waitFor();
  for (const route of PAGES) {
    await page.evaluate((hash) => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = hash;
    }, `#/${route}`);
    await requests.settled();
    assert.equal(await refusalOf(page), undefined, `${url}#/${route} refused`);
  }
  return { page, errors };
}

/** On the page openEveryPage left at `url`: saves `name` as the device name, sees it after a reload. */
async function saveName({ page, errors }: { page: Page; errors: string[] }, url: string, name: string) {
  await page.evaluate(() => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = '#/settings/system';
  });
  const field = page.locator('#form-system input[name="system.name"]');
  await valueWhere(page, '#form-system input[name="system.name"]', 'not', '');
  await field.fill(name);
  await page.locator('#form-system button[type=submit]').click();
  await page.locator('#form-system .form-status', { hasText: 'Saved.' }).waitFor();
  await page.reload();
  await page.evaluate(() => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = '#/settings/system';
  });
  await valueWhere(page, '#form-system input[name="system.name"]', 'is', name);
  assert.equal(await refusalOf(page), undefined, `${url} refused`);
  assert.deepEqual(errors, [], `${url}: script errors`);
}

/**
 * At an address the device refuses (a public name it was not told): the page shows the refusal
 * banner naming `address` and the setting, and a save names the refusal in the form instead of
 * leaving the page at "connecting…".
 */
export async function seeRefusal(browser: Browser, url: string, address: string): Promise<string> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    await page.goto(`${url}#/settings/system`);
    await page.locator('#form-system input[name="system.name"]').fill('refused');
    await page.locator('#form-system button[type=submit]').click();
    await page.locator('#form-system .form-status', { hasText: address }).waitFor();
    await page.locator('#origin-refused').waitFor({ state: 'visible' });
    const banner = (await refusalOf(page)) ?? '';
    assert.ok(banner.includes(address), banner);
    assert.ok(banner.includes('http.allowed_hosts'), banner);
    assert.ok(banner.includes('METER_GATEWAY_HTTP_ALLOWED_HOSTS'), banner);
    return banner;
  } finally {
    await context.close();
  }
}
