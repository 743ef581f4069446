// GET /api/v1/health and /api/v1/system's `health` (docs/architecture.md#health): `degraded` while
// the meter reading is stale, `failing` (503) once no reading came for health.max_reading_age_s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes } from '../../src/http/server.js';
import { startHttpContext, syntheticReading } from '../helpers/http-context.js';
import { send } from './http-client.js';

interface HealthBody {
  status: string;
  failed: { output: string; error: string }[];
  degraded: { output: string; error: string }[];
  reading_age_s: number;
}

async function health(baseUrl: string): Promise<{ status: number; body: HealthBody }> {
  const reply = await send(baseUrl, 'GET', '/api/v1/health');
  return { status: reply.status, body: reply.json() as HealthBody };
}

test('the meter reading age makes the health degraded, then failing after health.max_reading_age_s', async () => {
  const server = await startHttpContext({
    routes: (router, ctx) => registerCoreRoutes(router, ctx),
    staleAfterMs: 10_000,
    clockFrozen: true,
  });
  const { baseUrl, ctx, clock } = server;
  try {
    ctx.store.ingest(syntheticReading(clock.now()));
    let answer = await health(baseUrl);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { status: 'ok', failed: [], degraded: [], reading_age_s: 0 });

    clock.advance(11_000);
    answer = await health(baseUrl);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'degraded');
    assert.deepEqual(answer.body.degraded, [{ output: 'meter', error: 'no meter reading for 11 s' }]);
    assert.equal(answer.body.reading_age_s, 11);

    clock.advance(290_000); // 301 s: past the default 300
    answer = await health(baseUrl);
    assert.equal(answer.status, 503);
    assert.equal(answer.body.status, 'failing');
    assert.deepEqual(answer.body.failed, [
      { output: 'meter', error: 'no meter reading for 301 s (health.max_reading_age_s 300)' },
    ]);
    const system = (await send(baseUrl, 'GET', '/api/v1/system')).json() as { health: HealthBody };
    assert.equal(system.health.status, 'failing');

    // A new reading makes it healthy again.
    ctx.store.ingest(syntheticReading(clock.now(), 1));
    answer = await health(baseUrl);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'ok');
  } finally {
    await server.close();
  }
});

test('no reading since the start counts from the start; health.max_reading_age_s 0 never fails', async () => {
  const server = await startHttpContext({
    routes: (router, ctx) => registerCoreRoutes(router, ctx),
    clockFrozen: true,
    env: { METER_GATEWAY_HEALTH_MAX_READING_AGE_S: '0' },
  });
  try {
    // The test context started an hour ago and has had no reading.
    const answer = await health(server.baseUrl);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'degraded');
    assert.deepEqual(answer.body.degraded, [
      { output: 'meter', error: 'no meter reading since the start 3600 s ago' },
    ]);
  } finally {
    await server.close();
  }
  const strict = await startHttpContext({
    routes: (router, ctx) => registerCoreRoutes(router, ctx),
    clockFrozen: true,
  });
  try {
    const answer = await health(strict.baseUrl);
    assert.equal(answer.status, 503);
    assert.match(
      answer.body.failed[0]!.error,
      /since the start 3600 s ago \(health\.max_reading_age_s 300\)/,
    );
  } finally {
    await strict.close();
  }
});

test('health.max_reading_age_s is checked at start', async () => {
  await assert.rejects(
    startHttpContext({ env: { METER_GATEWAY_HEALTH_MAX_READING_AGE_S: '90000' } }),
    /health\.max_reading_age_s/,
  );
});
