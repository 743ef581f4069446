// The dark theme in real Chromium: prefers-color-scheme decides on "auto", the header's menu
// overrides it and is remembered, and the charts are redrawn in the theme's colours.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { startDaemonInProcess } from '../helpers/daemon-in-process.js';

type PageGlobal = {
  document: {
    documentElement: { dataset: Record<string, string | undefined> };
    body: unknown;
    querySelector(selector: string): { toDataURL(): string } | null;
  };
  getComputedStyle(element: unknown): { backgroundColor: string; color: string };
};

async function look(page: Page): Promise<{ theme: string; background: string; text: string }> {
  return page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as unknown as PageGlobal;
    const style = getComputedStyle(document.documentElement);
    return {
      theme: document.documentElement.dataset.theme ?? '',
      background: style.backgroundColor,
      text: style.color,
    };
  });
}

/** The explorer chart's pixels (its data does not change while the test looks). */
async function chartPixels(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      (globalThis as unknown as PageGlobal).document.querySelector('#explore-chart canvas')?.toDataURL() ??
      '',
  );
}

test('the theme follows prefers-color-scheme, the menu overrides it and persists, charts follow', async (t) => {
  if (!requireChromium(t)) return;
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-theme-'));
  const daemon = await startDaemonInProcess(stateDir);
  t.after(async () => {
    await daemon.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const seen: Record<string, { theme: string; background: string; text: string }> = {};
  for (const scheme of ['light', 'dark'] as const) {
    const browser = await browserContext({ colorScheme: scheme });
    try {
      const page = await browser.context.newPage();
      await page.goto(`${daemon.baseUrl}/#/history`);
      await page.locator('#explorer[data-from]').waitFor();
      seen[scheme] = await look(page);
      assert.equal(seen[scheme].theme, scheme);
      if (scheme === 'light') continue;

      // Dark system: the menu's "light" wins, also after a reload; "auto" follows the system again.
      await page.waitForTimeout(500);
      const dark = await chartPixels(page);
      await page.waitForTimeout(500);
      assert.equal(await chartPixels(page), dark, 'the chart is still while nothing changes');
      await page.selectOption('#theme-choice', 'light');
      assert.deepEqual(await look(page), seen.light);
      await page.waitForTimeout(300);
      assert.notEqual(await chartPixels(page), dark, 'the chart is redrawn in the light colours');
      await page.reload();
      await page.locator('#explorer[data-from]').waitFor();
      assert.deepEqual(await look(page), seen.light);
      assert.equal(await page.locator('#theme-choice').inputValue(), 'light');
      await page.selectOption('#theme-choice', 'auto');
      assert.deepEqual(await look(page), seen.dark);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.waitForFunction(
        () => (globalThis as unknown as PageGlobal).document.documentElement.dataset.theme === 'light',
      );
    } finally {
      await browser.close();
    }
  }
  assert.notEqual(seen.light!.background, seen.dark!.background);
  assert.notEqual(seen.light!.text, seen.dark!.text);
  t.diagnostic(`light ${seen.light!.background} / dark ${seen.dark!.background}`);
});
