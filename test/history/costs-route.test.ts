// Costs in GET /api/v1/history (JSON and CSV) for a known day of history built in the test, the
// settings API and the environment setting services.costs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryPoint } from '../../src/history/point.js';
import { HistoryRecorder } from '../../src/history/recorder.js';
import { RecentPower } from '../../src/history/recent-power.js';
import { RingFile } from '../../src/history/ring-file.js';
import { TIERS, type Resolution } from '../../src/history/tiers.js';
import { ReadingStore } from '../../src/reading/store.js';
import { registerHistoryRoutes } from '../../src/http/routes/history.js';
import { registerSettingsRoutes } from '../../src/http/routes/settings.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send } from '../http/http-client.js';
import { setClock } from './history-fixture.js';

process.env.TZ = 'Europe/Amsterdam';

const at = (text: string) => new Date(text).getTime() / 1000;
const DAY = at('2026-11-25T00:00');
const NEXT = at('2026-11-26T00:00');

/** 25 Nov 2026: three quarter hours (T1, T2, half and half) and the day they roll up to. */
const QUARTERS: HistoryPoint[] = [
  { t: at('2026-11-25T06:00'), n: 900, eIn: 1, eOut: 0, nT1: 900 },
  { t: at('2026-11-25T12:00'), n: 900, eIn: 0.5, eOut: 2, nT2: 900 },
  { t: at('2026-11-25T21:45'), n: 900, eIn: 0.25, eOut: 0, nT1: 450, nT2: 450 },
];
const DAY_POINT: HistoryPoint = { t: DAY, n: 2700, eIn: 1.75, eOut: 2, nT1: 1350, nT2: 1350 };

async function seed(
  stateDir: string,
  resolution: Resolution,
  points: HistoryPoint[],
  folder = 'history',
): Promise<void> {
  mkdirSync(join(stateDir, folder), { recursive: true });
  const { ring } = await RingFile.open(
    join(stateDir, folder, `${resolution}.ring`),
    TIERS[resolution],
    DAY * 1000,
  );
  for (const point of points) await ring.write(point);
  await ring.close();
}

const ENV = {
  METER_GATEWAY_SERVICES_COSTS_ENABLE: 'true',
  METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: 'tariff',
  METER_GATEWAY_SERVICES_COSTS_IMPORT_T1: '0.2',
  METER_GATEWAY_SERVICES_COSTS_IMPORT_T2: '0.3',
  METER_GATEWAY_SERVICES_COSTS_EXPORT_PRICE: '0.08',
  METER_GATEWAY_SERVICES_COSTS_STANDING_CHARGE: '30',
};

