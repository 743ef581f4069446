import type { Page } from 'playwright-core';

/**
 * Brings up the parts of a page that only show after input, so the language check sees them too:
 * on the Actions page a schedule, a condition, a constant, an HTTP request and a Modbus write, the
 * form's own messages (a save without an id), the saved action's row and the result of a run whose
 * requests are refused (loopback port 9 and Modbus on 127.0.0.1:1); on the services tab the
 * time-of-use price field; on the Meters page the rows and the energy-flow card of the further
 * meters; in the meters editor a new row and the result of "Test this source" on a polled meter.
 */
export async function exercise(page: Page, route: string): Promise<boolean> {
  if (route === 'actions') {
    await exerciseActions(page);
    return true;
  }
  if (route === 'settings/services') {
    await page.locator('#form-costs [name="services.costs.import.mode"]').selectOption('time_of_use');
    return true;
  }
  if (route === 'meters') {
    await page.locator('#meters-table tbody tr[data-meter="house"]').waitFor({ timeout: 10_000 });
    await page.locator('#energy-flow dd[data-flow="house"]').waitFor({ timeout: 10_000 });
    return true;
  }
  if (route === 'settings/meter') {
    await exerciseMetersEditor(page);
    return true;
  }
  return false;
}

async function exerciseMetersEditor(page: Page): Promise<void> {
  const polled = page.locator('#meters-rows fieldset.meter-entry').first();
  await polled.locator('[name=id]').waitFor({ timeout: 10_000 });
  await polled.locator('button').first().click();
  // The answer replaces "testing…" with the first reading (or the error) of the source.
  await page.waitForFunction(
    () => {
      const doc = (
        globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
      ).document;
      const text = doc.querySelector('#meters-rows output.meter-test')?.textContent ?? '';
      return /\d/.test(text);
    },
    undefined,
    { timeout: 15_000 },
  );
  await page.locator('#meters-add').click();
}

async function exerciseActions(page: Page): Promise<void> {
  const form = page.locator('#form-action');
  await form.locator('[name="schedule.kind"]').selectOption('daily');
  await form.locator('[name="schedule.time"]').fill('07:30');
  await form.locator('[name="when.enable"]').check();
  await form.locator('[name="when.value"]').selectOption({ index: 1 });
  await form.locator('[name="when.threshold"]').fill('1.5');
  await page.locator('#actions-const-add').click();
  await page.locator('#actions-const [name="const.name"]').fill('turn');
  await page.locator('#action-add-http').click();
  await page.locator('#action-add-modbus').click();
  await form.locator('fieldset.action-request [data-field=url]').fill('http://127.0.0.1:9/relay');
  await form.locator('fieldset.action-request [data-field=host]').fill('127.0.0.1');
  await form.locator('fieldset.action-request [data-field=port]').fill('1');
  await form.locator('fieldset.action-request [data-field=value]').fill('1');
  await form.locator('#action-save').click();
  await form.locator('.field-error[data-field="actions[0].id"]').waitFor();
  await form.locator('[name=id]').fill('plug');
  await form.locator('#action-save').click();
  await page
    .locator('#actions-list tr[data-action=plug]')
    .waitFor({ timeout: 10_000 })
    .catch(async () => {
      throw new Error(`not saved: ${await form.locator('output.form-status').first().textContent()}`);
    });
  await form.locator('#action-run').click();
  await form.locator('#action-run-result[data-code]').waitFor({ timeout: 15_000 });
  await page.locator('#actions-results tr').first().waitFor();
}
