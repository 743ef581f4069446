import { after } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_LAUNCH, contextOptions, type BrowserOptions, type TestBrowser } from './browser.js';

/**
 * One Chromium per test file: started by the file's first browserContext() and closed after the
 * file's last test (an `after` hook on the file's root test). Each test gets a browser context of
 * its own, which shares nothing with the other tests' (cookies, storage, cache, credentials), so
 * starting the browser once per file instead of once per test costs no isolation. A file whose
 * tests all skip (no Chromium here) never starts it.
 */
let shared: Promise<Browser> | undefined;

after(async () => {
  const browser = await shared?.catch(() => undefined);
  shared = undefined;
  await browser?.close();
});

/** A fresh browser context in the file's Chromium; close() closes the context, not the browser. */
export async function browserContext(options: BrowserOptions = {}): Promise<TestBrowser> {
  shared ??= chromium.launch(CHROMIUM_LAUNCH);
  const context = await (await shared).newContext(contextOptions(options));
  return { context, close: () => context.close() };
}
