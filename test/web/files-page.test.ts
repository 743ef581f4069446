import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireChromium } from '../helpers/browser.js';
import { waitFor } from '../helpers/wait.js';
import { setUp } from './page-rig.js';

test('the Files page lists the CSV logs, downloads one byte for byte and deletes a file after confirmation', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors, stateDir } = await setUp(t, {
    METER_GATEWAY_SERVICES_SD_ENABLE: 'true',
    METER_GATEWAY_SERVICES_SD_FREQUENCY: '1',
  });
  const sdDir = join(stateDir, 'sd');
  // The daemon's own CSV logging writes the day file; two rows, then logging stops so it holds still.
  const csvName = await waitFor(
    'two CSV rows',
    () => (existsSync(sdDir) ? readdirSync(sdDir).find((name) => name.endsWith('.csv')) : undefined),
    (name) => name !== undefined && readFileSync(join(sdDir, name), 'utf8').trim().split('\n').length >= 3,
    { deadlineMs: 20_000 },
  );
  const off = await fetch(`${daemon.baseUrl}/api/v1/settings`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ services: { sd: { enable: false } } }),
  });
  assert.equal(off.status, 200);
  writeFileSync(join(sdDir, 'notes.txt'), 'delete me');

  await page.goto(`${daemon.baseUrl}/#/files`);
  const csvRow = page.locator(`#files-rows tr[data-name="${csvName!}"]`);
  await csvRow.waitFor();
  const csvBytes = readFileSync(join(sdDir, csvName!));
  const cells = await csvRow.locator('td').allTextContents();
  assert.match(
    cells[1]!,
    csvBytes.length < 1000 ? new RegExp(`^${csvBytes.length} B$`) : /^\d+\.\d (kB|MB)$/,
  );
  assert.ok(!Number.isNaN(Date.parse(new Date(cells[2]!).toString())), `a date: ${cells[2]}`);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    csvRow.locator('a', { hasText: csvName! }).click(),
  ]);
  assert.equal(download.suggestedFilename(), csvName);
  const saved = await download.path();
  assert.ok(readFileSync(saved).equals(csvBytes), 'downloaded byte for byte');

  // Declined: the file stays. Accepted: it is gone, from the list and from the card.
  const notesRow = page.locator('#files-rows tr[data-name="notes.txt"]');
  page.once('dialog', (dialog) => void dialog.dismiss());
  await notesRow.locator('button', { hasText: 'Delete' }).click();
  assert.ok(existsSync(join(sdDir, 'notes.txt')));
  const question: string[] = [];
  page.once('dialog', (dialog) => {
    question.push(dialog.message());
    void dialog.accept();
  });
  await notesRow.locator('button', { hasText: 'Delete' }).click();
  await page.locator('#files-status', { hasText: 'Deleted notes.txt.' }).waitFor();
  assert.equal(await notesRow.count(), 0);
  assert.deepEqual(question, ['Delete notes.txt?']);
  assert.equal(existsSync(join(sdDir, 'notes.txt')), false);
  assert.ok(existsSync(join(sdDir, csvName!)), 'only the chosen file is deleted');
  assert.deepEqual(pageErrors, []);
});
