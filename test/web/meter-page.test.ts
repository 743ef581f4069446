import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerMeterSettingsRoutes } from '../../src/http/routes/meter-settings.js';
import { registerProbeRoute } from '../../src/http/routes/probe.js';
import { PROBE_STEPS } from '../../src/meter/probe/probe.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { loadStaticAssets } from '../../src/web/static-assets.js';
import { ptyWithMeter } from '../meter/probe/pty-meter.js';
import { FakeMeter } from '../meter/transport/fake-meter.js';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { corpusDir, requireCommand, requireCorpus } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';

test('the meter page probes a serial port and takes over the source it found', async (t) => {
  if (!requireChromium(t) || !requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const telegram = readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5.txt'));
  const pty = await ptyWithMeter(t, (path) => new FakeMeter(path, [telegram], 400));
  const http = await startHttpContext({
    routes: (router, ctx) => {
      registerMeterSettingsRoutes(router, ctx);
      // The DSMR 4/5 step alone: the meter on the pty speaks DSMR 5.
      registerProbeRoute(router, ctx, { steps: [PROBE_STEPS[0]!] });
      registerWebRoutes(router, ctx, loadStaticAssets());
    },
  });
  const browser = await browserContext();
  t.after(async () => {
    await browser.close();
    await http.close();
  });
  const page = await browser.context.newPage();
  await page.goto(`${http.baseUrl}/#/settings/meter`);
  const probe = page.locator('#form-probe');
  await probe.locator('input[name=device]').fill('dev/ttyUSB0');
  await probe.locator('button[type=submit]').click();
  await probe.locator('.field-error[data-field="device"]', { hasText: 'absolute device path' }).waitFor();

  await probe.locator('input[name=device]').fill(pty.hostPath);
  await probe.locator('button[type=submit]').click();
  const expected = `serial:${pty.hostPath}?protocol=dsmr&baud=115200&databits=8&parity=none`;
  const use = probe.locator('#probe-result button', { hasText: expected });
  await use.waitFor({ timeout: 20_000 });
  assert.match((await probe.locator('#probe-result p').textContent()) ?? '', /^OK: DSMR after \d+\.\d s$/);
  assert.match(
    (await probe.locator('#probe-result li').first().textContent()) ?? '',
    /DSMR 4\/5 at 115200 8N1: found/,
  );
  await use.click();
  const meter = page.locator('#form-meter');
  assert.equal(await meter.locator('input[name=source]').inputValue(), expected);
  await meter.locator('button[type=submit]').click();
  await meter.locator('.form-status', { hasText: 'Saved.' }).waitFor();
  const settings = (await (await fetch(`${http.baseUrl}/api/v1/meter/settings`)).json()) as {
    source: string;
  };
  assert.equal(settings.source, expected);

  // Now that the meter input owns the port, probing it again is refused, and the page says so.
  await probe.locator('button[type=submit]').click();
  await probe.locator('.form-status', { hasText: "is the meter input's port" }).waitFor();
});
