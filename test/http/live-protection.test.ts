import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { registerCoreRoutes } from '../../src/http/server.js';
import type { LiveHub } from '../../src/http/routes/live.js';
import { runOutput } from '../../src/output-runner.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { send } from './http-client.js';
import { openStream } from './sse-client.js';

registerConfigFormats();

const PASSWORD = 'live-Secret-1';
const basic = { Authorization: `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}` };

/** A live stream opened with Basic credentials. */
function openWithCredentials(
  baseUrl: string,
): Promise<{ blocks: string[]; ended: Promise<void>; close(): void }> {
  return new Promise((resolve, reject) => {
    const request = get(`${baseUrl}/api/v1/live`, { agent: false, headers: basic }, (response) => {
      assert.equal(response.statusCode, 200);
      const blocks: string[] = [];
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (text: string) => {
        buffer += text;
        const parts = buffer.split('\n\n');
        buffer = parts.pop()!;
        blocks.push(...parts);
      });
      const ended = new Promise<void>((done) => response.socket.once('close', () => done()));
      resolve({ blocks, ended, close: () => request.destroy() });
    });
    request.on('error', reject);
  });
}

test('switching protection on ends the live streams opened without credentials, not the others', async () => {
  let live: LiveHub | undefined;
  const server = await startHttpContext({
    routes: (router, ctx) => {
      live = registerCoreRoutes(router, ctx, { live: { keepAliveMs: 50 } }).live;
    },
  });
  // The daemon runs the hub as an output watching system.protection; so does the test.
  const hub = runOutput(server.ctx, live!);
  await hub.start();
  try {
    const { baseUrl, ctx } = server;
    const open = await openStream(baseUrl);
    await open.block(0);
    const on = server.ctx.config.apply(
      new Map<string, unknown>([
        ['system.protection', true],
        ['system.password', PASSWORD],
      ]),
    );
    assert.ok(on.ok);
    await open.ended;
    assert.equal((await send(baseUrl, 'GET', '/api/v1/live')).status, 401);

    const authorised = await openWithCredentials(baseUrl);
    assert.ok(ctx.config.apply(new Map([['system.protection', false]])).ok);
    const anonymous = await openStream(baseUrl);
    await anonymous.block(0);
    assert.ok(ctx.config.apply(new Map([['system.protection', true]])).ok);
    await anonymous.ended;
    // The stream with credentials still delivers after the switch.
    const seen = authorised.blocks.length;
    await waitFor(
      'a keep-alive on the authorised stream',
      () => authorised.blocks.length,
      (n) => n > seen,
    );
    authorised.close();
  } finally {
    await hub.stop();
    await server.close();
  }
});
