import { after } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { contextOptions, launchOptions, type BrowserOptions, type TestBrowser } from './browser.js';

/**
 * One browser per test file: started by the file's first browserContext() and closed after the
 * file's last test (an `after` hook on the file's root test). Each test gets a browser context of
 * its own, which shares nothing with the other tests' (cookies, storage, cache, credentials), so
 * starting the browser once per file instead of once per test costs no isolation. A file whose
 * tests all skip (no browser here) never starts it. The browser is the headless shell; a test that
 * asks for `fullChromium` gets a context of the file's full Chromium, started on first use as well.
 */
const shared = new Map<'shell' | 'full', Promise<Browser>>();

after(async () => {
  const browsers = await Promise.all([...shared.values()].map((started) => started.catch(() => undefined)));
  shared.clear();
  await Promise.all(browsers.map((browser) => browser?.close()));
});

/** A fresh browser context in the file's browser; close() closes the context, not the browser. */
export async function browserContext(options: BrowserOptions = {}): Promise<TestBrowser> {
  const kind = options.fullChromium ? 'full' : 'shell';
  let started = shared.get(kind);
  if (!started) {
    started = chromium.launch(launchOptions(options));
    shared.set(kind, started);
  }
  const context = await (await started).newContext(contextOptions(options));
  return { context, close: () => context.close() };
}
