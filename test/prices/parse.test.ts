// The price sources' parsers against the numbers of the ENTSO-E and Energy-Charts formats: slot
// times, DST days, curve types, two classifications, acknowledgements and refused answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEntsoe } from '../../src/prices/entsoe.js';
import { parseEnergyCharts } from '../../src/prices/energy-charts.js';
import { localDate } from '../../src/prices/local-day.js';
import type { SpotAnswer, SpotQuarter } from '../../src/prices/spot.js';
import { a44, acknowledgement, BE_SAMPLE, energyCharts, fullPeriod } from './fixtures.js';

process.env.TZ = 'Europe/Brussels';

const iso = (ms: number) => new Date(ms).toISOString();
const local = (ms: number) =>
  new Date(ms).toLocaleString('sv-SE', {
    timeZone: 'Europe/Brussels',
    timeZoneName: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });

function quarters(answer: SpotAnswer): SpotQuarter[] {
  assert.equal(answer.kind, 'prices', JSON.stringify(answer));
  return (answer as Extract<SpotAnswer, { kind: 'prices' }>).quarters;
}

test('A44 sample: 8 quarters from positions 1 and 5 (A03), sign kept, local 12:00 to 14:00 CEST', async () => {
  const slots = quarters(await parseEntsoe(BE_SAMPLE));
  assert.equal(slots.length, 8);
  assert.deepEqual(
    slots.map((s) => [iso(s.start).slice(11, 16), s.spot / 1000]),
    [
      ['10:00', 0.00525],
      ['10:15', 0.00525],
      ['10:30', 0.00525],
      ['10:45', 0.00525],
      ['11:00', -0.00001],
      ['11:15', -0.00001],
      ['11:30', -0.00001],
      ['11:45', -0.00001],
    ],
  );
  assert.match(local(slots[0]!.start), /2024-10-06 12:00:00 CEST/);
  assert.match(local(slots[7]!.start + 900_000), /2024-10-06 14:00:00 CEST/);
});

test('spring DST (BE, 2026-03-29): 92 quarters, position 9 = 01:00Z = 03:00 CEST, no local 02:xx', async () => {
  const slots = quarters(
    await parseEntsoe(
      a44([{ curve: 'A01', periods: [fullPeriod('2026-03-28T23:00Z', '2026-03-29T22:00Z')] }]),
    ),
  );
  assert.equal(slots.length, 92);
  assert.equal(iso(slots[8]!.start), '2026-03-29T01:00:00.000Z');
  assert.equal(slots[8]!.spot, 9);
  assert.match(local(slots[8]!.start), /03:00:00 CEST/);
  assert.equal(slots.filter((s) => new Date(s.start).getHours() === 2).length, 0);
  assert.ok(slots.every((s) => localDate(s.start) === '2026-03-29'));
});

test('autumn DST (2025-10-26): 100 quarters, positions 9 and 13 both local 02:00, hour 02 has 8 quarters', async () => {
  const slots = quarters(
    await parseEntsoe(
      a44([{ curve: 'A01', periods: [fullPeriod('2025-10-25T22:00Z', '2025-10-26T23:00Z')] }]),
    ),
  );
  assert.equal(slots.length, 100);
  assert.match(local(slots[8]!.start), /02:00:00 CEST/);
  assert.match(local(slots[12]!.start), /02:00:00 CET/);
  assert.equal(slots.filter((s) => new Date(s.start).getHours() === 2).length, 8);
  assert.match(local(slots[99]!.start), /2025-10-26 23:45:00 CET/);
  assert.ok(slots.every((s) => localDate(s.start) === '2025-10-26'));
});

test('PT15M and PT60M periods in one document: an hourly price becomes four equal quarters', async () => {
  const slots = quarters(
    await parseEntsoe(
      a44([
        {
          curve: 'A01',
          periods: [
            { start: '2025-09-30T22:00Z', end: '2025-09-30T23:00Z', resolution: 'PT60M', points: [[1, 40]] },
            {
              start: '2025-09-30T23:00Z',
              end: '2025-09-30T23:30Z',
              resolution: 'PT15M',
              points: [
                [1, 41],
                [2, 42],
              ],
            },
          ],
        },
      ]),
    ),
  );
  assert.deepEqual(
    slots.map((s) => s.spot),
    [40, 40, 40, 40, 41, 42],
  );
  assert.equal(iso(slots[4]!.start), '2025-09-30T23:00:00.000Z');
});

test('A03 repeats the previous price up to the period end; A01 leaves a gap a gap', async () => {
  const period = {
    start: '2026-01-10T10:00Z',
    end: '2026-01-10T11:00Z',
    resolution: 'PT15M',
    points: [[2, 7]] as const,
  };
  const a03 = quarters(
    await parseEntsoe(a44([{ curve: 'A03', periods: [{ ...period, points: [[2, 7]] }] }])),
  );
  assert.deepEqual(
    a03.map((s) => [iso(s.start).slice(11, 16), s.spot]),
    [
      ['10:15', 7],
      ['10:30', 7],
      ['10:45', 7],
    ],
  );
  const a01 = quarters(
    await parseEntsoe(a44([{ curve: 'A01', periods: [{ ...period, points: [[2, 7]] }] }])),
  );
  assert.deepEqual(
    a01.map((s) => [iso(s.start).slice(11, 16), s.spot]),
    [['10:15', 7]],
  );
});

