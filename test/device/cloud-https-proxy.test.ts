import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemonProcess, type ListeningDaemon } from '../helpers/daemon-process.js';
import { requireCommand } from '../helpers/environment.js';
import { tunnellingProxy } from '../helpers/tunnelling-proxy.js';
import { waitFor } from '../helpers/wait.js';
import { createTestPki } from '../mqtt/test-certificates.js';

/**
 * Cloud push to an https:// target through HTTPS_PROXY, in the daemon as the service runs it: the
 * target's certificate (for IP 127.0.0.1, signed by a CA made by openssl here) is trusted only
 * through NODE_EXTRA_CA_CERTS, which Node reads at process start.
 */

/** A loopback https endpoint recording the path and the report id of every POST. */
async function httpsEndpoint(cert: string, key: string) {
  const posts: string[] = [];
  const server = createHttpsServer({ cert, key }, (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { report?: { id?: number } };
      posts.push(`${request.method} ${request.url} report ${typeof body.report?.id}`);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/push`,
    host: `127.0.0.1:${port}`,
    posts,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The daemon pushing the simulator's report to `url` every second, with `env` for proxy and trust. */
async function pushingDaemon(
  t: TestContext,
  url: string,
  env: Record<string, string>,
): Promise<ListeningDaemon> {
  const state = mkdtempSync(join(tmpdir(), 'meter-gateway-cloud-https-'));
  const daemon = await startDaemonProcess(state, {
    METER_GATEWAY_SERVICES_CLOUD_VENDOR: 'true',
    METER_GATEWAY_CLOUD_VENDOR_URL: url,
    METER_GATEWAY_SERVICES_REPORT_INTERVAL: '1',
    // Both spellings, so that a proxy setting of the machine running the tests cannot interfere.
    HTTP_PROXY: '',
    http_proxy: '',
    ...env,
  });
  t.after(async () => {
    await daemon.stop();
    rmSync(state, { recursive: true, force: true });
  });
  return daemon;
}

const proxyEnv = (proxy: string, noProxy: string) => ({
  HTTPS_PROXY: proxy,
  https_proxy: proxy,
  NO_PROXY: noProxy,
  no_proxy: noProxy,
});

test('HTTPS_PROXY: an https target is reached through a CONNECT tunnel, its CA trusted through NODE_EXTRA_CA_CERTS', async (t) => {
  if (!requireCommand(t, 'openssl')) return;
  const pki = mkdtempSync(join(tmpdir(), 'meter-gateway-pki-'));
  t.after(() => rmSync(pki, { recursive: true, force: true }));
  const { caFile, serverCertFile, serverKeyFile } = createTestPki(pki);
  const target = await httpsEndpoint(
    readFileSync(serverCertFile, 'utf8'),
    readFileSync(serverKeyFile, 'utf8'),
  );
  t.after(() => target.close());
  const proxy = await tunnellingProxy();
  t.after(() => proxy.close());

  const daemon = await pushingDaemon(t, target.url, {
    ...proxyEnv(proxy.url, 'example.org'),
    NODE_EXTRA_CA_CERTS: caFile,
  });
  await waitFor(
    'a report delivered through the proxy',
    () => target.posts.length,
    (n) => n >= 2,
  );
  assert.equal(target.posts[0], 'POST /push report number');
  assert.ok(proxy.seen.length >= 1);
  assert.ok(
    proxy.seen.every((line) => line === `CONNECT ${target.host}`),
    proxy.seen.join(', '),
  );
  await daemon.stop();

  // NO_PROXY names the target: the same push goes direct, the proxy sees nothing more.
  const tunnels = proxy.seen.length;
  const before = target.posts.length;
  await pushingDaemon(t, target.url, {
    ...proxyEnv(proxy.url, 'example.org,127.0.0.1'),
    NODE_EXTRA_CA_CERTS: caFile,
  });
  await waitFor(
    'a report delivered direct',
    () => target.posts.length,
    (n) => n >= before + 2,
  );
  assert.equal(proxy.seen.length, tunnels, 'no tunnel for a host in NO_PROXY');
});

test('an https target whose CA is not trusted gets no report, through the proxy or not', async (t) => {
  if (!requireCommand(t, 'openssl')) return;
  const pki = mkdtempSync(join(tmpdir(), 'meter-gateway-pki-'));
  t.after(() => rmSync(pki, { recursive: true, force: true }));
  const { serverCertFile, serverKeyFile } = createTestPki(pki);
  const target = await httpsEndpoint(
    readFileSync(serverCertFile, 'utf8'),
    readFileSync(serverKeyFile, 'utf8'),
  );
  t.after(() => target.close());
  const proxy = await tunnellingProxy();
  t.after(() => proxy.close());

  const daemon = await pushingDaemon(t, target.url, proxyEnv(proxy.url, ''));
  // The tunnel is opened, then the TLS handshake fails on the unknown CA: logged, nothing posted.
  await waitFor('the push to fail on the certificate', daemon.output, (output) =>
    /cloud[^\n]*(certificate|self.signed|issuer)/i.test(output),
  );
  assert.ok(proxy.seen.length >= 1, 'the tunnel was asked for');
  assert.deepEqual(target.posts, []);
});
