// GET /api/v1/page/stream (docs/architecture.md#page-stream): the web interface's one stream
// carries the live, peak and export limiter events by name, each block byte for byte as its own
// stream writes it, only the parts asked; with the same auth, protection rule and client limit as
// the single streams. Its slow-client drop is the one of src/http/event-stream.ts, shown for the
// peak and limiter streams in stream-slow-clients.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { ExportLimiter } from '../../src/export-limiter/limiter.js';
import { registerExportLimiterRoutes } from '../../src/http/routes/export-limiter.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { componentLogger } from '../../src/log.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { startHttpContext, syntheticReading, type HttpContextOptions } from '../helpers/http-context.js';
import { quietPeriod, waitFor } from '../helpers/wait.js';
import { send } from './http-client.js';
import { openStream, type SseStream } from './sse-client.js';

/** A gateway with the live hub, the peak guard and the export limiter (the page stream's parts). */
function startGateway(
  options: { env?: Record<string, string>; peakAndLimiter?: boolean; keepAliveMs?: number } = {},
) {
  const context: HttpContextOptions = {
    clockFrozen: true,
    staleAfterMs: 3_600_000,
    env: { METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true', ...options.env },
    routes: (router, ctx) => {
      const core = registerCoreRoutes(
        router,
        ctx,
        options.keepAliveMs === undefined ? {} : { live: { keepAliveMs: options.keepAliveMs } },
      );
      if (options.peakAndLimiter === false) return;
      const actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      const guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      registerPeakRoutes(router, ctx, guard, core.page);
      const limiter = new ExportLimiter(ctx, componentLogger(ctx.logger, 'limiter'));
      registerExportLimiterRoutes(router, ctx, limiter, core.page);
    },
  };
  return startHttpContext(context);
}

const eventName = (block: string) => block.split('\n')[0];

test('named events, each block byte for byte as the single stream sends it, in the order live, peak, limiter', async () => {
  const h = await startGateway();
  const streams: SseStream[] = [];
  try {
    h.ctx.store.ingest(syntheticReading(h.clock.now(), 0));
    const [page, live, peak, limiter] = await Promise.all(
      ['/api/v1/page/stream', '/api/v1/live', '/api/v1/peak/stream', '/api/v1/export-limiter/stream'].map(
        (path) => openStream(h.baseUrl, path),
      ),
    );
    streams.push(page!, live!, peak!, limiter!);
    assert.equal(page!.response.statusCode, 200);
    assert.equal(page!.response.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.equal(await page!.block(0), await live!.block(0));
    assert.equal(await page!.block(1), await peak!.block(0));
    assert.equal(await page!.block(2), await limiter!.block(0));
    assert.deepEqual(
      [0, 1, 2].map((n) => eventName(page!.blocks[n]!)),
      ['event: live', 'event: peak', 'event: export_limiter'],
    );
    // A reading: its live event on both, the same bytes.
    h.ctx.store.ingest(syntheticReading(h.clock.now(), 1));
    const next = await live!.block(1);
    const pageLive = await waitFor(
      'the live event on the page stream',
      () => page!.blocks.slice(3).find((block) => block.startsWith('event: live')),
      (block) => block !== undefined,
    );
    assert.equal(pageLive, next);
  } finally {
    for (const stream of streams) stream.close();
    await h.close();
  }
});

test('?parts= selects the parts; an unknown part is a 400; a part the gateway does not serve is left out', async () => {
  const h = await startGateway();
  try {
    const stream = await openStream(h.baseUrl, '/api/v1/page/stream?parts=limiter,peak');
    try {
      assert.equal(eventName(await stream.block(0)), 'event: peak');
      assert.equal(eventName(await stream.block(1)), 'event: export_limiter');
      h.ctx.store.ingest(syntheticReading(h.clock.now(), 0));
      await quietPeriod(200);
      assert.ok(
        stream.blocks.every((block) => !block.startsWith('event: live')),
        'no live event when live is not asked',
      );
    } finally {
      stream.close();
    }
    const bad = await send(h.baseUrl, 'GET', '/api/v1/page/stream?parts=live,weather');
    assert.equal(bad.status, 400);
    assert.equal(bad.json().error, 'validation_failed');
    assert.equal((await send(h.baseUrl, 'GET', '/api/v1/page/stream?parts=')).status, 400);
  } finally {
    await h.close();
  }
  const core = await startGateway({ peakAndLimiter: false });
  try {
    core.ctx.store.ingest(syntheticReading(core.clock.now(), 0));
    const stream = await openStream(core.baseUrl, '/api/v1/page/stream?parts=live,peak,limiter');
    assert.equal(eventName(await stream.block(0)), 'event: live');
    await quietPeriod(200);
    assert.equal(stream.blocks.length, 1, 'only the live part');
    stream.close();
  } finally {
    await core.close();
  }
});

test('protection: 401 without credentials, open with them; an anonymous stream ends when protection is switched on', async () => {
  const h = await startGateway();
  const password = 'page-Secret-1';
  const basic = { Authorization: `Basic ${Buffer.from(`:${password}`).toString('base64')}` };
  try {
    const anonymous = await openStream(h.baseUrl, '/api/v1/page/stream?parts=peak');
    await anonymous.block(0);
    assert.ok(
      h.ctx.config.apply(
        new Map<string, unknown>([
          ['system.protection', true],
          ['system.password', password],
        ]),
      ).ok,
    );
    await anonymous.ended;
    assert.equal((await send(h.baseUrl, 'GET', '/api/v1/page/stream')).status, 401);
    const status = await new Promise<number>((resolve, reject) => {
      const request = get(
        `${h.baseUrl}/api/v1/page/stream?parts=peak`,
        { agent: false, headers: basic },
        (response) => {
          resolve(response.statusCode ?? 0);
          request.destroy();
        },
      );
      request.on('error', reject);
    });
    assert.equal(status, 200);
  } finally {
    await h.close();
  }
});

test('at most http.live_max_clients page streams, then 503', async () => {
  const h = await startGateway({ env: { METER_GATEWAY_HTTP_LIVE_MAX_CLIENTS: '2' } });
  const streams: SseStream[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const stream = await openStream(h.baseUrl, '/api/v1/page/stream?parts=peak');
      streams.push(stream);
      await stream.block(0);
    }
    const refused = await send(h.baseUrl, 'GET', '/api/v1/page/stream?parts=peak');
    assert.equal(refused.status, 503);
    assert.equal(refused.json().error, 'service_unavailable');
    // One closed: the next is taken again.
    streams.shift()!.close();
    await waitFor(
      'a free place',
      async () => {
        const stream = await openStream(h.baseUrl, '/api/v1/page/stream?parts=peak');
        if (stream.response.statusCode === 200) streams.push(stream);
        else stream.close();
        return stream.response.statusCode;
      },
      (code) => code === 200,
    );
  } finally {
    for (const stream of streams) stream.close();
    await h.close();
  }
});

test("the live hub's keep-alive comment reaches a page stream without the live part, at the hub's period", async () => {
  const h = await startGateway({ keepAliveMs: 30 });
  const stream = await openStream(h.baseUrl, '/api/v1/page/stream?parts=peak');
  try {
    assert.equal(await stream.block(0).then((block) => eventName(block)), 'event: peak');
    const comment = await waitFor(
      'a keep-alive comment',
      () => stream.blocks.find((block) => block === ': keep-alive'),
      (block) => block !== undefined,
    );
    assert.equal(comment, ': keep-alive');
  } finally {
    stream.close();
    await h.close();
  }
});
