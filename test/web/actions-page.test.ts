import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requireChromium } from '../helpers/browser.js';
import { recordingServer } from '../actions/rig.js';
import { setUp } from './page-rig.js';

test('the Actions page adds an HTTP action with the form, runs it and shows code 200', async (t) => {
  if (!requireChromium(t)) return;
  const target = await recordingServer(200);
  t.after(() => target.close());
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/actions`);
  await page.locator('#page-actions').waitFor();

  const form = page.locator('#form-action');
  await form.locator('[name=id]').fill('plug');
  await page.locator('#action-add-http').click();
  const request = form.locator('fieldset.action-request').first();
  await request.locator('[data-field=url]').fill('ftp://not-http');
  await form.locator('#action-save').click();
  // The gateway's 400 names the field, and the page shows it.
  await form.locator('output.form-status', { hasText: 'actions[0].requests[0].http.url' }).waitFor();

  await request.locator('[data-field=url]').fill(`${target.url}/relay?turn=on&sys=\${sys.id}`);
  await request.locator('[data-field=method]').selectOption('POST');
  await request.locator('[data-field=headers]').fill('X-Token: ${const.token}');
  await request.locator('[data-field=payload]').fill('{"on":true}');
  await page.locator('#actions-const').fill('{"token":"t1"}');
  await page.locator('#actions-const-save').click();
  await form.locator('output.form-status', { hasText: 'Saved.' }).waitFor();
  await form.locator('#action-save').click();
  await form.locator('output.form-status', { hasText: 'Saved.' }).waitFor();
  const row = page.locator('#actions-list tr[data-action=plug]');
  await row.waitFor();

  await row.locator('button', { hasText: 'Run now' }).click();
  await page.locator('#actions-status', { hasText: 'Action plug: code 200' }).waitFor();
  await page.locator('#actions-results tr', { hasText: '200' }).first().waitFor();
  assert.equal(target.requests.length, 1);
  assert.equal(target.requests[0]!.method, 'POST');
  assert.match(target.requests[0]!.url, /^\/relay\?turn=on&sys=[0-9A-F]{12}$/);
  assert.equal(target.requests[0]!.headers['x-token'], 't1');
  assert.equal(target.requests[0]!.body, '{"on":true}');

  const stored = (await (await fetch(`${daemon.baseUrl}/api/v1/actions`)).json()) as {
    const: Record<string, unknown>;
    actions: Array<{ id: string; enable: boolean; requests: unknown[] }>;
  };
  const system = (await (await fetch(`${daemon.baseUrl}/api/v1/system`)).json()) as {
    services: {
      actions: { state: string; actions: Record<string, { runs: number; ok: number; last_code: number }> };
    };
  };
  assert.equal(system.services.actions.state, 'running');
  assert.deepEqual(
    [
      system.services.actions.actions.plug!.runs,
      system.services.actions.actions.plug!.ok,
      system.services.actions.actions.plug!.last_code,
    ],
    [1, 1, 200],
  );
  assert.deepEqual(stored.const, { token: 't1' });
  assert.deepEqual(
    stored.actions.map((action) => [action.id, action.enable, action.requests.length]),
    [['plug', true, 1]],
  );
  assert.deepEqual(pageErrors, []);
});

test('the Actions page edits triggers and Modbus writes with forms and keeps them when edited again', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  await page.goto(`${daemon.baseUrl}/#/actions`);
  const form = page.locator('#form-action');
  await form.locator('[name=id]').fill('sg_ready');
  await form.locator('[name=schedule]').fill('0 7 * * 1-5');
  await form.locator('[name="when.value"]').fill('P_Out');
  await form.locator('[name="when.kind"]').selectOption('above');
  await form.locator('[name="when.threshold"]').fill('1.5');
  await form.locator('[name="when.for"]').fill('300');
  await form.locator('[name=min_interval]').fill('900');
  await page.locator('#action-add-modbus').click();
  const write = form.locator('fieldset.action-request').first();
  await write.locator('[data-field=host]').fill('127.0.0.2');
  await write.locator('[data-field=func]').selectOption('16');
  await write.locator('[data-field=address]').fill('4000');
  await write.locator('[data-field=type]').selectOption('float');
  await write.locator('[data-field=value]').fill('2.5');
  await form.locator('#action-save').click();
  await form.locator('output.form-status', { hasText: 'Saved.' }).waitFor();

  const expected = {
    id: 'sg_ready',
    enable: true,
    schedule: '0 7 * * 1-5',
    when: { value: 'P_Out', above: 1.5, for: 300 },
    min_interval: 900,
    requests: [{ modbus: { host: '127.0.0.2', func: 16, address: 4000, value: '2.5', type: 'float' } }],
  };
  const stored = async () =>
    ((await (await fetch(`${daemon.baseUrl}/api/v1/actions`)).json()) as { actions: unknown[] }).actions;
  assert.deepEqual(await stored(), [expected]);

  // Edit: the form is filled from the stored action; a change is saved in place.
  await form.locator('#action-new').click();
  await page.locator('#actions-list tr[data-action=sg_ready] button', { hasText: 'Edit' }).click();
  assert.equal(await form.locator('[name="when.threshold"]').inputValue(), '1.5');
  await form.locator('[name="when.kind"]').selectOption('below');
  await form.locator('#action-save').click();
  await form.locator('output.form-status', { hasText: 'Saved.' }).waitFor();
  const { above, ...when } = expected.when;
  assert.equal(above, 1.5);
  assert.deepEqual(await stored(), [{ ...expected, when: { ...when, below: 1.5 } }]);
  assert.deepEqual(pageErrors, []);
});
