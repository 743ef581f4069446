import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MetersHistory } from '../../src/history/meters-history.js';
import { HistoryRecorder } from '../../src/history/recorder.js';
import { registerSettingsRoutes, METERS_WRITE_RATE } from '../../src/http/routes/settings.js';
import { ReadingStore } from '../../src/reading/store.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { sendJsonBody } from '../http/http-client.js';

/** Meter-list churn (docs/architecture.md#hostile-input): changes coalesce, writes are rate-limited. */

test('a burst of meter-list changes coalesces: the history follows the latest list, not every change', async (t) => {
  let metersHistory: MetersHistory | undefined;
  let main: HistoryRecorder | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    routes: (_router, ctx) => {
      main = new HistoryRecorder(ctx, ctx.logger);
      metersHistory = new MetersHistory(ctx, ctx.logger, main);
    },
  });
  t.after(async () => {
    await metersHistory!.stop();
    await main!.stop();
    await h.close();
  });
  await main!.start();
  await metersHistory!.start();
  const stores: ReadingStore[] = [];
  t.after(() => stores.forEach((store) => store.close()));
  const add = (id: string) => {
    const store = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', now: h.clock.now });
    stores.push(store);
    h.ctx.meters.add({ id, name: id, role: 'pv', kind: 'polled', store, source: () => 'x' });
  };
  // 150 list changes in one go, each replacing the further meter by a new one.
  for (let i = 0; i < 150; i++) {
    add(`m${i}`);
    h.ctx.meters.remove(`m${i}`);
  }
  add('final');
  await waitFor('the history of the latest meter', () => metersHistory!.recorderOf('final') !== undefined);
  const folders = readdirSync(join(h.stateDir, 'history', 'meters'));
  assert.ok(
    folders.length <= 2,
    `recorders started for ${folders.length} meters: ${folders.slice(0, 10).join(', ')}`,
  );
  assert.ok(existsSync(join(h.stateDir, 'history', 'meters', 'final', '1m.ring')));
  assert.equal(metersHistory!.recorderOf('m3'), undefined);
});

test('writes of meters are rate-limited per client: 429 naming the limit, with Retry-After', async (t) => {
  const h = await startHttpContext({
    clockFrozen: true,
    routes: (router, ctx) => registerSettingsRoutes(router, ctx),
  });
  t.after(() => h.close());
  let turn = 0;
  // Each write a new list (another name), so each one changes the meters.
  const next = () => ({
    meters: [
      { id: 'pv', name: `PV ${++turn}`, role: 'pv', source: 'modbus-rtu:/dev/ttyUSB0?unit=1&baud=9600' },
    ],
  });
  // A write that changes nothing costs nothing.
  for (let i = 0; i < 10; i++)
    assert.equal((await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', { meters: [] })).status, 200);
  const statuses: number[] = [];
  let refused: Awaited<ReturnType<typeof sendJsonBody>> | undefined;
  for (let i = 0; i < METERS_WRITE_RATE.burst + 3; i++) {
    const answer = await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', next());
    statuses.push(answer.status);
    if (answer.status === 429) refused = answer;
  }
  assert.deepEqual(statuses, [
    ...Array<number>(METERS_WRITE_RATE.burst).fill(200),
    ...Array<number>(3).fill(429),
  ]);
  assert.equal(refused!.json().error, 'too_many_requests');
  assert.match(refused!.json().message, new RegExp(`limited to ${METERS_WRITE_RATE.burst} at once`));
  assert.equal(refused!.headers['retry-after'], String(METERS_WRITE_RATE.refillMs / 1000));
  // Other settings are not limited.
  const other = await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', { system: { host_name: 'gw' } });
  assert.equal(other.status, 200, other.text);
  // Time refills the bucket.
  h.clock.advance(METERS_WRITE_RATE.refillMs);
  assert.equal((await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', next())).status, 200);
  assert.equal(h.ctx.refusals.get('meters_write_rate'), 3);
});
