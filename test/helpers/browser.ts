import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
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

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile (user-data-dir), removed again on close. */
export async function launchBrowser(
  options: {
    httpCredentials?: { username: string; password: string };
    width?: number;
    height?: number;
    /** navigator.language(s) and Accept-Language, e.g. 'de-CH'. */
    locale?: string;
    /** prefers-color-scheme as the page sees it. */
    colorScheme?: 'light' | 'dark';
  } = {},
): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'mg-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    ...(options.httpCredentials ? { httpCredentials: options.httpCredentials } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
    ...(options.colorScheme ? { colorScheme: options.colorScheme } : {}),
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
