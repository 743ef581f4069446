import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudPush } from '../../src/device/cloud-push.js';
import { runOutput } from '../../src/output-runner.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';
import { tunnellingProxy } from '../helpers/tunnelling-proxy.js';
import { waitFor } from '../helpers/wait.js';

interface Attempt {
  id: number;
  at: number;
}

/** A loopback endpoint answering each report with what `answer(id, attempt)` says. */
async function endpoint(
  answer: (id: number, attempt: number) => { status: number; headers?: Record<string, string> },
) {
  const attempts: Attempt[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const { id } = (JSON.parse(Buffer.concat(chunks).toString()) as { report: { id: number } }).report;
      attempts.push({ id, at: Date.now() });
      const { status, headers } = answer(id, attempts.filter((a) => a.id === id).length);
      response.writeHead(status, headers).end(status >= 400 ? `{"error":"no ${status}"}` : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/push`,
    attempts,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type TargetStatus = { sent: number; failed: number; rejected: number; backlog: number; error?: string };
const vendor = (h: HttpTestContext) =>
  (h.ctx.services.get('cloud')?.targets as Record<string, TargetStatus>).vendor!;

async function pushing(url: string, env: NodeJS.ProcessEnv = {}) {
  const h = await startHttpContext({
    env: { METER_GATEWAY_CLOUD_VENDOR_URL: url, METER_GATEWAY_SERVICES_CLOUD_VENDOR: 'true' },
  });
  const cloudPush = new CloudPush(h.ctx, h.ctx.logger, 5000, env);
  const running = runOutput(h.ctx, cloudPush);
  await running.start();
  const push = { tick: () => cloudPush.tick(), stop: () => running.stop() };
  /** Queues `count` reports (ids 1..count). */
  const reports = (count: number) => {
    for (let i = 0; i < count; i++) {
      h.ctx.store.ingest(syntheticReading(h.clock.now(), i));
      h.clock.advance(1000);
      push.tick();
    }
  };
  return { h, push, reports };
}

test('a report answered 400 is dropped and counted, and the reports behind it are delivered at once', async () => {
  const remote = await endpoint((id) => ({ status: id === 1 ? 400 : 204 }));
  const { h, push, reports } = await pushing(remote.url);
  try {
    reports(3);
    await waitFor('delivery of the other reports', () => vendor(h).sent === 2);
    assert.deepEqual(
      remote.attempts.map((a) => a.id),
      [1, 2, 3],
      'the rejected report is sent once, the others follow without a retry',
    );
    assert.equal(vendor(h).rejected, 1);
    assert.equal(vendor(h).failed, 0);
    assert.equal(vendor(h).backlog, 0);
    const logged = h.logLines.filter((line) => line.includes('rejected'));
    assert.equal(logged.length, 1);
    assert.match(
      logged[0]!,
      /HTTP 400 Bad Request: \{\\"error\\":\\"no 400\\"\}/,
      'with the start of the answer',
    );
  } finally {
    await push.stop();
    await h.close();
    await remote.close();
  }
});

test('503 with Retry-After: 2 is retried after 2 s', async () => {
  const remote = await endpoint((_id, attempt) =>
    attempt === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 204 },
  );
  const { h, push, reports } = await pushing(remote.url);
  try {
    reports(1);
    await waitFor('the retried delivery', () => vendor(h).sent === 1);
    assert.equal(remote.attempts.length, 2);
    assert.ok(remote.attempts[1]!.at - remote.attempts[0]!.at >= 1900, 'not before the Retry-After');
    assert.equal(vendor(h).failed, 1);
  } finally {
    await push.stop();
    await h.close();
    await remote.close();
  }
});

test('a target that answers 401 to everything: one attempt per report, each counted, logged once', async () => {
  const remote = await endpoint(() => ({ status: 401 }));
  const { h, push, reports } = await pushing(remote.url);
  try {
    reports(5);
    await waitFor('five rejections', () => vendor(h).rejected === 5);
    assert.equal(remote.attempts.length, 5, 'no retries');
    assert.equal(vendor(h).backlog, 0);
    assert.match(vendor(h).error ?? '', /HTTP 401 Unauthorized; report dropped/);
    assert.equal(h.logLines.filter((line) => line.includes('rejected')).length, 1);
  } finally {
    await push.stop();
    await h.close();
    await remote.close();
  }
});

test('HTTP_PROXY is honoured, and NO_PROXY exempts a host', async () => {
  const remote = await endpoint(() => ({ status: 204 }));
  const proxy = await tunnellingProxy();
  const viaProxy = await pushing(remote.url, { HTTP_PROXY: proxy.url, NO_PROXY: 'example.org' });
  try {
    viaProxy.reports(1);
    await waitFor('delivery through the proxy', () => vendor(viaProxy.h).sent === 1);
    assert.deepEqual(proxy.seen, [`CONNECT ${new URL(remote.url).host}`]);
  } finally {
    await viaProxy.push.stop();
    await viaProxy.h.close();
  }
  const direct = await pushing(remote.url, { HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
  try {
    direct.reports(1);
    await waitFor('direct delivery', () => vendor(direct.h).sent === 1);
    assert.equal(proxy.seen.length, 1, 'the proxy saw nothing more');
    assert.equal(remote.attempts.length, 2);
  } finally {
    await direct.push.stop();
    await direct.h.close();
    await proxy.close();
    await remote.close();
  }
});
