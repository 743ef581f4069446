// The Info page's fleet push section in real Chromium: each target of GET /api/v1/push with its
// state, cursor, backlog and counters, in English and (the same daemon) in German.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PushView } from '../../src/contracts/push.js';
import { de } from '../../src/web/ui/i18n/de/index.js';
import { requireChromium } from '../helpers/browser.js';
import { browserContext } from '../helpers/file-browser.js';
import { jsonOf, setUp } from './page-rig.js';

test('the Info page lists every push target with its state, cursor, backlog and counters, translated', async (t) => {
  if (!requireChromium(t)) return;
  // A receiver on loopback; a fresh daemon has no complete quarter yet, so the target is idle
  // after its clock check.
  const receiver = createServer((request, response) => {
    request.resume();
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.after(() => receiver.close());
  const port = (receiver.address() as AddressInfo).port;
  const { daemon, page, pageErrors } = await setUp(t, {
    METER_GATEWAY_SERVICES_PUSH_TARGETS: JSON.stringify([
      { id: 'fleet', kind: 'remote_write', url: `http://127.0.0.1:${port}/api/v1/write` },
    ]),
  });
  // The first answer (the clock check) has come back.
  let view = await jsonOf<PushView>(`${daemon.baseUrl}/api/v1/push`);
  for (let i = 0; i < 100 && view.targets[0]?.state !== 'idle'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    view = await jsonOf<PushView>(`${daemon.baseUrl}/api/v1/push`);
  }
  const target = view.targets[0]!;
  assert.equal(target.state, 'idle');
  await page.goto(`${daemon.baseUrl}/#/info`);
  const cell = (key: string) => page.locator(`#info-push tr[data-target="fleet"] td[data-push="${key}"]`);
  await cell('state').waitFor();
  assert.equal(await cell('id').textContent(), 'fleet');
  assert.equal(await cell('state').textContent(), 'up to date');
  assert.equal(await cell('last_error').textContent(), '–');
  assert.equal(await cell('backlog').textContent(), String(target.backlog_quarters));
  assert.notEqual(await cell('cursor').textContent(), '–');
  assert.equal(await cell('sent').textContent(), '0');
  assert.equal(await page.locator('#info-push th').first().textContent(), 'Target');
  assert.deepEqual(pageErrors, []);

  const german = await browserContext({ locale: 'de-DE' });
  t.after(() => german.close());
  const page2 = await german.context.newPage();
  await page2.goto(`${daemon.baseUrl}/#/info`);
  const state = page2.locator('#info-push tr[data-target="fleet"] td[data-push="state"]');
  await state.waitFor();
  assert.equal(await state.textContent(), de['push.state.idle']);
  assert.equal(await page2.locator('#info-push th').first().textContent(), de['push.target']);
  assert.equal(
    await page2.locator('#info-push').locator('xpath=ancestor::article//h2').textContent(),
    de['push.title'],
  );
});
