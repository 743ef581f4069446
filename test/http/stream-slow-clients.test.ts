// Every push stream drops a client that does not read (docs/architecture.md#hostile-input): the
// peak and export limiter streams here; /api/v1/live in live.test.ts, the Shelly WebSocket in
// device/shelly/websocket.test.ts. Each goes through the one guard of src/slow-consumer.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerPeakRoutes } from '../../src/http/routes/peak.js';
import { registerExportLimiterRoutes } from '../../src/http/routes/export-limiter.js';
import { ExportLimiter } from '../../src/export-limiter/limiter.js';
import { componentLogger } from '../../src/log.js';
import { runOutput } from '../../src/output-runner.js';
import { PeakGuard } from '../../src/peak/peak-guard.js';
import { valuesOf } from '../../src/reading/reading.js';
import type { SlowConsumerGuard } from '../../src/slow-consumer.js';
import { startHttpContext } from '../helpers/http-context.js';
import { openStream } from './sse-client.js';

test('a peak stream client that never reads is dropped; a reading client keeps getting events', async () => {
  let guard: PeakGuard | undefined;
  let actions: ActionsOutput | undefined;
  let slow: SlowConsumerGuard | undefined;
  const h = await startHttpContext({
    clockFrozen: true,
    env: { METER_GATEWAY_SERVICES_PEAK_GUARD_ENABLED: 'true', METER_GATEWAY_METER_TIMEOUT: '3600' },
    staleAfterMs: 3_600_000,
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      guard = new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions);
      slow = registerPeakRoutes(router, ctx, guard);
    },
  });
  const outputs = [runOutput(h.ctx, actions!), runOutput(h.ctx, guard!)];
  for (const output of outputs) await output.start();
  const port = Number(new URL(h.baseUrl).port);
  const silent = connect(port, '127.0.0.1');
  silent.on('error', () => undefined);
  await once(silent, 'connect');
  silent.write('GET /api/v1/peak/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  // The client never reads: the kernel buffers fill, then the events pile up in the server.
  silent.pause();
  const reader = await openStream(h.baseUrl, '/api/v1/peak/stream');
  try {
    let kwh = 100;
    let sent = 0;
    while (slow!.dropped === 0) {
      h.clock.advance(1000);
      kwh += 2 / 3600;
      h.ctx.store.ingest({
        receivedAt: h.clock.now(),
        protocol: 'DSMR',
        identity: {},
        values: valuesOf({ '1.8.0': [kwh, 'kWh'], '1.7.0': [2, 'kW'] }),
        mbus: [],
      });
      sent++;
      // Up to ~100 MB of events without a drop means the stream buffers without bound.
      assert.ok(sent < 100_000, 'the client that does not read was never dropped');
      if (sent % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(slow!.dropped, 1);
    assert.equal(h.ctx.refusals.get('slow_client_peak'), 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(reader.blocks.length > 1, 'the reading client got the events');
  } finally {
    reader.close();
    silent.destroy();
    for (const output of outputs) await output.stop();
    await h.close();
  }
});

test('an export limiter stream client that never reads is dropped; a reading client keeps getting events', async () => {
  let limiter: ExportLimiter | undefined;
  let slow: SlowConsumerGuard | undefined;
  const h = await startHttpContext({
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      limiter = new ExportLimiter(ctx, componentLogger(ctx.logger, 'export-limiter'));
      slow = registerExportLimiterRoutes(router, ctx, limiter);
    },
  });
  const port = Number(new URL(h.baseUrl).port);
  const silent = connect(port, '127.0.0.1');
  silent.on('error', () => undefined);
  await once(silent, 'connect');
  silent.write('GET /api/v1/export-limiter/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  silent.pause();
  const reader = await openStream(h.baseUrl, '/api/v1/export-limiter/stream');
  try {
    let sent = 0;
    while (slow!.dropped === 0) {
      // A control step's status event, as the limiter emits it on every reading.
      limiter!.emit('status', limiter!.status());
      sent++;
      assert.ok(sent < 200_000, 'the client that does not read was never dropped');
      if (sent % 200 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(slow!.dropped, 1);
    assert.equal(h.ctx.refusals.get('slow_client_export_limiter'), 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(reader.blocks.length > 1, 'the reading client got the events');
  } finally {
    reader.close();
    silent.destroy();
    await h.close();
  }
});
