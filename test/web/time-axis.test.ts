import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeAxisLabels } from '../../src/web/ui/time-axis.js';

const HOUR = 3600;
const DAY = 24 * HOUR;
/** Local midnight of 2026-03-02 (a Monday), in Unix seconds. */
const MONDAY = new Date(2026, 2, 2).getTime() / 1000;

function nonEmpty(labels: string[]): string[] {
  return labels.filter(Boolean);
}

test('a week in 12-hourly ticks names each day once and the clock time under it, no label twice', () => {
  const splits = Array.from({ length: 15 }, (_, i) => MONDAY + i * 12 * HOUR);
  const labels = timeAxisLabels(splits, 12 * HOUR, 'weekday', 7 * DAY, 'en-GB');
  assert.equal(new Set(nonEmpty(labels)).size, nonEmpty(labels).length, labels.join(' | '));
  assert.equal(labels[0], 'Mon 2\n00:00');
  assert.equal(labels[1], '12:00');
  assert.equal(labels[2], 'Tue 3\n00:00');
});

test('a year in half-monthly ticks shows each month once; monthly ticks show the month', () => {
  const half = Array.from(
    { length: 24 },
    (_, i) => new Date(2026, Math.floor(i / 2), i % 2 ? 16 : 1).getTime() / 1000,
  );
  const labels = timeAxisLabels(half, 15 * DAY, 'month', 365 * DAY, 'de-DE');
  assert.equal(new Set(nonEmpty(labels)).size, nonEmpty(labels).length, labels.join(' | '));
  const monthly = half.filter((_, i) => i % 2 === 0);
  const month = new Intl.DateTimeFormat('de-DE', { month: 'short' });
  assert.deepEqual(
    timeAxisLabels(monthly, 30 * DAY, 'day', 365 * DAY, 'de-DE'),
    monthly.map((t) => month.format(t * 1000)),
  );
});

test('one day from midnight to midnight: the closing midnight carries its date, times in the locale', () => {
  const splits = [0, 6, 12, 18, 24].map((h) => MONDAY + h * HOUR);
  assert.deepEqual(timeAxisLabels(splits, 6 * HOUR, 'minutes', DAY, 'fr-BE'), [
    '00:00',
    '06:00',
    '12:00',
    '18:00',
    '3 mars\n00:00',
  ]);
  assert.deepEqual(timeAxisLabels(splits.slice(0, 2), 6 * HOUR, 'minutes', DAY, 'en-US'), [
    '12:00 AM',
    '06:00 AM',
  ]);
});
