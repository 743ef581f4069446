import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { requirePeer } from './environment.js';

/**
 * Debian's chromium package (the full browser; `--headless` runs it without a window):
 * playwright-core drives it and never downloads a browser of its own. The tests use it only where
 * the full browser behaves differently from the headless shell (its HTTP authentication prompt).
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Debian's chromium-headless-shell package: the same Blink and V8 without the browser's user
 * interface layer, built for automation. The page tests run in it: a page file costs about half
 * the CPU it costs in the full browser (docs/architecture.md#test-tiers).
 */
export const HEADLESS_SHELL_PATH = '/usr/bin/chromium-headless-shell';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Skips the test (fails it under CI=true) when the page tests' browser, the headless shell, is missing. */
export function requireChromium(t: TestContext): boolean {
  return requirePeer(t, existsSync(HEADLESS_SHELL_PATH), `chromium-headless-shell at ${HEADLESS_SHELL_PATH}`);
}

/** Skips the test (fails it under CI=true) when the full Chromium is missing. */
export function requireFullChromium(t: TestContext): boolean {
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
  /**
   * The full Chromium instead of the headless shell, for what only the full browser does (its
   * HTTP authentication prompt); the test checks requireFullChromium() first.
   */
  fullChromium?: boolean;
}

/** The launch options of the page tests' browser, the headless shell. */
export const CHROMIUM_LAUNCH = { executablePath: HEADLESS_SHELL_PATH, headless: true, args: CHROMIUM_ARGS };

/** The launch options of the full Chromium (the new headless mode of the full browser). */
export const FULL_CHROMIUM_LAUNCH = {
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: ['--headless', ...CHROMIUM_ARGS],
};

/** The launch options of the browser `options` asks for. */
export function launchOptions(options: BrowserOptions): typeof CHROMIUM_LAUNCH {
  return options.fullChromium ? FULL_CHROMIUM_LAUNCH : CHROMIUM_LAUNCH;
}

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
 * A browser of its own with a fresh profile (user-data-dir), removed again on close: for the
 * scripts and benchmarks. The headless shell where it is installed and `fullChromium` is not asked
 * for, the full Chromium otherwise (the scripts run on machines without the test peers, too). Tests take a context of their file's one Chromium instead
 * (test/helpers/file-browser.ts).
 */
export async function launchBrowser(options: BrowserOptions = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'mg-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    ...launchOptions({ ...options, fullChromium: options.fullChromium || !existsSync(HEADLESS_SHELL_PATH) }),
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
