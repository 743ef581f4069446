import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TIERS } from '../../src/history/tiers.js';

// Daily buckets are local days; DST in Central Europe: 2026-03-29 02:00 -> 03:00, 2026-10-25 03:00 -> 02:00.
process.env.TZ = 'Europe/Berlin';

const at = (iso: string) => Date.parse(iso);
const s = (iso: string) => at(iso) / 1000;

test('minute and quarter-hour buckets are aligned to Unix time', () => {
  assert.equal(TIERS['1m'].bucketOf(at('2026-11-24T10:07:59.999Z')), s('2026-11-24T10:07:00Z'));
  assert.equal(TIERS['15m'].bucketOf(at('2026-11-24T10:14:59Z')), s('2026-11-24T10:00:00Z'));
  assert.equal(TIERS['15m'].bucketOf(at('2026-11-24T10:15:00Z')), s('2026-11-24T10:15:00Z'));
  assert.equal(TIERS['15m'].endOf(s('2026-11-24T10:15:00Z')), s('2026-11-24T10:30:00Z'));
  assert.equal(TIERS['1m'].numberOf(s('2026-11-24T10:07:00Z')) % TIERS['1m'].capacity, 1927);
});

test('daily buckets are local days: 23 h on the spring DST day, 25 h on the autumn one', () => {
  const day = TIERS['1d'];
  const normal = day.bucketOf(at('2026-11-24T22:59:59Z')); // 23:59:59 CET
  assert.equal(normal, s('2026-11-23T23:00:00Z'));
  assert.equal(day.bucketOf(at('2026-11-24T23:00:00Z')), s('2026-11-24T23:00:00Z'));
  assert.equal(day.endOf(normal) - normal, 86_400);

  const spring = day.bucketOf(at('2026-03-29T12:00:00Z'));
  assert.equal(spring, s('2026-03-28T23:00:00Z')); // local midnight, CET
  assert.equal(day.endOf(spring), s('2026-03-29T22:00:00Z')); // next local midnight, CEST
  assert.equal(day.endOf(spring) - spring, 23 * 3600);

  const autumn = day.bucketOf(at('2026-10-25T12:00:00Z'));
  assert.equal(autumn, s('2026-10-24T22:00:00Z'));
  assert.equal(day.endOf(autumn) - autumn, 25 * 3600);

  // Day numbers are consecutive across DST changes (ring slots stay in step).
  assert.equal(day.numberOf(day.endOf(spring)) - day.numberOf(spring), 1);
  assert.equal(day.numberOf(day.endOf(autumn)) - day.numberOf(autumn), 1);
  assert.equal(day.numberOf(spring), Date.UTC(2026, 2, 29) / 86_400_000);
});

test('every quarter-hour lies in exactly one local day, also on DST days', () => {
  for (const iso of ['2026-03-29T00:00:00Z', '2026-10-25T00:00:00Z']) {
    const start = TIERS['1d'].bucketOf(at(iso));
    const end = TIERS['1d'].endOf(start);
    let quarters = 0;
    for (let t = start; t < end; t += 900) {
      assert.equal(TIERS['1d'].bucketOf(t * 1000), start);
      quarters += 1;
    }
    assert.equal(quarters, (end - start) / 900);
  }
});
