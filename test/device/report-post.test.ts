import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { postReport, retryAfter } from '../../src/device/report-post.js';

/** A loopback server answering with `status` (or never, for 0), recording what it received. */
async function server(
  status: number,
  headers: Record<string, string> = {},
): Promise<{
  url: string;
  received: Array<{ method: string; headers: IncomingHttpHeaders; body: string }>;
  close: () => Promise<void>;
}> {
  const received: Array<{ method: string; headers: IncomingHttpHeaders; body: string }> = [];
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (status > 0) response.writeHead(status, headers).end(`answer ${'y'.repeat(300)}`);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    url: `http://user:p%40ss@127.0.0.1:${port}/push`,
    received,
    close: () => {
      http.closeAllConnections();
      return new Promise((resolve) => http.close(() => resolve()));
    },
  };
}

const options = { timeoutMs: 300, userAgent: 'meter-gateway/1.2.3', agents: {} };

test('postReport: the body as JSON with the user agent and Basic auth from the URL; 2xx is sent', async () => {
  const peer = await server(204);
  try {
    assert.deepEqual(await postReport(peer.url, Buffer.from('{"a":1}'), options), { kind: 'sent' });
    const [request] = peer.received;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.body, '{"a":1}');
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.equal(request?.headers['user-agent'], 'meter-gateway/1.2.3');
    assert.equal(request?.headers.authorization, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    assert.equal(peer.received.length, 1, 'got retries nothing itself');
  } finally {
    await peer.close();
  }
});

test('postReport: 5xx, 408, 429, silence and refused connections are for a retry; other answers reject', async () => {
  const failing = await server(503, { 'retry-after': '7' });
  assert.deepEqual(await postReport(failing.url, Buffer.from('{}'), options), {
    kind: 'retry',
    reason: 'HTTP 503 Service Unavailable',
    retryAfterMs: 7000,
  });
  assert.equal(failing.received.length, 1);
  await failing.close();
  for (const status of [408, 429, 500]) {
    const peer = await server(status);
    assert.equal((await postReport(peer.url, Buffer.from('{}'), options)).kind, 'retry', String(status));
    await peer.close();
  }
  for (const status of [400, 401, 404, 301]) {
    const peer = await server(status);
    const outcome = await postReport(peer.url, Buffer.from('{}'), options);
    assert.equal(outcome.kind, 'rejected', String(status));
    assert.equal(
      outcome.kind === 'rejected' ? outcome.answer : '',
      `answer ${'y'.repeat(193)}`,
      'the start of the answer',
    );
    await peer.close();
  }
  const silent = await server(0);
  assert.deepEqual(await postReport(silent.url, Buffer.from('{}'), options), {
    kind: 'retry',
    reason: 'timeout after 300 ms',
    timedOut: true,
  });
  await silent.close();
  const refused = await postReport(silent.url, Buffer.from('{}'), options);
  assert.equal(refused.kind, 'retry');
  assert.match(refused.kind === 'retry' ? refused.reason : '', /ECONNREFUSED/);
  assert.match(
    JSON.stringify(await postReport('not a url', Buffer.from('{}'), options)),
    /rejected.*invalid URL/,
  );
  assert.match(
    JSON.stringify(await postReport('ftp://127.0.0.1/x', Buffer.from('{}'), options)),
    /rejected.*unsupported URL scheme ftp:/,
  );
});

test('Retry-After: seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored', () => {
  const now = () => Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfter('2', now), 2000);
  assert.equal(retryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
  assert.equal(retryAfter('Wed, 31 Dec 2025 00:00:30 GMT', now), 0);
  assert.equal(retryAfter('soon', now), undefined);
  assert.equal(retryAfter(undefined, now), undefined);
});
