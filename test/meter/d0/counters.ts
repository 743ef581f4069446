import assert from 'node:assert/strict';
import type { D0Decoder } from '../../../src/meter/d0/decoder.js';

/** The decoder's counters reconcile: every byte and every frame is accounted for exactly once. */
export function assertCountersAddUp(decoder: D0Decoder, results: number): void {
  const c = decoder.counters;
  assert.equal(c.bytesIn, c.frameBytes + c.garbageBytes + c.discardedBytes + c.pendingBytes, 'bytes add up');
  const rejected = Object.values(c.rejected).reduce((sum, n) => sum + n, 0);
  assert.equal(c.frames + c.truncated + c.overflows, c.readings + rejected, 'frames add up');
  assert.equal(c.readings + rejected, results, 'one result per frame');
}
