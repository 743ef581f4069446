import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReportSchedule } from '../../src/mqtt/report-schedule.js';

function published(times: number[], periodMs: number, spacingMs?: number): number[] {
  const schedule = new ReportSchedule();
  return times.filter((at) => schedule.take(at, periodMs, spacingMs));
}

test('schedule: first reading publishes, then the first reading at or after each due time', () => {
  const times = Array.from({ length: 13 }, (_, i) => 1000 * i);
  assert.deepEqual(published(times, 5000, 1000), [0, 5000, 10000]);
});

test('schedule: never faster than readings arrive (period shorter than the spacing)', () => {
  const times = [0, 10_000, 20_000, 30_000];
  assert.deepEqual(published(times, 1000, 10_000), times);
});

test('schedule: report_interval equal to a jittery reading spacing publishes every reading', () => {
  const times = [0, 998, 2003, 2999, 3998, 5001];
  assert.deepEqual(published(times, 1000, 1000), times);
});

test('schedule: due times advance by the period, so the average period does not drift', () => {
  const times = Array.from({ length: 301 }, (_, i) => i * 1000 + (i % 2 === 0 ? 7 : -7));
  const sent = published(times, 30_000, 1000);
  assert.equal(sent.length, 11);
  sent.forEach((at, n) => assert.ok(Math.abs(at - n * 30_000) <= 7, `publication ${n} at ${at}`));
});

test('schedule: after a gap longer than the period the grid restarts at the reading', () => {
  assert.deepEqual(published([0, 1000, 95_000, 96_000, 125_000], 30_000, 1000), [0, 95_000, 125_000]);
});

test('schedule: reset makes the next reading due at once', () => {
  const schedule = new ReportSchedule();
  assert.equal(schedule.take(0, 3_600_000, 1000), true);
  assert.equal(schedule.take(1000, 3_600_000, 1000), false);
  schedule.reset();
  assert.equal(schedule.take(2000, 1000, 1000), true);
  assert.equal(schedule.take(3000, 1000, 1000), true);
});

test('schedule: a wall clock stepped back restarts the schedule instead of silencing it', () => {
  const hour = 3_600_000;
  assert.deepEqual(
    published([10 * hour, 10 * hour + 1000, 9 * hour, 9 * hour + 1000, 9 * hour + 30_000], 30_000, 1000),
    [10 * hour, 9 * hour, 9 * hour + 30_000],
  );
});
