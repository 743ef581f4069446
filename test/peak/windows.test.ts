// Demand windows on the local clock of Brussels, DST days included; month peaks and the rolling
// average of the floored monthly peaks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { windowAt, localIso, monthOf } from '../../src/peak/window.js';
import { MonthPeaks } from '../../src/peak/months.js';
import { WindowTracker } from '../../src/peak/window-tracker.js';

process.env.TZ = 'Europe/Brussels';

function windowsOfDay(day: string, next: string, seconds: number) {
  const windows = [];
  for (let t = Date.parse(day); t < Date.parse(next);) {
    const window = windowAt(t, seconds);
    assert.equal(window.start, t);
    windows.push(window);
    t = window.end;
  }
  return windows;
}

for (const [day, next, hours] of [
  ['2026-03-29T00:00', '2026-03-30T00:00', 23],
  ['2026-10-25T00:00', '2026-10-26T00:00', 25],
  ['2026-11-25T00:00', '2026-11-26T00:00', 24],
] as const) {
  test(`${day.slice(0, 10)} has ${hours} local hours: 15-minute windows stay 900 s, hourly ones follow local hours`, () => {
    const quarters = windowsOfDay(day, next, 900);
    assert.equal(quarters.length, hours * 4);
    assert.ok(quarters.every((window) => window.end - window.start === 900_000));
    const hourly = windowsOfDay(day, next, 3600);
    assert.equal(hourly.length, hours);
    for (const window of hourly) assert.match(localIso(window.start), /T\d\d:00:00[+-]\d\d:00$/);
  });
}

test('hourly windows across the autumn change: 02:00+02:00, then 02:00+01:00, then 03:00+01:00', () => {
  const first = windowAt(Date.parse('2026-10-25T00:30:00Z'), 3600);
  assert.equal(localIso(first.start), '2026-10-25T02:00:00+02:00');
  const second = windowAt(first.end, 3600);
  assert.equal(localIso(second.start), '2026-10-25T02:00:00+01:00');
  assert.equal(localIso(second.end), '2026-10-25T03:00:00+01:00');
  // A zone off the UTC hour by 30 minutes: hourly windows still start on local hours.
  process.env.TZ = 'Asia/Kolkata';
  try {
    assert.equal(
      localIso(windowAt(Date.parse('2026-01-10T10:10:00Z'), 3600).start),
      '2026-01-10T15:00:00+05:30',
    );
  } finally {
    process.env.TZ = 'Europe/Brussels';
  }
});

test('a boundary no reading hits: the counter at 18:15 is interpolated between the readings around it', () => {
  const tracker = new WindowTracker(900);
  tracker.add(Date.parse('2026-11-25T18:14:50'), 100);
  const closed = tracker.add(Date.parse('2026-11-25T18:15:10'), 100.02);
  assert.equal(closed.length, 1);
  assert.equal(closed[0]!.start, Date.parse('2026-11-25T18:00:00'));
  // Only 18:14:50–18:15:00 of that window is known here: 0.01 kWh × 3600 / 900.
  assert.ok(Math.abs(closed[0]!.kw - 0.04) < 1e-9);
  assert.ok(Math.abs(tracker.energyKwh - 0.01) < 1e-9);
});

test('month peaks keep the top windows of 13 months; the rolling average floors each month at 2.5 kW', () => {
  const peaks = new MonthPeaks();
  const month = (m: number) => Date.parse(`2025-${String(m).padStart(2, '0')}-10T12:00`);
  for (let m = 1; m <= 12; m++) peaks.record({ at: month(m), kw: m === 3 ? 2 : m });
  assert.equal(peaks.record({ at: month(12) + 900_000, kw: 20 }), true);
  assert.equal(peaks.record({ at: month(12) + 1_800_000, kw: 1 }), false);
  assert.equal(monthOf(month(12)), '2025-12');
  assert.equal(peaks.peakOf(month(12))!.kw, 20);
  // 1 → 2.5, 2 → 2.5, 3 (2 kW) → 2.5, 4..11, 12 → 20.
  const expected = (2.5 * 3 + (4 + 5 + 6 + 7 + 8 + 9 + 10 + 11) + 20) / 12;
  assert.ok(Math.abs(peaks.rolling(month(12), 2.5).kw - expected) < 1e-9);
  // Fewer months: the mean of what exists.
  assert.equal(new MonthPeaks().rolling(month(1), 2.5).kw, 2.5);
  const two = new MonthPeaks();
  two.record({ at: month(1), kw: 4 });
  two.record({ at: month(2), kw: 6 });
  assert.equal(two.rolling(month(2), 2.5).kw, 5);
});
