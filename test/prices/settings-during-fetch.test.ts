// A settings change while the price store's request is under way: once the request ends, the store
// asks again with the new settings and keeps its schedule, on the virtual clock against a loopback
// ENTSO-E server that holds its first answer until the change is made.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { runOutput } from '../../src/output-runner.js';
import { PriceStore } from '../../src/prices/price-store.js';
import { linesLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { waitFor } from '../helpers/wait.js';
import { a44, fullPeriod } from './fixtures.js';

process.env.TZ = 'Europe/Brussels';
registerConfigFormats();

/** 2026-11-29 10:00 CET: today only. */
const AT_1000 = Date.parse('2026-11-29T09:00:00Z');
const BE = '10YBE----------2';
const NL = '10YNL----------L';

test('a zone changed during a request: the store asks again for the new zone once it ends, and stays scheduled', async (t) => {
  const asked: URL[] = [];
  let held: ServerResponse | undefined;
  const iso = (s: string) =>
    `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(8, 10)}:${s.slice(10, 12)}Z`;
  const answer = (url: URL) =>
    a44([
      {
        curve: 'A01',
        periods: [
          fullPeriod(iso(url.searchParams.get('periodStart')!), iso(url.searchParams.get('periodEnd')!)),
        ],
      },
    ]);
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    asked.push(url);
    request.resume();
    response.writeHead(200, { 'content-type': 'application/xml' });
    // The first request waits for the test; the others are answered at once.
    if (asked.length === 1) held = response;
    else response.end(answer(url));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const ctx = createAppContext({
    clock: new VirtualClock(AT_1000),
    stateDir: tempDir('mg-prices-during-', t),
    env: {
      METER_GATEWAY_SERVICES_COSTS_SOURCE_NAME: 'entsoe',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_ZONE: BE,
      METER_GATEWAY_SERVICES_COSTS_SOURCE_TOKEN: 'test-token',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_URLS_ENTSOE: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
      METER_GATEWAY_SERVICES_COSTS_IMPORT_MODE: 'dynamic',
    },
    logger: linesLogger([]),
  });
  const store = new PriceStore(ctx, ctx.logger, () => 0);
  ctx.prices = store;
  const service = runOutput(ctx, store);
  t.after(() => service.stop());
  await service.start();
  await waitFor('the first request', () => held);
  assert.ok(ctx.config.apply(new Map<string, unknown>([['services.costs.source.zone', NL]])).ok);
  await waitFor(
    'the zone in force',
    () => ctx.config.config.services.costs.source.zone,
    (zone) => zone === NL,
  );
  held!.end(answer(asked[0]!));
  await waitFor(
    'a request for the new zone',
    () => asked.map((url) => url.searchParams.get('in_Domain')),
    (zones) => zones.includes(NL),
  );
  await store.idle();
  assert.deepEqual(
    asked.map((url) => url.searchParams.get('in_Domain')),
    [BE, NL],
  );
  const status = store.statusView();
  assert.equal(status.status, 'ok');
  assert.notEqual(status.next_fetch, null, 'the store keeps its schedule');
  assert.ok(store.slots('2026-11-29')!.every((slot) => slot.spot !== null));
});
