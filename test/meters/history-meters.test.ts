import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MetersHistory } from '../../src/history/meters-history.js';
import { HistoryRecorder } from '../../src/history/recorder.js';
import { RecentPower } from '../../src/history/recent-power.js';
import { registerHistoryRoutes } from '../../src/http/routes/history.js';
import { ReadingStore } from '../../src/reading/store.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { send } from '../http/http-client.js';
import { meterReading, setClock } from '../history/history-fixture.js';

/** History per meter: `?meter=id` on the history route, each meter in its own ring files. */

const NOW = Date.UTC(2026, 0, 15, 10, 30, 30);

test('?meter=pv answers the PV meter history from its own ring files; main stays the default; unknown ids are a 404', async (t) => {
  let metersHistory: MetersHistory | undefined;
  let main: HistoryRecorder | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    routes: (router, ctx) => {
      main = new HistoryRecorder(ctx, ctx.logger);
      metersHistory = new MetersHistory(ctx, ctx.logger, main);
      registerHistoryRoutes(router, ctx, main, new RecentPower(ctx), (id) => metersHistory!.recorderOf(id));
      t.after(async () => {
        await metersHistory!.stop();
        await main!.stop();
      });
    },
  });
  t.after(() => h.close());
  setClock(h, NOW);
  const pv = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', now: h.clock.now });
  t.after(() => pv.close());
  await main!.start();
  await metersHistory!.start();
  h.ctx.meters.add({ id: 'pv', name: 'PV', role: 'pv', kind: 'polled', store: pv, source: () => 'x' });
  await waitFor('the pv recorder to follow its store', () => pv.listenerCount('reading') > 0);
  assert.ok(
    existsSync(join(h.stateDir, 'history', 'meters', 'pv', '1m.ring')),
    'pv has ring files of its own',
  );
  h.ctx.store.ingest(meterReading(NOW - 10_000, { pIn: 1.5, pOut: 0, eIn: 100, eOut: 5 }));
  pv.ingest(meterReading(NOW - 10_000, { pIn: 0, pOut: 4, eIn: 1, eOut: 2000 }));
  pv.ingest(meterReading(NOW - 5_000, { pIn: 0, pOut: 2, eIn: 1, eOut: 2000.01 }));
  const range = `from=${Math.floor(NOW / 1000) - 3600}&to=${Math.floor(NOW / 1000)}&resolution=1m`;
  const ofPv = await send(h.baseUrl, 'GET', `/api/v1/history?meter=pv&${range}`);
  assert.equal(ofPv.status, 200, ofPv.text);
  const pvView = ofPv.json();
  assert.equal(pvView.meter, 'pv');
  const pvPoint = pvView.points.at(-1);
  assert.equal(pvPoint.p_out.max, 4);
  assert.equal(pvPoint.n, 2);
  const ofMain = (await send(h.baseUrl, 'GET', `/api/v1/history?${range}`)).json();
  assert.equal(ofMain.meter, undefined);
  assert.equal(ofMain.points.at(-1).p_in.max, 1.5);
  const csv = await send(h.baseUrl, 'GET', `/api/v1/history?meter=pv&format=csv&${range}`);
  assert.match(String(csv.headers['content-disposition']), /filename="history-pv-1m-/);
  const unknown = await send(h.baseUrl, 'GET', `/api/v1/history?meter=nope&${range}`);
  assert.equal(unknown.status, 404);
  assert.deepEqual(unknown.json().details.known, ['main', 'pv']);
});

test('a damaged ring file of a further meter is moved aside and rebuilt alone; the primary and the other meters keep their history', async (t) => {
  let metersHistory: MetersHistory | undefined;
  let main: HistoryRecorder | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    routes: (router, ctx) => {
      main = new HistoryRecorder(ctx, ctx.logger);
      metersHistory = new MetersHistory(ctx, ctx.logger, main);
      registerHistoryRoutes(router, ctx, main, new RecentPower(ctx), (id) => metersHistory!.recorderOf(id));
      t.after(async () => {
        await metersHistory!.stop();
        await main!.stop();
      });
    },
  });
  t.after(() => h.close());
  setClock(h, NOW);
  const history = join(h.stateDir, 'history');
  // pv's 1m ring is damaged (not a ring file of its tier); ev's ring files are whole.
  mkdirSync(join(history, 'meters', 'pv'), { recursive: true });
  writeFileSync(join(history, 'meters', 'pv', '1m.ring'), 'not a ring file');
  const pv = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', now: h.clock.now });
  const ev = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485', now: h.clock.now });
  t.after(() => {
    pv.close();
    ev.close();
  });
  await main!.start();
  await metersHistory!.start();
  h.ctx.meters.add({ id: 'pv', name: 'PV', role: 'pv', kind: 'polled', store: pv, source: () => 'x' });
  h.ctx.meters.add({ id: 'ev', name: 'EV', role: 'ev', kind: 'polled', store: ev, source: () => 'x' });
  await waitFor('both recorders to follow their stores', () =>
    [pv, ev].every((store) => store.listenerCount('reading') > 0),
  );
  const corrupt = (dir: string) => readdirSync(dir).filter((name) => name.includes('.corrupt-'));
  assert.equal(corrupt(join(history, 'meters', 'pv')).length, 1, 'the damaged file is kept aside');
  assert.ok(statSync(join(history, 'meters', 'pv', '1m.ring')).size > 100, 'pv got a new ring file');
  assert.deepEqual(corrupt(join(history, 'meters', 'ev')), []);
  assert.deepEqual(corrupt(history), [], 'the primary rebuilt nothing');
  assert.ok(h.logLines.some((line) => /meters\/pv\/1m\.ring was not a ring file of this tier/.test(line)));
  // Every meter records on.
  h.ctx.store.ingest(meterReading(NOW - 10_000, { pIn: 1.5, pOut: 0, eIn: 100, eOut: 5 }));
  pv.ingest(meterReading(NOW - 10_000, { pIn: 0, pOut: 4, eIn: 1, eOut: 2000 }));
  ev.ingest(meterReading(NOW - 10_000, { pIn: 7, pOut: 0, eIn: 50, eOut: 0 }));
  const range = `from=${Math.floor(NOW / 1000) - 3600}&to=${Math.floor(NOW / 1000)}&resolution=1m`;
  const last = async (meter: string) =>
    (await send(h.baseUrl, 'GET', `/api/v1/history?meter=${meter}&${range}`)).json().points.at(-1);
  assert.equal((await last('pv')).p_out.max, 4);
  assert.equal((await last('ev')).p_in.max, 7);
  assert.equal((await last('main')).p_in.max, 1.5);
});
