import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerMeterDiscoverRoute } from '../../src/http/routes/meter-discover.js';
import { startHttpContext } from '../helpers/http-context.js';
import { send } from '../http/http-client.js';

// The browse itself runs in test/device/mdns-browse.test.ts (network namespaces); here only what
// needs no network: with mDNS off the gateway asks nothing on the network.

test('GET /api/v1/meters/discover with services.broadcast off: 409 conflict with its message key, no browse', async (t) => {
  const h = await startHttpContext({
    env: { METER_GATEWAY_SERVICES_BROADCAST: 'false' },
    routes: (router, ctx) => registerMeterDiscoverRoute(router, ctx),
  });
  t.after(() => h.close());
  const answer = await send(h.baseUrl, 'GET', '/api/v1/meters/discover');
  assert.equal(answer.status, 409);
  const body = answer.json();
  assert.equal(body.error, 'conflict');
  assert.equal(body.key, 'error.mdns_off');
  assert.match(body.message, /services\.broadcast/);
});
