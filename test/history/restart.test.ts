import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { pointView, type HistoryPoint } from '../../src/history/point.js';
import { RECORD_SIZE } from '../../src/history/record.js';
import { HEADER_SIZE } from '../../src/history/ring-file.js';
import { TIERS, type Resolution } from '../../src/history/tiers.js';
import { feed, setClock, withRecorders } from './history-fixture.js';

process.env.TZ = 'Europe/Amsterdam';

const MIN = 60_000;
/** 2026-11-26 23:40 local (22:40Z): the runs below cross a quarter-hour and local midnight. */
const T0 = Date.parse('2026-11-26T22:40:00Z');
const summary = (points: HistoryPoint[] | undefined) => (points ?? []).map((p) => [p.t - T0 / 1000, p.n]);

/** Overwrites a record with garbage: a write torn by a power cut. */
function tearRecord(stateDir: string, resolution: Resolution, t: number): void {
  const tier = TIERS[resolution];
  const fd = openSync(join(stateDir, 'history', `${resolution}.ring`), 'r+');
  const slot = tier.numberOf(t) % tier.capacity;
  writeSync(fd, Buffer.alloc(RECORD_SIZE, 0x5a), 0, RECORD_SIZE, HEADER_SIZE + slot * RECORD_SIZE);
  closeSync(fd);
}

test('a clean stop stores the open minute; a restart within the minute continues it', async () => {
  await withRecorders(T0, async (h, first, second) => {
    await first.recorder.start();
    for (let s = 0; s < 3; s++) feed(h, first.ctx, T0 + s * 1000, { pIn: 1, eIn: 10 + s / 100 });
    await first.close();
    await second.recorder.start();
    for (let s = 3; s < 5; s++) feed(h, second.ctx, T0 + s * 1000, { pIn: 1, eIn: 10 + s / 100 });
    assert.deepEqual(summary(await second.recorder.query('1m', T0, T0)), [[0, 5]]);
    setClock(h, T0 + MIN);
    second.recorder.tick();
    const minute = (await second.recorder.query('1m', T0, T0))!.map(pointView);
    // The base register is lost with the restart: 2 steps before, 1 after.
    assert.deepEqual([minute[0]!.n, minute[0]!.e_in], [5, 0.03]);
    assert.deepEqual(summary(await second.recorder.query('15m', T0, T0)), [[-600, 5]]);
  });
});

test('after a crash the open minute is lost, nothing else; torn or missing quarter-hour and day records are rebuilt', async () => {
  await withRecorders(T0, async (h, crashed, restarted) => {
    await crashed.recorder.start();
    // 23:40:00 .. 00:02:30 local, one reading every 30 s.
    for (let s = 0; s <= 45; s++) feed(h, crashed.ctx, T0 + s * 30_000, { pIn: 2, eIn: 100 + s });
    await crashed.recorder.idle();
    // Crash: the recorder is abandoned without stop; then the last day and the 23:45 quarter-hour
    // records turn out torn, as if the power failed while they were written.
    const dayBefore = TIERS['1d'].bucketOf(T0);
    tearRecord(h.stateDir, '1d', dayBefore);
    tearRecord(h.stateDir, '15m', T0 / 1000 + 300);
    setClock(h, T0 + 23 * MIN + 10_000);
    await restarted.recorder.start();
    assert.deepEqual(h.ctx.services.get('history')?.rebuilt, 2);
    assert.deepEqual(h.ctx.services.get('history')?.corrupt_ignored, 2);
    const end = T0 + 30 * MIN;
    const minutes = summary(await restarted.recorder.query('1m', T0, end));
    assert.equal(minutes.length, 22, 'minutes 23:40 .. 00:01 are stored; 00:02 was open');
    assert.ok(minutes.every(([, n]) => n === 2));
    assert.deepEqual(summary(await restarted.recorder.query('15m', T0, end)), [
      [-600, 10], // 23:30 (from 23:40)
      [300, 30], // 23:45, rebuilt from its minutes
      [1200, 4], // 00:00, open: 00:00 and 00:01
    ]);
    const days = (await restarted.recorder.query('1d', T0, end))!;
    assert.deepEqual(
      days.map((p) => [p.t, p.n]),
      [
        [dayBefore, 40], // rebuilt from its quarter-hours
        [TIERS['1d'].endOf(dayBefore), 4],
      ],
    );
    // The restarted recorder goes on from there.
    feed(h, restarted.ctx, T0 + 23 * MIN + 20_000, { pIn: 2, eIn: 200 });
    assert.deepEqual((await restarted.recorder.query('1d', end, end))![0]!.n, 5);
  });
});
