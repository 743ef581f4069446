// The pure helpers of the energy explorer, the headline and the page's formats (src/web/ui, DOM-free
// modules), run in node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PointView } from '../../src/contracts/history.js';
import { decimalsOfStep, formatNumber, formatSigned, formatTime } from '../../src/web/ui/format.js';
import { netPower } from '../../src/web/ui/net-power.js';
import {
  carryDay,
  dateInputValue,
  dateOfInput,
  energyBars,
  historyQuery,
  periodOf,
  periodTotals,
  slotStarts,
  stepPeriod,
} from '../../src/web/ui/periods.js';

process.env.TZ = 'Europe/Amsterdam';

const local = (text: string) => new Date(text).getTime();
const seconds = (text: string) => local(text) / 1000;

function point(t: number, e_in: number | null, e_out: number | null, n = 1): PointView {
  return { t, n, p_in: null, p_out: null, e_in, e_out };
}

test('formatNumber never shows -0; formatSigned marks import with +', () => {
  assert.equal(formatNumber(-0.0004, 3), '0.000');
  assert.equal(formatNumber(-0, 1), '0.0');
  assert.equal(formatNumber(-0.4, 0), '0');
  assert.equal(formatNumber(-0.0006, 3), '-0.001');
  assert.equal(formatSigned(1.5, 3), '+1.500');
  assert.equal(formatSigned(-1.5, 3), '-1.500');
  assert.equal(formatSigned(-0.0001, 3), '0.000');
  assert.equal(formatSigned(0.0001, 3), '0.000');
  assert.equal(formatSigned(undefined, 3), '—');
});

test('decimalsOfStep: chart ticks show their step exactly', () => {
  assert.deepEqual(
    [0.0005, 0.25, 0.1, 0.2, 1, 20, 1e-9, 0, Number.NaN].map(decimalsOfStep),
    [4, 2, 1, 1, 0, 0, 6, 0, 0],
  );
});

test('formatTime follows the locale: 24 h where it says so, 12 h where it does not', () => {
  const at = local('2026-11-26T13:05:09');
  assert.equal(formatTime(at, 'seconds', 'de-DE'), '13:05:09');
  assert.equal(formatTime(at, 'minutes', 'en-GB'), '13:05');
  assert.match(formatTime(at, 'minutes', 'en-US'), /^01:05\sPM$/);
  assert.equal(formatTime(at, 'month', 'en-GB'), 'Nov');
  assert.equal(formatTime(at, 'stamp', 'de-DE'), '26. Nov., 13:05');
});

test('netPower is import minus export; a missing side counts as nothing, both missing is no value', () => {
  assert.equal(netPower({ P_In: 1.25, P_Out: 0 }), 1.25);
  assert.equal(netPower({ P_In: 0, P_Out: 2 }), -2);
  assert.equal(netPower({ P_Out: 0.5 }), -0.5);
  assert.equal(netPower({}), undefined);
});

test('periods are local calendar periods; a week starts on Monday; steps keep the view', () => {
  const anchor = new Date(local('2026-11-26T13:00:00')); // a Thursday
  const day = periodOf('day', anchor);
  assert.deepEqual(
    [day.from, day.to, day.resolution],
    [local('2026-11-26T00:00'), local('2026-11-27T00:00'), '15m'],
  );
  const week = periodOf('week', anchor);
  assert.deepEqual([week.from, week.to], [local('2026-11-23T00:00'), local('2026-11-30T00:00')]);
  assert.deepEqual([periodOf('week', new Date(local('2026-11-29T23:00'))).from], [week.from], 'Sunday');
  const month = periodOf('month', anchor);
  assert.deepEqual(
    [month.from, month.to, month.resolution],
    [local('2026-11-01T00:00'), local('2026-12-01T00:00'), '1d'],
  );
  const year = periodOf('year', anchor);
  assert.deepEqual([year.from, year.to], [local('2026-01-01T00:00'), local('2027-01-01T00:00')]);
  assert.equal(stepPeriod(day, -1).from, local('2026-11-25T00:00'));
  assert.equal(stepPeriod(week, 1).from, local('2026-11-30T00:00'));
  assert.equal(stepPeriod(month, -11).from, local('2025-12-01T00:00'));
  assert.equal(stepPeriod(year, -1).to, local('2026-01-01T00:00'));
  assert.equal(
    stepPeriod(periodOf('month', new Date(local('2026-01-31T12:00'))), 1).from,
    local('2026-02-01T00:00'),
  );
});

test('a day has an hourly bar per elapsed hour: 23 and 25 around the DST changes', () => {
  assert.equal(slotStarts(periodOf('day', new Date(local('2026-11-26T12:00')))).length, 24);
  assert.equal(slotStarts(periodOf('day', new Date(local('2026-03-29T12:00')))).length, 23);
  assert.equal(slotStarts(periodOf('day', new Date(local('2026-10-25T12:00')))).length, 25);
  assert.equal(slotStarts(periodOf('month', new Date(local('2026-02-10T12:00')))).length, 28);
  const months = slotStarts(periodOf('year', new Date(local('2026-06-01T12:00'))));
  assert.deepEqual([months.length, months[11]], [12, local('2026-12-01T00:00')]);
});

