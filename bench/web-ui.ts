// `npm run build && node dist/bench/web-ui.js [LOADS]`: size of the web interface as served (gzip
// where it is smaller) and, in the system Chromium on loopback, first paint, first contentful paint
// and the time until the first live value shows, each load in a fresh browser profile (cold cache)
// against the real daemon with the simulator. Medians and maxima of LOADS loads (default 10).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStaticAssets } from '../src/web/static-assets.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { startDaemonProcess } from '../test/helpers/daemon-process.js';

type PageGlobal = { document: { querySelector(selector: string): { textContent: string | null } | null } };

function sizes(): void {
  const assets = loadStaticAssets();
  if (assets.length === 0) throw new Error('web interface not built: run npm run build first');
  let raw = 0;
  let served = 0;
  for (const asset of assets) {
    const sent = asset.gzip?.length ?? asset.body.length;
    raw += asset.body.length;
    served += sent;
    console.log(
      `${asset.urlPath.padEnd(24)} ${String(asset.body.length).padStart(7)} B  gzip ${String(sent).padStart(6)} B`,
    );
  }
  console.log(
    `${'total'.padEnd(24)} ${String(raw).padStart(7)} B  gzip ${String(served).padStart(6)} B (${(served / 1024).toFixed(1)} kB)`,
  );
}

function summary(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `${label}: median ${median.toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms`;
}

async function paintTimes(loads: number): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-web-bench-'));
  const daemon = await startDaemonProcess(stateDir);
  const firstPaint: number[] = [];
  const contentful: number[] = [];
  const firstValue: number[] = [];
  try {
    for (let load = 0; load < loads; load++) {
      const browser = await launchBrowser();
      try {
        const page = await browser.context.newPage();
        await page.goto(`${daemon.baseUrl}/`, { waitUntil: 'load' });
        await page.waitForFunction(() =>
          /\d/.test((globalThis as unknown as PageGlobal).document.querySelector('#p-in')?.textContent ?? ''),
        );
        const shown = (await page.evaluate('performance.now()')) as number;
        const paints = (await page.evaluate(
          "performance.getEntriesByType('paint').map((entry) => [entry.name, entry.startTime])",
        )) as Array<[string, number]>;
        const paint = new Map(paints);
        firstPaint.push(paint.get('first-paint') ?? NaN);
        contentful.push(paint.get('first-contentful-paint') ?? NaN);
        firstValue.push(shown);
      } finally {
        await browser.close();
      }
    }
  } finally {
    await daemon.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
  console.log(`\n${loads} cold loads of / in headless Chromium on loopback (time from navigation start):`);
  console.log(summary('first paint', firstPaint));
  console.log(summary('first contentful paint', contentful));
  console.log(summary('first live value shown', firstValue));
}

sizes();
await paintTimes(Number(process.argv[2] ?? 10));