test('history costs of a known day equal the hand computation, in JSON, daily points and CSV', async () => {
  let recorder: HistoryRecorder | undefined;
  let recent: RecentPower | undefined;
  const h = await startHttpContext({
    env: ENV,
    routes: (router, ctx) => {
      recorder = new HistoryRecorder(ctx, ctx.logger);
      recent = new RecentPower(ctx);
      registerHistoryRoutes(router, ctx, recorder, recent);
      registerSettingsRoutes(router, ctx);
    },
  });
  try {
    setClock(h, Date.parse('2026-11-26T11:00:30Z'));
    await seed(h.stateDir, '15m', QUARTERS);
    await seed(h.stateDir, '1d', [DAY_POINT]);
    await recorder!.start();
    const day = `from=${DAY}&to=${NEXT - 1}`;
    const quarters = (await send(h.baseUrl, 'GET', `/api/v1/history?${day}&resolution=15m`)).json();
    // Import 1 × 0.2 + 0.5 × 0.3 + 0.25 × (0.2 + 0.3) / 2 = 0.4125; export 2 × 0.08; 30 / 30 days.
    assert.deepEqual(
      quarters.points.map((point: { cost: unknown }) => point.cost),
      [
        { import: 0.2, export: 0 },
        { import: 0.15, export: 0.16 },
        { import: 0.0625, export: 0 },
      ],
    );
    const expected = {
      currency: 'EUR',
      import: 0.4125,
      export: 0.16,
      standing: 1,
      capacity: null,
      total: 1.2525,
    };
    assert.deepEqual(quarters.costs, expected);
    // The daily point is priced from its quarter hours: the same money.
    const daily = (await send(h.baseUrl, 'GET', `/api/v1/history?${day}&resolution=1d`)).json();
    assert.deepEqual(daily.points[0].cost, { import: 0.4125, export: 0.16 });
    assert.deepEqual(daily.costs, expected);

    const csv = (await send(h.baseUrl, 'GET', `/api/v1/history?${day}&resolution=15m&format=csv`)).text;
    const lines = csv.split('\r\n');
    assert.equal(
      lines[0],
      'time,t,readings,p_in_min_kw,p_in_mean_kw,p_in_max_kw,p_out_min_kw,p_out_mean_kw,p_out_max_kw,e_in_kwh,e_out_kwh,import_cost_eur,export_credit_eur',
    );
    assert.equal(lines[2], `2026-11-25T12:00:00+01:00,${QUARTERS[1]!.t},900,,,,,,,0.5,2,0.15,0.16`);

    // The settings API mirrors the schema: a bad table is refused by its field name, a good one applies.
    const put = (body: unknown) =>
      send(h.baseUrl, 'PUT', '/api/v1/settings', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const bad = await put({
      services: { costs: { import: { mode: 'time_of_use', time_of_use: '07:10=0.3' } } },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /services\.costs\.import\.time_of_use/);
    const good = await put({
      services: {
        costs: { currency: 'CHF', import: { mode: 'time_of_use', time_of_use: '07:00=0.32 22:00=0.21' } },
      },
    });
    assert.equal(good.status, 200, good.text);
    assert.equal(good.json().services.costs.import.time_of_use, '07:00=0.32 22:00=0.21');
    // 06:00 at the day's last entry 0.21, 12:00 and 21:45 at 0.32: 0.21 + 0.16 + 0.08.
    const tou = (await send(h.baseUrl, 'GET', `/api/v1/history?${day}&resolution=1d`)).json();
    assert.deepEqual(tou.costs, { ...expected, currency: 'CHF', import: 0.45, total: 1.29 });
  } finally {
    await recent!.stop();
    await recorder!.stop();
    await h.close();
  }
});

test('readings count into their tariff: a quarter hour read 4 times in T1 and once in T2 costs that share', async () => {
  const { withRecorders, feed } = await import('./history-fixture.js');
  const { bucketCost } = await import('../../src/history/costs.js');
  const start = Date.parse('2026-11-25T09:00:00Z');
  await withRecorders(start, async (h, first) => {
    await first.recorder.start();
    // 4 kWh over the quarter hour: the first reading only sets the registers' baseline.
    const readings: Array<[number, number, number]> = [
      [0, 100, 1],
      [200, 101, 1],
      [400, 102, 1],
      [600, 103, 1],
      [800, 104, 2],
    ];
    for (const [seconds, eIn, tariff] of readings)
      feed(h, first.ctx, start + seconds * 1000, { pIn: 1, eIn, eOut: 0, tariff });
    const [point] = (await first.recorder.query('15m', start, start + 899_000))!;
    assert.deepEqual([point!.n, point!.nT1, point!.nT2, point!.eIn], [5, 4, 1, 4]);
    const prices = { mode: 'tariff' as const, price: 0, t1: 0.2, t2: 0.3, time_of_use: '' };
    const settings = { enable: true, currency: 'EUR', import: prices, export: prices, standing_charge: 0 };
    // 4 kWh × (4/5 × 0.2 + 1/5 × 0.3) = 0.88
    assert.equal(Math.round(bucketCost(settings, point!, point!.t + 900).import! * 1e9) / 1e9, 0.88);
  });
});

test('fixed charges are billed to date: from the first recorded day to now, not for the whole period shown', async () => {
  let recorder: HistoryRecorder | undefined;
  let recent: RecentPower | undefined;
  const h = await startHttpContext({
    env: ENV,
    routes: (router, ctx) => {
      recorder = new HistoryRecorder(ctx, ctx.logger);
      recent = new RecentPower(ctx);
      registerHistoryRoutes(router, ctx, recorder, recent);
    },
  });
  try {
    // Noon on 26 Nov (Amsterdam); the history starts on 25 Nov.
    setClock(h, Date.parse('2026-11-26T11:00:00Z'));
    await seed(h.stateDir, '15m', QUARTERS);
    await seed(h.stateDir, '1d', [DAY_POINT]);
    await recorder!.start();
    const costsOf = async (from: string, to: string) =>
      (await send(h.baseUrl, 'GET', `/api/v1/history?from=${at(from)}&to=${at(to) - 1}&resolution=1d`)).json()
        .costs;
    // 30 a month, November has 30 days: a day and a half recorded and elapsed cost 1.5.
    const toDate = {
      currency: 'EUR',
      import: 0.4125,
      export: 0.16,
      standing: 1.5,
      capacity: null,
      total: 1.7525,
    };
    assert.deepEqual(await costsOf('2026-11-01T00:00', '2026-12-01T00:00'), toDate, 'the month so far');
    assert.deepEqual(await costsOf('2026-01-01T00:00', '2027-01-01T00:00'), toDate, 'the year so far');
    // A finished day of the history is billed whole; a period before the history nothing.
    assert.equal((await costsOf('2026-11-25T00:00', '2026-11-26T00:00')).standing, 1);
    assert.deepEqual(await costsOf('2026-10-01T00:00', '2026-11-01T00:00'), {
      currency: 'EUR',
      import: 0,
      export: 0,
      standing: 0,
      capacity: null,
      total: 0,
    });
  } finally {
    await recent!.stop();
    await recorder!.stop();
    await h.close();
  }
});

test("a further meter's daily costs are priced from its own quarter hours, not the primary's", async () => {
  let recorder: HistoryRecorder | undefined;
  let pv: HistoryRecorder | undefined;
  let recent: RecentPower | undefined;
  const h = await startHttpContext({
    env: ENV,
    routes: (router, ctx) => {
      recorder = new HistoryRecorder(ctx, ctx.logger);
      const store = new ReadingStore({ staleAfterMs: 10_000, meterInterface: 'TCP', clock: ctx.clock });
      pv = new HistoryRecorder(ctx, ctx.logger, { id: 'pv', store });
      recent = new RecentPower(ctx);
      registerHistoryRoutes(router, ctx, recorder, recent, (id) =>
        id === 'main' ? recorder : id === 'pv' ? pv : undefined,
      );
    },
  });
  try {
    setClock(h, Date.parse('2026-11-26T11:00:30Z'));
    await seed(h.stateDir, '15m', QUARTERS);
    await seed(h.stateDir, '1d', [DAY_POINT]);
    // The further meter exported 3 kWh at 12:00 and imported nothing: 3 × 0.08 of credit.
    const pvQuarter: HistoryPoint = { t: at('2026-11-25T12:00'), n: 900, eIn: 0, eOut: 3, nT2: 900 };
    const pvDay: HistoryPoint = { t: DAY, n: 900, eIn: 0, eOut: 3, nT2: 900 };
    await seed(h.stateDir, '15m', [pvQuarter], join('history', 'meters', 'pv'));
    await seed(h.stateDir, '1d', [pvDay], join('history', 'meters', 'pv'));
    await recorder!.start();
    await pv!.start();
    const day = `from=${DAY}&to=${NEXT - 1}`;
    const daily = (await send(h.baseUrl, 'GET', `/api/v1/history?${day}&resolution=1d&meter=pv`)).json();
    assert.equal(daily.meter, 'pv');
    assert.deepEqual(daily.points[0].cost, { import: 0, export: 0.24 });
  } finally {
    await recent!.stop();
    await pv!.stop();
    await recorder!.stop();
    await h.close();
  }
});
