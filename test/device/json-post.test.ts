import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { postJson } from '../../src/device/json-post.js';

/** A loopback server answering with `status` (or never, for 0), recording what it received. */
async function server(status: number): Promise<{
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
      if (status > 0) response.writeHead(status).end('answer');
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

const options = { timeoutMs: 300, userAgent: 'meter-gateway/1.2.3' };

test('postJson: the body as JSON with the user agent and Basic auth from the URL; 2xx resolves', async () => {
  const peer = await server(204);
  try {
    await postJson(peer.url, Buffer.from('{"a":1}'), options);
    const [request] = peer.received;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.body, '{"a":1}');
    assert.equal(request?.headers['content-type'], 'application/json');
    assert.equal(request?.headers['user-agent'], 'meter-gateway/1.2.3');
    assert.equal(request?.headers.authorization, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
  } finally {
    await peer.close();
  }
});

test('postJson: other statuses, silence, refused connections and bad URLs reject with the reason', async () => {
  const failing = await server(503);
  await assert.rejects(
    postJson(failing.url, Buffer.from('{}'), options),
    /^Error: HTTP 503 Service Unavailable$/,
  );
  await failing.close();
  const silent = await server(0);
  await assert.rejects(postJson(silent.url, Buffer.from('{}'), options), /timeout after 300 ms/);
  await silent.close();
  await assert.rejects(postJson(silent.url, Buffer.from('{}'), options), /ECONNREFUSED/);
  await assert.rejects(postJson('not a url', Buffer.from('{}'), options), /invalid URL/);
  await assert.rejects(
    postJson('ftp://127.0.0.1/x', Buffer.from('{}'), options),
    /unsupported URL scheme ftp:/,
  );
});
