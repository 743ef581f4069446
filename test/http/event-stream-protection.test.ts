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
import { registerConfigFormats } from '../../src/config-formats.js';
import { startHttpContext } from '../helpers/http-context.js';
import { quietPeriod } from '../helpers/wait.js';
import { send } from './http-client.js';
import { openStream } from './sse-client.js';

// The peak guard's and the export limiter's event streams follow the live stream's rule
// (docs/architecture.md#auth): switching protection on ends the streams opened without credentials,
// and a stream opened with them goes on.

registerConfigFormats();

const PASSWORD = 'stream-Secret-1';
const basic = { Authorization: `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}` };

/** A stream opened with Basic credentials; resolves once its first event has arrived. */
function openWithCredentials(
  baseUrl: string,
  path: string,
): Promise<{ ended: () => boolean; close(): void }> {
  return new Promise((resolve, reject) => {
    const request = get(`${baseUrl}${path}`, { agent: false, headers: basic }, (response) => {
      assert.equal(response.statusCode, 200);
      let ended = false;
      response.socket.once('close', () => (ended = true));
      response.once('data', () => resolve({ ended: () => ended, close: () => request.destroy() }));
    });
    request.on('error', reject);
  });
}

test('switching protection on ends the peak and export limiter streams opened without credentials, not the others', async () => {
  const h = await startHttpContext({
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      const actions = new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions'));
      registerPeakRoutes(router, ctx, new PeakGuard(ctx, componentLogger(ctx.logger, 'peak'), actions));
      registerExportLimiterRoutes(
        router,
        ctx,
        new ExportLimiter(ctx, componentLogger(ctx.logger, 'limiter')),
      );
    },
  });
  try {
    const paths = ['/api/v1/peak/stream', '/api/v1/export-limiter/stream'];
    const anonymous = await Promise.all(paths.map((path) => openStream(h.baseUrl, path)));
    for (const stream of anonymous) await stream.block(0);
    const on = h.ctx.config.apply(
      new Map<string, unknown>([
        ['system.protection', true],
        ['system.password', PASSWORD],
      ]),
    );
    assert.ok(on.ok);
    await Promise.all(anonymous.map((stream) => stream.ended));
    for (const path of paths) assert.equal((await send(h.baseUrl, 'GET', path)).status, 401);

    // Opened with credentials: a later switch of protection (off, then on again) leaves them open.
    const authorised = await Promise.all(paths.map((path) => openWithCredentials(h.baseUrl, path)));
    assert.ok(h.ctx.config.apply(new Map([['system.protection', false]])).ok);
    assert.ok(h.ctx.config.apply(new Map([['system.protection', true]])).ok);
    await quietPeriod(200);
    assert.deepEqual(
      authorised.map((stream) => stream.ended()),
      [false, false],
    );
    for (const stream of authorised) stream.close();
  } finally {
    await h.close();
  }
});
