// The requests and answers of Nord Pool, aWATTar, EnergyZero and Tibber, from their public formats:
// - Nord Pool Data Portal API, GET /api/DayAheadPrices: {deliveryDateCET, currency, multiAreaEntries:
//   [{deliveryStart, deliveryEnd, entryPerArea: {<area>: price per MWh}}]}; 204 while not published.
// - aWATTar API v1, GET /v1/marketdata: {object: "list", data: [{start_timestamp, end_timestamp,
//   marketprice, unit: "Eur/MWh"}]}.
// - EnergyZero API v1, GET /v1/energyprices: {Prices: [{price (EUR/kWh), readingDate}], intervalType: 4}.
// - Tibber GraphQL API (developer.tibber.com): data.viewer.homes[].currentSubscription.priceInfo
//   {today, tomorrow: [{total, energy, tax, startsAt, currency}]}, per kWh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnswer, sourceRequest, type SourceSettings } from '../../src/prices/sources.js';
import type { SpotAnswer } from '../../src/prices/spot.js';

process.env.TZ = 'Europe/Amsterdam';

const FROM = Date.parse('2026-03-28T23:00:00Z');
const TO = Date.parse('2026-03-29T22:00:00Z');
const source = (name: SourceSettings['name'], zone = ''): SourceSettings => ({
  name,
  zone,
  token: 'tok',
  currency: '',
  url: 'http://127.0.0.1:1',
});
const prices = (answer: SpotAnswer) => {
  assert.equal(answer.kind, 'prices', JSON.stringify(answer));
  return (answer as Extract<SpotAnswer, { kind: 'prices' }>).quarters;
};

test('requests: each source asked for the local day in its own terms', () => {
  const entsoe = new URL(sourceRequest(source('entsoe', '10YNL----------L'), FROM, TO, 'EUR').url);
  assert.equal(entsoe.searchParams.get('periodStart'), '202603282300');
  assert.equal(entsoe.searchParams.get('periodEnd'), '202603292200');
  assert.equal(entsoe.searchParams.get('documentType'), 'A44');
  const nordpool = new URL(sourceRequest(source('nordpool', 'NL'), FROM, TO, 'EUR').url);
  assert.equal(nordpool.pathname, '/api/DayAheadPrices');
  assert.equal(nordpool.searchParams.get('date'), '2026-03-29');
  assert.equal(nordpool.searchParams.get('currency'), 'EUR');
  const awattar = new URL(sourceRequest(source('awattar'), FROM, TO, 'EUR').url);
  assert.equal(awattar.searchParams.get('start'), String(FROM));
  const tibber = sourceRequest(source('tibber'), FROM, TO, 'EUR');
  assert.equal(tibber.method, 'POST');
  assert.equal(tibber.headers['authorization'], 'Bearer tok');
  assert.match(tibber.body!, /QUARTER_HOURLY/);
});

test('Nord Pool: quarters of the area; 204 is not published', async () => {
  const body = JSON.stringify({
    deliveryDateCET: '2026-03-29',
    currency: 'EUR',
    multiAreaEntries: [
      {
        deliveryStart: '2026-03-29T01:00:00Z',
        deliveryEnd: '2026-03-29T01:15:00Z',
        entryPerArea: { NL: -3.5, BE: 1 },
      },
      {
        deliveryStart: '2026-03-29T01:15:00Z',
        deliveryEnd: '2026-03-29T01:30:00Z',
        entryPerArea: { NL: 80.1, BE: 2 },
      },
    ],
  });
  const quarters = prices(await parseAnswer(source('nordpool', 'NL'), 200, body, 'EUR'));
  assert.deepEqual(
    quarters.map((q) => q.spot),
    [-3.5, 80.1],
  );
  assert.equal(new Date(quarters[0]!.start).toISOString(), '2026-03-29T01:00:00.000Z');
  assert.equal((await parseAnswer(source('nordpool', 'NL'), 204, '', 'EUR')).kind, 'not_published');
});

test('aWATTar: hourly Eur/MWh split into quarters; another unit refused', async () => {
  const entry = (start: string, price: number, unit = 'Eur/MWh') => ({
    start_timestamp: Date.parse(start),
    end_timestamp: Date.parse(start) + 3_600_000,
    marketprice: price,
    unit,
  });
  const quarters = prices(
    await parseAnswer(
      source('awattar'),
      200,
      JSON.stringify({ object: 'list', data: [entry('2026-03-29T10:00:00Z', 12.3)] }),
      'EUR',
    ),
  );
  assert.deepEqual(
    quarters.map((q) => q.spot),
    [12.3, 12.3, 12.3, 12.3],
  );
  const refused = await parseAnswer(
    source('awattar'),
    200,
    JSON.stringify({ object: 'list', data: [entry('2026-03-29T10:00:00Z', 1, 'Eur/kWh')] }),
    'EUR',
  );
  assert.equal(refused.kind, 'refused');
});

test('EnergyZero: EUR/kWh per hour becomes EUR/MWh quarters', async () => {
  const body = JSON.stringify({
    Prices: [{ price: 0.08192, readingDate: '2026-03-29T18:00:00Z' }],
    intervalType: 4,
  });
  const quarters = prices(await parseAnswer(source('energyzero'), 200, body, 'EUR'));
  assert.equal(quarters.length, 4);
  assert.ok(Math.abs(quarters[0]!.spot - 81.92) < 1e-9);
});

test('Tibber: energy as spot, total kept for the billed price; errors refused', async () => {
  const slot = (startsAt: string, energy: number, total: number) => ({
    total,
    energy,
    tax: total - energy,
    startsAt,
    currency: 'SEK',
  });
  const body = JSON.stringify({
    data: {
      viewer: {
        homes: [
          {
            currentSubscription: {
              priceInfo: {
                today: [
                  slot('2026-03-29T10:00:00.000+02:00', 0.5, 1.2),
                  slot('2026-03-29T10:15:00.000+02:00', -0.1, 0.4),
                ],
                tomorrow: [],
              },
            },
          },
        ],
      },
    },
  });
  const answer = await parseAnswer(source('tibber'), 200, body, 'EUR');
  assert.equal(answer.kind === 'prices' && answer.currency, 'SEK');
  const quarters = prices(answer) as Array<{ spot: number; total?: number }>;
  assert.deepEqual(
    quarters.map((q) => [q.spot, q.total]),
    [
      [500, 1.2],
      [-100, 0.4],
    ],
  );
  assert.equal(
    (
      await parseAnswer(
        source('tibber'),
        200,
        JSON.stringify({ errors: [{ message: 'unauthorized' }] }),
        'EUR',
      )
    ).kind,
    'refused',
  );
});
