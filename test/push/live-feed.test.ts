// The push's live power feed (power_1s) from the meters' readings: the signed active power in W,
// import positive, at the reading's time; unsubscribed, nothing more arrives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LivePower, LivePowerSample } from '../../src/push/push-client.js';
import { PushOutput } from '../../src/push/push-output.js';
import { startHttpContext } from '../helpers/http-context.js';
import { meterReading, setClock } from '../history/history-fixture.js';

test('power_1s feed: every reading of a meter as its signed power in W at the reading time', async () => {
  const h = await startHttpContext();
  try {
    const output = new PushOutput(h.ctx, h.ctx.logger, {
      meters: () => [],
      quarters: () => Promise.resolve([]),
    });
    const feed = (output as unknown as { livePower: LivePower }).livePower;
    const got: LivePowerSample[] = [];
    const unsubscribe = feed.subscribe((sample) => got.push(sample));
    const at = Date.now();
    setClock(h, at);
    h.ctx.store.ingest(meterReading(at, { pIn: 1.25, pOut: 0 }));
    setClock(h, at + 1000);
    h.ctx.store.ingest(meterReading(at + 1000, { pIn: 0, pOut: 0.5 }));
    unsubscribe();
    setClock(h, at + 2000);
    h.ctx.store.ingest(meterReading(at + 2000, { pIn: 3, pOut: 0 }));
    assert.deepEqual(got, [
      { meter: 'main', role: 'grid', at, watts: 1250 },
      { meter: 'main', role: 'grid', at: at + 1000, watts: -500 },
    ]);
  } finally {
    await h.close();
  }
});
