import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QuarterCounters } from '../../src/history/quarter-counters.js';
import { DSO_BE_HEADER, quartersCsv } from '../../src/history/quarters-csv.js';
import { registerQuartersCsvRoute } from '../../src/http/routes/quarters-csv.js';
import { valuesOf } from '../../src/reading/reading.js';
import { startHttpContext } from '../helpers/http-context.js';
import { setClock } from './history-fixture.js';
import { QUARTER_MS, quarterHoursAgo, startMeter, stopMeter, type TestMeter } from '../push/push-fixture.js';

process.env.TZ = 'Europe/Brussels';

function quarter(t: number, kwh: Partial<QuarterCounters>): QuarterCounters {
  return {
    t,
    at: t * 1000 + 899_000,
    eIn: null,
    eOut: null,
    eInT1: null,
    eInT2: null,
    eOutT1: null,
    eOutT2: null,
    ...kwh,
  };
}

test('dso_be CSV: one row per quarter and register, decimal comma, local time; two quarters start 02:00:00 on the autumn DST day', () => {
  // 2026-10-25: summer time ends at 03:00 CEST (01:00 UTC), the clock goes back to 02:00 CET.
  const start = Date.UTC(2026, 9, 24, 23, 45) / 1000; // 01:45 CEST
  const quarters = Array.from({ length: 10 }, (_, i) =>
    quarter(start + i * 900, { eInT1: 100 + i * 0.25, eInT2: 500, eOutT1: 20, eOutT2: 7 + i * 0.0125 }),
  );
  const lines = quartersCsv(quarters, 'main', '541448800000000000').trimEnd().split('\r\n');
  assert.equal(lines[0], DSO_BE_HEADER);
  assert.equal(lines.length, 1 + 9 * 4);
  assert.deepEqual(lines.slice(1, 5), [
    '25-10-2026;02:00:00;25-10-2026;02:15:00;541448800000000000;main;Digitale Meter;Afname Dag;0,250;kWh;Gemeten',
    '25-10-2026;02:00:00;25-10-2026;02:15:00;541448800000000000;main;Digitale Meter;Afname Nacht;0,000;kWh;Gemeten',
    '25-10-2026;02:00:00;25-10-2026;02:15:00;541448800000000000;main;Digitale Meter;Injectie Dag;0,000;kWh;Gemeten',
    '25-10-2026;02:00:00;25-10-2026;02:15:00;541448800000000000;main;Digitale Meter;Injectie Nacht;0,013;kWh;Gemeten',
  ]);
  const starts = lines
    .slice(1)
    .filter((line) => line.includes(';Afname Dag;'))
    .map((line) => line.split(';')[1]);
  assert.deepEqual(starts, [
    '02:00:00',
    '02:15:00',
    '02:30:00',
    '02:45:00',
    '02:00:00',
    '02:15:00',
    '02:30:00',
    '02:45:00',
    '03:00:00',
  ]);
  // The quarter 02:45 CEST ends at 02:00 CET.
  assert.match(lines[13]!, /^25-10-2026;02:45:00;25-10-2026;02:00:00;/);
});

test('dso_be CSV: a meter without tariff registers gives Afname and Injectie; a gap has no row', () => {
  const t = Date.UTC(2026, 0, 10, 11, 0) / 1000;
  const csv = quartersCsv(
    [
      quarter(t, { eIn: 1, eOut: 2 }),
      quarter(t + 900, { eIn: 1.5, eOut: 2 }),
      quarter(t + 2700, { eIn: 2, eOut: 2 }),
    ],
    'pv',
    '',
  );
  assert.equal(
    csv,
    `${DSO_BE_HEADER}\r\n10-01-2026;12:15:00;10-01-2026;12:30:00;;pv;Digitale Meter;Afname;0,500;kWh;Gemeten\r\n10-01-2026;12:15:00;10-01-2026;12:30:00;;pv;Digitale Meter;Injectie;0,000;kWh;Gemeten\r\n`,
  );
});

test('GET /api/v1/history/quarters.csv: the tariff registers of the extended 15-minute tier as a download', async () => {
  const meters: { main?: TestMeter } = {};
  const h = await startHttpContext({
    routes: (router, ctx) =>
      registerQuartersCsvRoute(router, ctx, (id) => (id === 'main' ? meters.main?.recorder : undefined)),
  });
  const main = await startMeter(h, 'main', 'grid');
  meters.main = main;
  try {
    const first = quarterHoursAgo(3);
    for (let i = 0; i < 3; i++) {
      const end = first + (i + 1) * QUARTER_MS;
      setClock(h, end - 1000);
      main.ctx.store.ingest({
        receivedAt: end - 1000,
        protocol: 'DSMR',
        identity: { id: 'E1' },
        values: valuesOf({
          '1.8.1': [10 + i, 'kWh'],
          '1.8.2': [20, 'kWh'],
          '2.8.1': [1, 'kWh'],
          '2.8.2': [2 + i * 0.5, 'kWh'],
        }),
        mbus: [],
      });
      setClock(h, end + 50);
      main.recorder.tick(end + 50);
      await main.recorder.idle();
    }
    const url = `${h.baseUrl}/api/v1/history/quarters.csv?from=${first / 1000}&to=${(first + 3 * QUARTER_MS) / 1000}&ean=541448800000000001`;
    const response = await fetch(url);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-disposition')!, /attachment; filename="quarters-main-/);
    const rows = (await response.text())
      .trimEnd()
      .split('\r\n')
      .slice(1)
      .map((line) => line.split(';'));
    // Quarters 2 and 3 have a stored predecessor: 4 registers each.
    assert.deepEqual(
      rows.map((r) => [r[7], r[8]]),
      [
        ['Afname Dag', '1,000'],
        ['Afname Nacht', '0,000'],
        ['Injectie Dag', '0,000'],
        ['Injectie Nacht', '0,500'],
        ['Afname Dag', '1,000'],
        ['Afname Nacht', '0,000'],
        ['Injectie Dag', '0,000'],
        ['Injectie Nacht', '0,500'],
      ],
    );
    assert.equal(rows[0]![4], '541448800000000001');
    assert.equal((await fetch(`${h.baseUrl}/api/v1/history/quarters.csv?format=xlsx`)).status, 400);
    assert.equal((await fetch(`${h.baseUrl}/api/v1/history/quarters.csv?meter=nope`)).status, 404);
  } finally {
    await stopMeter(main);
    await h.close();
  }
});
