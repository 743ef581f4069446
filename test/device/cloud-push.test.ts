import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudPush } from '../../src/device/cloud-push.js';
import { startHttpContext, syntheticReading } from '../helpers/http-context.js';
import { runOutput } from '../../src/output-runner.js';
import { waitFor } from '../helpers/wait.js';

/** A local endpoint whose behaviour the test switches: fail with 503, hang, or accept. */
async function endpoint(): Promise<{
  url: string;
  mode: { value: 'fail' | 'hang' | 'ok' };
  received: Array<{ report: { id: number } }>;
  attempts: () => number;
  close: () => Promise<void>;
}> {
  const mode = { value: 'fail' as 'fail' | 'hang' | 'ok' };
  const received: Array<{ report: { id: number } }> = [];
  let attempts = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    attempts += 1;
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      if (mode.value === 'hang') return;
      if (mode.value === 'fail') {
        response.writeHead(503).end();
        return;
      }
      assert.equal(request.headers['content-type'], 'application/json');
      received.push(JSON.parse(Buffer.concat(chunks).toString()) as { report: { id: number } });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/push`,
    mode,
    received,
    attempts: () => attempts,
    close: () =>
      new Promise<void>((resolve) => server.close(() => resolve())).then(() => server.closeAllConnections()),
  };
}

test('reports are pushed in order through failures, and delivered once the endpoint recovers', async () => {
  const remote = await endpoint();
  const h = await startHttpContext({ env: { METER_GATEWAY_CLOUD_VENDOR_URL: remote.url } });
  const push = new CloudPush(h.ctx, h.ctx.logger);
  const pushOutput = runOutput(h.ctx, push);
  try {
    await pushOutput.start();
    assert.equal(h.ctx.services.get('cloud')?.state, 'disabled', 'off until services.cloud.vendor is on');
    assert.equal(h.ctx.config.apply(new Map([['services.cloud.vendor', true]])).ok, true);
    assert.equal(h.ctx.services.get('cloud')?.state, 'running');

    push.tick();
    assert.equal(remote.attempts(), 0, 'nothing is pushed without a fresh reading');
    for (let i = 0; i < 3; i++) {
      h.ctx.store.ingest(syntheticReading(h.clock.now(), i));
      h.clock.advance(1000);
      push.tick();
    }
    await waitFor('retries', remote.attempts, (attempts) => attempts >= 2);
    const target = () =>
      (
        h.ctx.services.get('cloud')?.targets as Record<
          string,
          { failed: number; backlog: number; sent: number }
        >
      ).vendor!;
    assert.ok(target().failed >= 1);
    assert.equal(target().backlog, 3, 'nothing lost while failing');

    remote.mode.value = 'ok';
    // The endpoint has a report before the pusher has read its 204: wait for both sides.
    await waitFor(
      'delivery after recovery',
      () => ({ received: remote.received.length, sent: target().sent }),
      (seen) => seen.received === 3 && seen.sent === 3,
    );
    assert.deepEqual(
      remote.received.map((r) => r.report.id),
      [1, 2, 3],
      'in order, each once',
    );
    assert.equal(target().backlog, 0);
    assert.equal(target().sent, 3);
  } finally {
    await pushOutput.stop();
    await h.close();
    await remote.close();
  }
});

test('a hanging endpoint times out and the backlog stays bounded', async () => {
  const remote = await endpoint();
  remote.mode.value = 'hang';
  const h = await startHttpContext({
    env: { METER_GATEWAY_CLOUD_PARTNER_A_URL: remote.url, METER_GATEWAY_SERVICES_CLOUD_PARTNER_A: 'true' },
  });
  const push = new CloudPush(h.ctx, h.ctx.logger, 200);
  const pushOutput = runOutput(h.ctx, push);
  try {
    await pushOutput.start();
    h.ctx.store.ingest(syntheticReading(h.clock.now()));
    for (let i = 0; i < 130; i++) push.tick();
    const status = () =>
      (
        h.ctx.services.get('cloud')?.targets as Record<
          string,
          { dropped: number; backlog: number; failed: number; error?: string }
        >
      ).partner_a!;
    assert.equal(status().backlog, 120);
    assert.equal(status().dropped, 10, 'oldest reports dropped and counted');
    await waitFor('the request timeout', status, (seen) => seen.failed >= 1);
    assert.match(status().error ?? '', /timeout/i);
    assert.equal(status().backlog, 120, 'a timed-out report stays queued');
  } finally {
    await pushOutput.stop();
    await h.close();
    await remote.close();
  }
});
