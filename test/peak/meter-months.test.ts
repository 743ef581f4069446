// The Belgian meter's own registers feed the guard (docs/architecture.md#peak-guard): 1-0:1.6.0 is
// the current month's value, each 0-0:98.1.0 entry the value of the month its period stamp names
// (the 1st of the following month), also when the peak itself lies in a month's last quarter and
// is stamped 00:00 on the 1st, in winter (W) and summer (S) time. The rolling average,
// marginal_eur, follow_month_peak, /api/v1/peak/history and the month source follow them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { crc16Arc } from '../../src/checksum/crc16.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { componentLogger } from '../../src/log.js';
import { decodeCapture } from '../../src/meter/protocols.js';
import { runOutput } from '../../src/output-runner.js';
import { MeterDemand } from '../../src/peak/meter-demand.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send } from '../http/http-client.js';
import { responseProblems } from '../http/openapi-check.js';
import { EV } from './simulate.js';

process.env.TZ = 'Europe/Brussels';

/** A Belgian telegram with 1.4.0, 1.6.0 and the given 98.1.0 value, with its CRC. */
function telegram(monthPeak: string, history: string): Reading {
  const body = [
    '/FLU5\\253770234_A',
    '',
    '0-0:96.1.4(50217)',
    '0-0:1.0.0(231215180000W)',
    '1-0:1.8.1(000456.789*kWh)',
    '1-0:1.8.2(000321.456*kWh)',
    '1-0:1.4.0(01.250*kW)',
    `1-0:1.6.0${monthPeak}`,
    `0-0:98.1.0${history}`,
    '1-0:1.7.0(00.612*kW)',
    '!',
  ].join('\r\n');
  const crc = crc16Arc(Buffer.from(body, 'latin1')).toString(16).toUpperCase().padStart(4, '0');
  const reading = decodeCapture(Buffer.from(`${body}${crc}\r\n`, 'latin1'), 'dsmr').find(
    (result) => result.ok,
  )?.reading;
  assert.ok(reading, 'a valid telegram');
  return reading;
}

/** 13 months, November 2022 to November 2023: [period stamp, peak stamp, kW]. */
const MONTHS: [string, string, string][] = [
  ['221201000000W', '221115183000W', '03.200'],
  ['230101000000W', '221214190000W', '04.500'],
  // January's peak in its last quarter: stamped 00:00 on 1 February (winter time).
  ['230201000000W', '230201000000W', '05.000'],
  ['230301000000W', '230214081500W', '04.000'],
  ['230401000000S', '230320194500W', '03.500'],
  ['230501000000S', '230412120000S', '02.100'],
  ['230601000000S', '230519173000S', '02.800'],
  ['230701000000S', '230630211500S', '03.100'],
  // July's peak in its last quarter: stamped 00:00 on 1 August (summer time).
  ['230801000000S', '230801000000S', '03.900'],
  ['230901000000S', '230810140000S', '02.600'],
  ['231001000000S', '230925200000S', '03.300'],
  ['231101000000W', '231031234500W', '02.400'],
  ['231201000000W', '231118180000W', '04.200'],
];
const BUFFER = `(13)(1-0:1.6.0)(1-0:1.6.0)${MONTHS.map(([period, at, kw]) => `(${period})(${at})(${kw}*kW)`).join('')}`;
const DECEMBER_PEAK = '(231205183000W)(04.110*kW)';

test('13 entries of 0-0:98.1.0: each month is the one its period stamp names, in winter and summer time', () => {
  const demand = new MeterDemand();
  demand.update(telegram(DECEMBER_PEAK, BUFFER));
  const months = demand.months();
  assert.deepEqual(
    months.map((month) => month.month),
    [
      '2022-11',
      '2022-12',
      '2023-01',
      '2023-02',
      '2023-03',
      '2023-04',
      '2023-05',
      '2023-06',
      '2023-07',
      '2023-08',
      '2023-09',
      '2023-10',
      '2023-11',
      '2023-12',
    ],
  );
  // The peak stamped 00:00 on 1 February is January's, not February's.
  assert.deepEqual(demand.monthOf('2023-01'), {
    month: '2023-01',
    kw: 5,
    at: '2023-02-01T00:00:00+01:00',
  });
  assert.equal(demand.monthOf('2023-02')?.kw, 4);
  assert.deepEqual(demand.monthOf('2023-07'), {
    month: '2023-07',
    kw: 3.9,
    at: '2023-08-01T00:00:00+02:00',
  });
  assert.equal(demand.monthOf('2023-08')?.kw, 2.6);
  assert.equal(demand.monthOf('2023-12')?.kw, 4.11);
});

