import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, readdirSync, readFileSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryPoint } from '../../src/history/point.js';
import { RECORD_SIZE } from '../../src/history/record.js';
import { HEADER_SIZE, RingFile, ringFileSize } from '../../src/history/ring-file.js';
import { TIERS, type Tier } from '../../src/history/tiers.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A 1-minute tier of 7 slots, so a few writes go round the ring. */
const SMALL: Tier = { ...TIERS['1m'], capacity: 7 };
const T = 1_795_564_800;

const point = (t: number, n = 1, value = 1): HistoryPoint => ({
  t,
  n,
  pIn: { n, min: value, sum: value * n, max: value },
  eIn: 0.5 * n,
  eOut: null,
});

test('a ring keeps the newest capacity buckets: bucket k in slot k mod capacity, reads across the wrap in order', async () => {
  const dir = tempDir('mg-history-ring-');
  try {
    const { ring } = await RingFile.open(join(dir, 'small.ring'), SMALL, Date.now());
    assert.equal(statSync(join(dir, 'small.ring')).size, HEADER_SIZE + 7 * RECORD_SIZE);
    for (let k = 0; k < 12; k++)
      assert.equal((await ring.write(point(T + k * 60, k + 1))).outcome, 'written');
    const all = await ring.readAll();
    assert.deepEqual(all.counts, { points: 7, empty: 0, corrupt: 0 });
    assert.deepEqual(
      all.points.map((p) => p.t).sort((a, b) => a - b),
      [5, 6, 7, 8, 9, 10, 11].map((k) => T + k * 60),
    );
    const first = SMALL.numberOf(T);
    // The last seven buckets span the end of the file and its start; overwritten ones are gone.
    const range = await ring.readRange(first + 3, first + 11);
    assert.deepEqual(
      range.map((p) => [p.t, p.n]),
      [5, 6, 7, 8, 9, 10, 11].map((k) => [T + k * 60, k + 1]),
    );
    assert.deepEqual(
      (await ring.readRange(first + 9, first + 10)).map((p) => p.t),
      [T + 540, T + 600],
    );
    // Slot of bucket 4 now holds bucket 11: an older bucket never replaces a newer one.
    assert.equal((await ring.write(point(T + 4 * 60))).outcome, 'kept-newer');
    // The same bucket again (restart within it, clock set back): merged.
    const merged = await ring.write(point(T + 11 * 60, 3, 4));
    assert.equal(merged.outcome, 'merged');
    assert.deepEqual(merged.stored, {
      t: T + 660,
      n: 15,
      pIn: { n: 15, min: 1, sum: 24, max: 4 },
      eIn: 7.5,
      eOut: null,
    });
    await ring.close();
    const reopened = (await RingFile.open(join(dir, 'small.ring'), SMALL, Date.now())).ring;
    assert.deepEqual((await reopened.readRange(first + 11, first + 11))[0], merged.stored);
    await reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the real tiers: file sizes, and the 1-minute ring wraps after 2940 buckets (49 h)', async () => {
  const dir = tempDir('mg-history-ring-');
  try {
    const sizes = Object.fromEntries(
      await Promise.all(
        (['1m', '15m', '1d'] as const).map(async (r) => {
          const { ring } = await RingFile.open(join(dir, `${r}.ring`), TIERS[r], Date.now());
          await ring.close();
          return [r, statSync(join(dir, `${r}.ring`)).size];
        }),
      ),
    );
    assert.deepEqual(sizes, { '1m': 282_304, '15m': 3_382_336, '1d': 351_424 });
    assert.equal(ringFileSize(TIERS['1m']), 282_304);
    const { ring } = await RingFile.open(join(dir, '1m.ring'), TIERS['1m'], Date.now());
    const k = TIERS['1m'].numberOf(T);
    await ring.write(point(T));
    await ring.write(point(T + 2939 * 60));
    assert.equal((await ring.readRange(k, k + 2939)).length, 2);
    await ring.write(point(T + 2940 * 60)); // same slot as T
    assert.deepEqual(
      (await ring.readRange(k, k + 2940)).map((p) => p.t),
      [T + 2939 * 60, T + 2940 * 60],
    );
    await ring.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('on open, torn records count as corrupt and are skipped; a foreign header moves the file aside', async () => {
  const dir = tempDir('mg-history-ring-');
  const path = join(dir, 'small.ring');
  try {
    const { ring } = await RingFile.open(path, SMALL, Date.now());
    for (let k = 0; k < 4; k++) await ring.write(point(T + k * 60, 2));
    await ring.close();
    const slot = (k: number) => SMALL.numberOf(T + k * 60) % 7;
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from([0xff, 0xff]), 0, 2, HEADER_SIZE + slot(1) * RECORD_SIZE + 40);
    // A valid record of bucket 2 copied into bucket 3's slot: well-formed but misplaced.
    const record = readFileSync(path)
      .subarray(HEADER_SIZE + slot(2) * RECORD_SIZE)
      .subarray(0, RECORD_SIZE);
    writeSync(fd, record, 0, RECORD_SIZE, HEADER_SIZE + slot(3) * RECORD_SIZE);
    closeSync(fd);
    const reopened = (await RingFile.open(path, SMALL, Date.now())).ring;
    const all = await reopened.readAll();
    assert.deepEqual(all.counts, { points: 2, empty: 3, corrupt: 2 });
    assert.deepEqual(all.points.map((p) => p.t).sort(), [T, T + 120]);
    // The torn slot is simply written again.
    assert.equal((await reopened.write(point(T + 60))).outcome, 'written');
    await reopened.close();

    const other = await RingFile.open(path, { ...SMALL, capacity: 8 }, 1234);
    assert.equal(other.movedAside, `${path}.corrupt-1234`);
    assert.deepEqual((await other.ring.readAll()).counts, { points: 0, empty: 8, corrupt: 0 });
    await other.ring.close();
    assert.deepEqual(readdirSync(dir).sort(), ['small.ring', 'small.ring.corrupt-1234']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
