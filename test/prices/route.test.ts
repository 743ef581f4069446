// GET /api/v1/prices: the day parameter, the quarters of a DST day, the fallback price of a quarter
// without a market price (estimated), and a refused day.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerPricesRoutes } from '../../src/http/routes/prices.js';
import { PriceStore } from '../../src/prices/price-store.js';
import { startHttpContext } from '../helpers/http-context.js';

process.env.TZ = 'Europe/Brussels';

test('GET /api/v1/prices: today, a DST date, the fallback as estimated, a bad day refused by name', async (t) => {
  let store: PriceStore | undefined;
  const rig = await startHttpContext({
    env: {
      METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: 'dynamic',
      METER_GATEWAY_SERVICES_COSTS_IMPORT_PRICE: '0.3',
    },
    routes: (router, ctx) => {
      store = new PriceStore(ctx, ctx.logger);
      registerPricesRoutes(router, ctx, store);
    },
  });
  t.after(() => rig.close());
  store!.apply({ slice: rig.ctx.config.config.services.costs });
  const get = async (query: string) => {
    const response = await fetch(`${rig.baseUrl}/api/v1/prices${query}`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const spring = await get('?day=2026-03-29');
  assert.equal(spring.status, 200);
  assert.equal(spring.body['quarters'], 92);
  const autumn = await get('?day=2025-10-26');
  assert.equal(autumn.body['quarters'], 100);
  const slot = (spring.body['slots'] as Array<Record<string, unknown>>)[0]!;
  assert.deepEqual(slot, {
    start: '2026-03-29T00:00:00+01:00',
    end: '2026-03-29T00:15:00+01:00',
    spot: null,
    import: 0.3,
    export: null,
    source: null,
    estimated: true,
  });
  assert.equal((await get('')).status, 200);
  assert.equal((await get('?day=tomorrow')).status, 200);
  for (const bad of ['?day=yesterday', '?day=2026-02-30', '?day=2026-2-3']) {
    const answer = await get(bad);
    assert.equal(answer.status, 400, bad);
    assert.equal(answer.body['error'], 'validation_failed');
  }
});
