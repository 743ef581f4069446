import { after } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { contextOptions, launchOptions, type BrowserOptions, type TestBrowser } from './browser.js';

/**
 * One browser per test process: started by the first browserContext() and closed after the file's
 * last test (an `after` hook on the file's root test), or, when the file runs in a page shard
 * (scripts/test-shard.mjs, docs/architecture.md#test-tiers), after the shard's last file: the
 * shard's files share it. Each test gets a browser context of its own, which shares nothing with
 * the other tests' (cookies, storage, cache, credentials), so starting the browser once per file or
 * shard instead of once per test costs no isolation; at the end of each file of a shard, contexts
 * its tests left open are closed. A process whose tests all skip (no browser here) never starts it.
 * The browser is the headless shell; a test that asks for `fullChromium` gets a context of the full
 * Chromium, started on first use as well.
 */
const shared = new Map<'shell' | 'full', Promise<Browser>>();

/** What scripts/test-shard.mjs offers the files it runs (undefined in a process of one file). */
interface ShardHooks {
  afterFile(hook: () => Promise<void>): void;
  atEnd(hook: () => Promise<void>): void;
}
const shard = (globalThis as Record<symbol, ShardHooks | undefined>)[Symbol.for('meter-gateway.test-shard')];

/** The browsers started so far (those that started). */
async function browsers(): Promise<Browser[]> {
  const started = await Promise.all([...shared.values()].map((launch) => launch.catch(() => undefined)));
  return started.filter((browser): browser is Browser => browser !== undefined);
}

async function closeBrowsers(): Promise<void> {
  const open = await browsers();
  shared.clear();
  await Promise.all(open.map((browser) => browser.close()));
}

if (shard) {
  shard.afterFile(async () => {
    const open = await browsers();
    await Promise.all(open.flatMap((browser) => browser.contexts().map((context) => context.close())));
  });
  shard.atEnd(closeBrowsers);
} else {
  after(closeBrowsers);
}

/** The browser of this kind, started on first use, and again if it went away (a crash). */
async function browserOf(kind: 'shell' | 'full', options: BrowserOptions): Promise<Browser> {
  const known = shared.get(kind);
  const running = known && (await known.catch(() => undefined));
  if (running?.isConnected()) return running;
  const launch = chromium.launch(launchOptions(options));
  shared.set(kind, launch);
  return launch;
}

/**
 * A fresh browser context in the process's browser; close() closes the context, not the browser.
 * Its time zone is this process's at the moment (TZ, which a test file may set at its top): a
 * browser takes its zone from the environment it was started with, and a page shard's browser was
 * started by an earlier file.
 */
export async function browserContext(options: BrowserOptions = {}): Promise<TestBrowser> {
  const browser = await browserOf(options.fullChromium ? 'full' : 'shell', options);
  const timezoneId = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const context = await browser.newContext({ ...contextOptions(options), timezoneId });
  return { context, close: () => context.close() };
}