test('energyBars sums the points of each slot; totals take only the points inside the period', () => {
  const day = periodOf('day', new Date(local('2026-11-26T12:00')));
  const points = [
    point(seconds('2026-11-25T23:45'), 9, 9), // the API's range overlaps the day before
    point(seconds('2026-11-26T00:00'), 0.25, 0),
    point(seconds('2026-11-26T00:15'), 0.25, null),
    point(seconds('2026-11-26T00:45'), null, null),
    point(seconds('2026-11-26T13:30'), 0.5, 1.5),
    point(seconds('2026-11-27T00:00'), 7, 7), // and the next day's first bucket
  ];
  const bars = energyBars(day, points);
  assert.equal(bars.length, 24);
  assert.deepEqual(bars[0], { t: local('2026-11-26T00:00'), e_in: 0.5, e_out: 0, net: 0.5 });
  assert.deepEqual(bars[1], { t: local('2026-11-26T01:00'), e_in: null, e_out: null, net: null });
  assert.deepEqual(bars[13], { t: local('2026-11-26T13:00'), e_in: 0.5, e_out: 1.5, net: -1 });
  const totals = periodTotals(day, points);
  assert.deepEqual([totals.e_in, totals.e_out, totals.net, totals.readings], [1, 1.5, -0.5, 4]);
  assert.equal(totals.p_in, null);

  const year = periodOf('year', new Date(local('2026-06-01T12:00')));
  const daily = [
    point(seconds('2026-01-31T00:00'), 2, 0),
    point(seconds('2026-02-01T00:00'), 3, 1),
    point(seconds('2026-02-28T00:00'), 4, 0),
  ];
  const monthly = energyBars(year, daily);
  assert.deepEqual(
    monthly.slice(0, 3).map((bar) => [bar.e_in, bar.e_out]),
    [
      [2, 0],
      [7, 1],
      [null, null],
    ],
  );
});

test('periodTotals weighs the mean power by readings and keeps the extremes', () => {
  const day = periodOf('day', new Date(local('2026-11-26T12:00')));
  const stats = (min: number, mean: number, max: number) => ({ min, mean, max });
  const points: PointView[] = [
    { t: seconds('2026-11-26T01:00'), n: 3, p_in: stats(1, 2, 3), p_out: null, e_in: 0, e_out: 0 },
    {
      t: seconds('2026-11-26T02:00'),
      n: 1,
      p_in: stats(0.5, 6, 9),
      p_out: stats(0, 1, 2),
      e_in: 0,
      e_out: 0,
    },
  ];
  const totals = periodTotals(day, points);
  assert.deepEqual(totals.p_in, { min: 0.5, mean: 3, max: 9 });
  assert.deepEqual(totals.p_out, { min: 0, mean: 1, max: 2 });
});

test('the date picker value and the history query of a period', () => {
  const day = periodOf('day', new Date(local('2026-11-26T12:00')));
  assert.equal(dateInputValue(day.from), '2026-11-26');
  assert.equal(dateOfInput('2026-11-26')?.getTime(), local('2026-11-26T12:00'));
  assert.equal(dateOfInput('26.11.2026'), undefined);
  assert.equal(dateOfInput(''), undefined);
  const from = day.from / 1000;
  assert.equal(historyQuery(day), `/api/v1/history?from=${from}&to=${from + 86_399}&resolution=15m`);
  assert.equal(
    historyQuery(day, 'csv'),
    `/api/v1/history?from=${from}&to=${from + 86_399}&resolution=15m&format=csv`,
  );
});

test('carryDay keeps the day across view changes and steps, clamped to the month and to today', () => {
  const today = new Date(local('2026-11-26T15:00'));
  const on = (text: string) => new Date(local(text));
  const carried = (day: string, view: 'day' | 'week' | 'month' | 'year', steps: number) =>
    dateInputValue(carryDay(on(day), stepPeriod(periodOf(view, on(day)), steps), today).getTime());
  // Inside the shown period: unchanged (Month -> Day goes back to the 15th, not the 1st).
  assert.equal(
    dateInputValue(carryDay(on('2026-11-15T12:00'), periodOf('month', today), today).getTime()),
    '2026-11-15',
  );
  assert.equal(carried('2026-11-15T12:00', 'month', -1), '2026-10-15');
  assert.equal(carried('2026-03-31T12:00', 'month', -1), '2026-02-28', 'clamped to February');
  assert.equal(carried('2024-03-31T12:00', 'month', -1), '2024-02-29', 'leap year');
  // Year steps keep month and day; 29 Feb of a leap year becomes 28 Feb.
  assert.equal(carried('2025-11-15T12:00', 'year', -1), '2024-11-15');
  assert.equal(carried('2024-02-29T12:00', 'year', 1), '2025-02-28');
  // Never into the future: a year step onto this year stops at today.
  assert.equal(carried('2025-12-20T12:00', 'year', 1), '2026-11-26');
  // Week steps keep the weekday (a Wednesday), day steps move the day.
  assert.equal(carried('2026-11-18T12:00', 'week', -1), '2026-11-11');
  assert.equal(carried('2026-11-18T12:00', 'day', -1), '2026-11-17');
});