test('two TimeSeries for one interval (DE-LU, AT): classification position 1 wins, whatever their order', async () => {
  const period = (price: number) => fullPeriod('2025-10-01T10:00Z', '2025-10-01T11:00Z', () => price);
  const slots = quarters(
    await parseEntsoe(
      a44([
        { curve: 'A01', classification: 2, periods: [period(99)] },
        { curve: 'A01', classification: 1, periods: [period(11)] },
      ]),
    ),
  );
  assert.deepEqual(
    slots.map((s) => s.spot),
    [11, 11, 11, 11],
  );
});

test('acknowledgement 999 is "not published yet"; another reason is refused', async () => {
  assert.equal((await parseEntsoe(acknowledgement())).kind, 'not_published');
  const other = await parseEntsoe(acknowledgement('401', 'Unauthorized'));
  assert.equal(other.kind, 'refused');
});

test('refused: another unit, a wrong namespace, NaN, a position outside its period, deep nesting, not XML', async () => {
  const sample = (extra: Partial<Parameters<typeof a44>[0][number]>) =>
    a44([{ curve: 'A01', periods: [fullPeriod('2026-01-10T10:00Z', '2026-01-10T11:00Z')], ...extra }]);
  const reasons: string[] = [];
  for (const xml of [
    sample({ unit: 'KWH' }),
    a44([{ periods: [fullPeriod('2026-01-10T10:00Z', '2026-01-10T11:00Z')] }], 'urn:example:other'),
    sample({
      periods: [
        { start: '2026-01-10T10:00Z', end: '2026-01-10T11:00Z', resolution: 'PT15M', points: [[1, 'NaN']] },
      ],
    }),
    sample({
      periods: [
        { start: '2026-01-10T10:00Z', end: '2026-01-10T11:00Z', resolution: 'PT15M', points: [[5, 1]] },
      ],
    }),
    `${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`,
    'not xml at all <<<',
  ]) {
    const answer = await parseEntsoe(xml);
    assert.notEqual(answer.kind, 'prices', xml.slice(0, 200));
    if (answer.kind === 'refused') reasons.push(answer.reason);
  }
  assert.match(reasons[0]!, /unit "KWH"/);
  assert.match(reasons[1]!, /namespace/);
});

test('a document cut anywhere, also right after a whole Point or Period, is refused, never a shorter day', async () => {
  const doc = a44([{ curve: 'A01', periods: [fullPeriod('2026-11-28T23:00Z', '2026-11-29T23:00Z')] }]);
  assert.equal((await parseEntsoe(doc)).kind, 'prices');
  const afterPoint = doc.indexOf('</Point>', doc.length / 2) + '</Point>'.length;
  const cuts = [afterPoint, afterPoint + 1, doc.indexOf('</Period>') + 9, doc.indexOf('</TimeSeries>') + 13];
  for (const fraction of [0.3, 0.5, 0.9, 0.99]) cuts.push(Math.floor(doc.length * fraction));
  for (const cut of cuts) {
    const answer = await parseEntsoe(doc.slice(0, cut));
    assert.equal(answer.kind, 'refused', `cut at ${cut} of ${doc.length}`);
    assert.match(answer.kind === 'refused' ? answer.reason : '', /not (well-formed )?XML|not a number/);
  }
});

test('refused: more points than a few days hold', async () => {
  const many = Array.from({ length: 5000 }, (_, i) => [i + 1, 1] as const);
  const answer = await parseEntsoe(
    a44([
      {
        curve: 'A01',
        periods: [
          { start: '2026-01-01T00:00Z', end: '2026-03-01T00:00Z', resolution: 'PT15M', points: many },
        ],
      },
    ]),
  );
  assert.equal(answer.kind, 'refused');
});

test('Energy-Charts: the same 8 quarters as the A44 sample give identical slots', async () => {
  const start = Date.parse('2024-10-06T10:00Z') / 1000;
  const times = Array.from({ length: 8 }, (_, i) => start + i * 900);
  const prices = [5.25, 5.25, 5.25, 5.25, -0.01, -0.01, -0.01, -0.01];
  assert.deepEqual(
    quarters(parseEnergyCharts(energyCharts(times, prices))),
    quarters(await parseEntsoe(BE_SAMPLE)),
  );
});

test('Energy-Charts: unequal arrays or another unit are refused with a clear reason; hourly slots split', () => {
  const unequal = parseEnergyCharts(energyCharts([1728208800, 1728209700], [1]));
  assert.deepEqual(unequal, { kind: 'refused', reason: 'Energy-Charts answer with 2 times and 1 prices' });
  const unit = parseEnergyCharts(energyCharts([1728208800], [1], 'EUR / kWh'));
  assert.equal(unit.kind, 'refused');
  assert.match((unit as { reason: string }).reason, /unit "EUR \/ kWh"/);
  const hourly = quarters(parseEnergyCharts(energyCharts([1728208800, 1728212400], [3, 4])));
  assert.deepEqual(
    hourly.map((s) => s.spot),
    [3, 3, 3, 3, 4, 4, 4, 4],
  );
  const gap = quarters(parseEnergyCharts(energyCharts([1728208800, 1728209700, 1728210600], [3, null, 5])));
  assert.deepEqual(
    gap.map((s) => s.spot),
    [3, 5],
  );
});
