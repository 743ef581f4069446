import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { requirePeer } from './environment.js';

/** Debian's chromium package; playwright-core drives it and never downloads a browser of its own. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Skips the test (fails it under CI=true) when the system Chromium is missing. */
export function requireChromium(t: TestContext): boolean {
  return requirePeer(t, existsSync(CHROMIUM_PATH), `chromium at ${CHROMIUM_PATH}`);
}

/** The options of a browser (context) for a test or a script. */
export interface BrowserOptions {
  httpCredentials?: { username: string; password: string };
  width?: number;
  height?: number;
  /** navigator.language(s) and Accept-Language, e.g. 'de-CH'. */
  locale?: string;
  /** prefers-color-scheme as the page sees it. */
  colorScheme?: 'light' | 'dark';
}

export const CHROMIUM_LAUNCH = { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS };

/** The context options of `options` (viewport 1280x900 unless given). */
export function contextOptions(options: BrowserOptions): BrowserContextOptions {
  return {
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    ...(options.httpCredentials ? { httpCredentials: options.httpCredentials } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
    ...(options.colorScheme ? { colorScheme: options.colorScheme } : {}),
  };
}

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * A Chromium of its own with a fresh profile (user-data-dir), removed again on close: for the
 * scripts and benchmarks. Tests take a context of their file's one Chromium instead
 * (test/helpers/file-browser.ts).
 */
export async function launchBrowser(options: BrowserOptions = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'mg-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    ...CHROMIUM_LAUNCH,
    ...contextOptions(options),
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
