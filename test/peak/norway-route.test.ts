// GET /api/v1/peak for Norway on a real server and a frozen clock: the month's day maxima come
// from the state file (6.0, 4.0, 3.0 kW), the answer shows the step, the month value and the
// keep_step limit, and matches the OpenAPI document the server serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { valuesOf } from '../../src/reading/reading.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send } from '../http/http-client.js';
import { responseProblems } from '../http/openapi-check.js';

process.env.TZ = 'Europe/Oslo';

test('Norway keep_step: GET /api/v1/peak shows step 2–5 kW (375), month value 4.333 and the effective limit 5.000', async () => {
  let guard: PeakGuard | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    env: {
      METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true',
      METER_GATEWAY_SERVICES_PEAK_GUARD_MODEL: 'no_top3_days',
      METER_GATEWAY_SERVICES_PEAK_GUARD_MODE: 'keep_step',
      METER_GATEWAY_SERVICES_PEAK_GUARD_LIMIT_KW: '3',
      METER_GATEWAY_METER_TIMEOUT: '3600',
    },
    staleAfterMs: 3_600_000,
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), {
        call: () => ({ ok: true }),
        lock: () => undefined,
      });
      registerPeakRoutes(router, ctx, guard);
    },
  });
  const at = (text: string) => Date.parse(text);
  h.clock.advance(at('2026-11-25T18:10:00') - h.clock.now());
  const top = [
    { at: at('2026-11-02T18:00'), kw: 6 },
    { at: at('2026-11-03T18:00'), kw: 4 },
    { at: at('2026-11-04T18:00'), kw: 3 },
  ];
  writeFileSync(
    join(h.stateDir, 'peak-guard.json'),
    JSON.stringify({
      version: 1,
      shed: [],
      restoredAt: {},
      ineffective: [],
      months: [{ month: '2026-11', top }],
    }),
  );
  const output = runOutput(h.ctx, guard!);
  await output.start();
  try {
    let kwh = 100;
    for (let i = 0; i < 5; i++) {
      h.clock.advance(1000);
      kwh += 4.5 / 3600;
      h.ctx.store.ingest({
        receivedAt: h.clock.now(),
        protocol: 'DSMR',
        identity: {},
        values: valuesOf({ '1.8.0': [kwh, 'kWh'], '1.7.0': [4.5, 'kW'] }),
        mbus: [],
      });
    }
    const doc = (await send(h.baseUrl, 'GET', '/api/v1/openapi.json')).json();
    const reply = await send(h.baseUrl, 'GET', '/api/v1/peak');
    assert.deepEqual(
      responseProblems(
        doc,
        'GET',
        '/api/v1/peak',
        reply.status,
        String(reply.headers['content-type']),
        reply.text,
      ),
      [],
    );
    const body = reply.json();
    assert.equal(body.model, 'no_top3_days');
    assert.equal(body.window.seconds, 3600);
    assert.equal(body.window.start, '2026-11-25T18:00:00+01:00');
    assert.deepEqual(body.step, { index: 1, from_kw: 2, to_kw: 5, price: 375 });
    assert.equal(body.month_value_kw, 4.333);
    assert.equal(body.limit_kw, 3);
    assert.equal(body.effective_limit_kw, 5);
    assert.equal(body.not_counted, null);
    assert.equal(body.state, 'idle');
  } finally {
    await output.stop();
    await h.close();
  }
});
