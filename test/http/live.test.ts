import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { EventSource } from 'eventsource';
import { registerCoreRoutes, type CoreRoutes } from '../../src/http/server.js';
import type { LiveHubOptions } from '../../src/http/routes/live.js';
import { buildLivePayload } from '../../src/reading/live.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';
import { send } from './http-client.js';
import { liveData, openStream } from './sse-client.js';
import { waitFor } from '../helpers/wait.js';

async function withServer(
  fn: (server: HttpTestContext, core: CoreRoutes) => Promise<void>,
  options: { env?: Record<string, string>; live?: LiveHubOptions } = {},
): Promise<void> {
  let core: CoreRoutes | undefined;
  const server = await startHttpContext({
    env: options.env ?? {},
    routes: (router, ctx) =>
      (core = registerCoreRoutes(router, ctx, options.live ? { live: options.live } : {})),
  });
  try {
    await fn(server, core!);
  } finally {
    await server.close();
  }
}

/** Waits until the hub has `count` clients. */
async function liveClients(core: CoreRoutes, count: number): Promise<void> {
  await waitFor(
    `${count} live clients`,
    () => core.live.size,
    (size) => size === count,
    { intervalMs: 5 },
  );
}

test('one `event: live` per reading with the flat payload on one data line; headers of an event stream', () =>
  withServer(async ({ baseUrl, ctx, clock }) => {
    const stream = await openStream(baseUrl);
    assert.equal(stream.response.statusCode, 200);
    assert.equal(stream.response.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(stream.response.headers['cache-control'], 'no-store');
    for (let i = 0; i < 3; i++) {
      const reading = syntheticReading(clock.now(), i);
      ctx.store.ingest(reading);
      const block = await stream.block(i);
      assert.deepEqual(
        liveData(block),
        JSON.parse(JSON.stringify(buildLivePayload(ctx.store.latest!, ctx.system.bootTime))),
      );
      assert.equal(liveData(block).E_In_T1, 9811.204 + i / 1000);
    }
    stream.close();
  }));

test('the latest reading is sent at once on connect, the same bytes to every client', () =>
  withServer(async ({ baseUrl, ctx, clock }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const a = await openStream(baseUrl);
    const b = await openStream(baseUrl);
    const [first, second] = [await a.block(0), await b.block(0)];
    assert.equal(first, second);
    assert.equal(liveData(first).P_In, 2.412);
    a.close();
    b.close();
  }));

test('a real EventSource client receives live events', () =>
  withServer(async ({ baseUrl, ctx, clock }) => {
    ctx.store.ingest(syntheticReading(clock.now()));
    const source = new EventSource(`${baseUrl}/api/v1/live`);
    const data = await new Promise<string>((resolve) =>
      source.addEventListener('live', (event) => resolve(event.data)),
    );
    source.close();
    assert.equal((JSON.parse(data) as Record<string, unknown>).T, 2);
  }));

test('clients beyond http.live_max_clients get 503 with the error body; a freed place can be taken', () =>
  withServer(
    async ({ baseUrl }, core) => {
      const a = await openStream(baseUrl);
      const b = await openStream(baseUrl);
      const refused = await send(baseUrl, 'GET', '/api/v1/live');
      assert.equal(refused.status, 503);
      assert.equal(refused.json().error, 'service_unavailable');
      a.close();
      await liveClients(core, 1);
      const c = await openStream(baseUrl);
      assert.equal(c.response.statusCode, 200);
      b.close();
      c.close();
    },
    { env: { METER_GATEWAY_HTTP_LIVE_MAX_CLIENTS: '2' } },
  ));

test('a keep-alive comment is sent periodically', () =>
  withServer(
    async ({ baseUrl }) => {
      const stream = await openStream(baseUrl);
      assert.equal(await stream.block(0), ': keep-alive');
      stream.close();
    },
    { live: { keepAliveMs: 30 } },
  ));

test('a client that does not read is dropped; a reading client keeps every event', () =>
  withServer(
    async ({ baseUrl, ctx, clock }, core) => {
      const slow = await openStream(baseUrl);
      slow.response.pause();
      const fast = await openStream(baseUrl);
      let sent = 0;
      while (core.live.dropped === 0) {
        ctx.store.ingest(syntheticReading(clock.now(), sent++));
        if (sent % 20 === 0) await yieldToLoop();
        assert.ok(sent < 200_000, 'the slow client was never dropped');
      }
      assert.equal(core.live.size, 1);
      // The server closed the slow socket; the client sees it after reading what was in flight.
      slow.response.resume();
      await slow.ended;
      assert.ok(slow.blocks.length < sent, 'the dropped client did not get every event');
      await fast.block(sent - 1);
      assert.equal(fast.blocks.length, sent);
      fast.close();
    },
    { live: { maxBufferedBytes: 64 * 1024 } },
  ));

test('10,000 connect/disconnect cycles leave no client, listener or timer behind', { timeout: 300_000 }, () =>
  withServer(
    async ({ baseUrl, ctx, clock }, core) => {
      ctx.store.ingest(syntheticReading(clock.now()));
      const batch = 50;
      for (let done = 0; done < 10_000; done += batch) {
        const streams = await Promise.all(Array.from({ length: batch }, () => openStream(baseUrl)));
        await Promise.all(streams.map((stream) => stream.block(0)));
        for (const stream of streams) stream.close();
      }
      await liveClients(core, 0);
      assert.equal(ctx.store.listenerCount('reading'), 0);
      const again = await openStream(baseUrl);
      assert.equal(ctx.store.listenerCount('reading'), 1);
      again.close();
      await liveClients(core, 0);
      assert.equal(ctx.store.listenerCount('reading'), 0);
    },
    { env: { METER_GATEWAY_HTTP_LIVE_MAX_CLIENTS: '100' } },
  ),
);

test('HEAD /api/v1/live answers the headers without joining the hub', () =>
  withServer(async ({ baseUrl }, core) => {
    const reply = await send(baseUrl, 'HEAD', '/api/v1/live');
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(core.live.size, 0);
  }));

test('stopping the server ends every stream', async () => {
  let core: CoreRoutes | undefined;
  const server = await startHttpContext({
    routes: (router, ctx) => (core = registerCoreRoutes(router, ctx)),
  });
  const streams = await Promise.all([openStream(server.baseUrl), openStream(server.baseUrl)]);
  await liveClients(core!, 2);
  await server.close();
  await Promise.all(streams.map((stream) => stream.ended));
  assert.equal(core!.live.size, 0);
  assert.equal(server.ctx.store.listenerCount('reading'), 0);
});