test('an empty 0-0:98.1.0 (0)() gives no months; 1-0:1.6.0 stamped 00:00 on the 1st is the month before', () => {
  const demand = new MeterDemand();
  demand.update(telegram('(231201000000W)(03.333*kW)', '(0)()'));
  assert.deepEqual(demand.months(), [{ month: '2023-11', kw: 3.333, at: '2023-12-01T00:00:00+01:00' }]);
});

test('a fresh install: 12 months from the meter, the rolling average, follow_month_peak and marginal_eur from 1.6.0', async () => {
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    env: {
      METER_GATEWAY_ACTIONS_DEFINITION: JSON.stringify({
        actions: [
          { id: 'ev_off', requests: [{ http: { url: 'http://127.0.0.1:9/off' } }] },
          { id: 'ev_on', requests: [{ http: { url: 'http://127.0.0.1:9/on' } }] },
        ],
      }),
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_LIMIT_KW: '3',
      METER_GATEWAY_SERVICES_PEAK_GUARD_MODE: 'follow_month_peak',
      METER_GATEWAY_SERVICES_PEAK_GUARD_STAGES: JSON.stringify([EV]),
    },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      registerPeakRoutes(router, ctx, guard);
    },
  });
  const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!)];
  for (const output of outputs) await output.start();
  const doc = (await send(h.baseUrl, 'GET', '/api/v1/openapi.json')).json();
  const get = async (path: string) => {
    const reply = await send(h.baseUrl, 'GET', path);
    assert.deepEqual(
      responseProblems(
        doc,
        'GET',
        path.split('?')[0]!,
        reply.status,
        String(reply.headers['content-type']),
        reply.text,
      ),
      [],
    );
    return reply.json();
  };
  const demand = telegram(DECEMBER_PEAK, BUFFER).demand;
  let kwh = 1000;
  const feedUntil = (until: string, kw: number) => {
    while (h.clock.now() < Date.parse(until)) {
      h.clock.advance(1000);
      kwh += kw / 3600;
      h.ctx.store.ingest({
        receivedAt: h.clock.now(),
        protocol: 'DSMR',
        identity: {},
        values: valuesOf({
          '1.8.0': [kwh, 'kWh'],
          '1.7.0': [kw, 'kW'],
          '1.4.0': [kw, 'kW'],
          '1.6.0': [4.11, 'kW'],
        }),
        demand: demand!,
        mbus: [],
      });
    }
  };
  try {
    h.clock.advance(Date.parse('2023-12-15T17:59:50') - h.clock.now());
    // 3.5 kW, above L = 3.0 but below the 4.11 kW the meter already billed for December.
    feedUntil('2023-12-15T18:16:00', 3.5);
    const peak = await get('/api/v1/peak');
    assert.equal(peak.effective_limit_kw, 4.11);
    assert.deepEqual(peak.shed, []);
    assert.deepEqual(peak.month_peak, { kw: 4.11, at: '2023-12-05T18:30:00+01:00', source: 'meter' });
    assert.equal(peak.marginal_eur, 0);
    // January 2023 to December 2023, floored at 2.5 kW: 41.51 / 12.
    assert.equal(peak.rolling.months.length, 12);
    assert.equal(peak.rolling.kw, 3.459);
    assert.ok(peak.rolling.months.every((month: { source: string }) => month.source === 'meter'));
    const history = await get('/api/v1/peak/history?months=12');
    assert.equal(history.months.length, 12);
    const byMonth = new Map(history.months.map((month: { month: string }) => [month.month, month]));
    assert.deepEqual(byMonth.get('2023-01'), {
      month: '2023-01',
      meter_kw: 5,
      meter_at: '2023-02-01T00:00:00+01:00',
      peak_kw: 5,
      peak_at: '2023-02-01T00:00:00+01:00',
      source: 'meter',
      computed_kw: null,
      computed_at: null,
      top: [],
    });
    assert.equal((byMonth.get('2023-07') as { peak_kw: number }).peak_kw, 3.9);
    // December: the meter's 4.11 kW is the month's value, the closed 18:00 window's 3.5 beside it.
    assert.deepEqual(byMonth.get('2023-12'), {
      month: '2023-12',
      meter_kw: 4.11,
      meter_at: '2023-12-05T18:30:00+01:00',
      peak_kw: 4.11,
      peak_at: '2023-12-05T18:30:00+01:00',
      source: 'meter',
      computed_kw: 3.5,
      computed_at: '2023-12-15T18:15:00+01:00',
      top: [{ start: '2023-12-15T18:00:00+01:00', kw: 3.5 }],
    });
  } finally {
    for (const output of outputs) await output.stop();
    await h.close();
  }
});
