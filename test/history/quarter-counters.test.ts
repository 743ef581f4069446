import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  COUNTERS_CODEC,
  COUNTERS_RECORD_SIZE,
  type QuarterCounters,
} from '../../src/history/quarter-counters.js';
import { RingFile } from '../../src/history/ring-file.js';
import { TIERS } from '../../src/history/tiers.js';

const T = 1_790_000_100; // a quarter start (multiple of 900)
const record = (at: number, values: Partial<QuarterCounters>): QuarterCounters => ({
  t: T,
  at,
  eIn: null,
  eOut: null,
  eInT1: null,
  eInT2: null,
  eOutT1: null,
  eOutT2: null,
  ...values,
});

test('quarter registers: a record reads back as written, an absent register stays null', () => {
  const written = record(T * 1000 + 5000, { eIn: 12345.678, eOutT2: 0 });
  const decoded = COUNTERS_CODEC.decode(COUNTERS_CODEC.encode(written), 0);
  assert.deepEqual(decoded, { kind: 'point', point: written });
});

test('quarter registers: a torn record fails its checksum, an unwritten slot is empty', () => {
  const bytes = COUNTERS_CODEC.encode(record(T * 1000, { eIn: 1 }));
  bytes.writeUInt8(bytes.readUInt8(20) ^ 0xff, 20);
  assert.equal(COUNTERS_CODEC.decode(bytes, 0).kind, 'corrupt');
  assert.equal(COUNTERS_CODEC.decode(Buffer.alloc(COUNTERS_RECORD_SIZE), 0).kind, 'empty');
});

test('quarter registers: two writes of one quarter keep the later reading, register by register', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'quarters-ring-'));
  try {
    const path = join(dir, 'quarters.ring');
    const { ring } = await RingFile.openWith(path, TIERS['15m'], Date.now(), COUNTERS_CODEC);
    await ring.write(record(T * 1000 + 60_000, { eIn: 10, eOut: 3 }));
    await ring.write(record(T * 1000 + 120_000, { eIn: 10.5 }));
    // A late write of an earlier reading (replayed minute) does not move the registers back.
    await ring.write(record(T * 1000 + 30_000, { eIn: 9, eOut: 2 }));
    const number = TIERS['15m'].numberOf(T);
    assert.deepEqual(await ring.readRange(number, number), [
      record(T * 1000 + 120_000, { eIn: 10.5, eOut: 3 }),
    ]);
    await ring.close();
    // A points ring (format 1) at that path is not read as a quarters ring: it is moved aside.
    const points = await RingFile.open(path, TIERS['15m'], 1);
    assert.equal(points.movedAside, `${path}.corrupt-1`);
    await points.ring.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
