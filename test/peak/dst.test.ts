// The DST nights through the engine for every model: readings every 5 s from local 00:00 to 05:00
// on the 23-hour and the 25-hour day. Quarter hours stay 900 s, hourly windows follow the local
// hours (02:00 twice in autumn, never in spring), the custom 1800 s window too, and Sweden's hour
// filter counts by local hour.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PeakEngine } from '../../src/peak/engine.js';
import type { PeakSettings } from '../../src/peak/engine-types.js';
import { localIso } from '../../src/peak/window.js';
import { BELGIUM } from './simulate.js';

interface Closed {
  start: number;
  end: number;
  kw: number;
}

/** 2 kW from `from` to `to` (local times of the zone), a reading every 5 s; the closed windows. */
function run(settings: PeakSettings, from: string, to: string): { closed: Closed[]; engine: PeakEngine } {
  const engine = new PeakEngine({ ...settings, limit_kw: 50 }, 60_000);
  const closed: Closed[] = [];
  let kwh = 100;
  for (let at = new Date(from).getTime(); at <= new Date(to).getTime(); at += 5000) {
    kwh += (2 * 5) / 3600;
    const step = engine.reading({ at, importKwh: kwh, importKw: 2 });
    if (step.closed) closed.push(step.closed);
  }
  return { closed, engine };
}

const MODELS: [string, string, Partial<PeakSettings>, number][] = [
  ['be_quarter', 'Europe/Brussels', { model: 'be_quarter' }, 900],
  ['no_top3_days', 'Europe/Oslo', { model: 'no_top3_days', floor_kw: 0 }, 3600],
  ['se_max_hour', 'Europe/Stockholm', { model: 'se_max_hour', floor_kw: 0 }, 3600],
  ['custom 1800 s', 'Europe/Brussels', { model: 'custom', window_s: 1800 }, 1800],
];

for (const [name, zone, settings, seconds] of MODELS) {
  for (const [day, hours] of [
    ['2026-03-29', 4],
    ['2026-10-25', 6],
  ] as const) {
    test(`${name} on ${day} (${hours} real hours from 00:00 to 05:00 local): every window ${seconds} s on local boundaries`, () => {
      process.env.TZ = zone;
      const { closed } = run({ ...BELGIUM, ...settings }, `${day}T00:00:00`, `${day}T05:00:00`);
      // The first window opens at the first reading (00:00:00 belongs to it), the last closes at 05:00.
      assert.equal(closed.length, (hours * 3600) / seconds);
      for (const window of closed) {
        assert.equal(window.end - window.start, seconds * 1000);
        const minutes = Number(localIso(window.start).slice(14, 16));
        assert.equal(minutes % (seconds / 60), 0, localIso(window.start));
      }
      const starts = closed.map((window) => localIso(window.start).slice(11));
      if (seconds === 3600 && day === '2026-10-25')
        assert.deepEqual(starts, [
          '00:00:00+02:00',
          '01:00:00+02:00',
          '02:00:00+02:00',
          '02:00:00+01:00',
          '03:00:00+01:00',
          '04:00:00+01:00',
        ]);
      if (seconds === 3600 && day === '2026-03-29')
        assert.deepEqual(starts, ['00:00:00+01:00', '01:00:00+01:00', '03:00:00+02:00', '04:00:00+02:00']);
    });
  }
}

test('se_max_hour with the filter 02–03 local: both 02:00 hours of the 25-hour day count, none on the 23-hour day', () => {
  process.env.TZ = 'Europe/Stockholm';
  const settings: PeakSettings = {
    ...BELGIUM,
    model: 'se_max_hour',
    floor_kw: 0,
    top_n: 3,
    filter: { hours_from: 2, hours_to: 3, weekdays_only: false, months: [] },
  };
  const autumn = run(settings, '2026-10-25T00:00:00', '2026-10-25T05:00:00').engine.monthRecords();
  assert.deepEqual(
    autumn.flatMap((month) => month.top.map((window) => localIso(window.at).slice(11))).sort(),
    ['02:00:00+01:00', '02:00:00+02:00'],
  );
  const spring = run(settings, '2026-03-29T00:00:00', '2026-03-29T05:00:00').engine.monthRecords();
  assert.deepEqual(
    spring.flatMap((month) => month.top),
    [],
  );
});
