import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { requireChromium, requireFullChromium } from '../helpers/browser.js';
import { startDaemonInProcess } from '../helpers/daemon-in-process.js';
import { eventsAbove, setUp, settingsOf, valueWhere } from './page-rig.js';

const PREFIX = '/api/hassio_ingress/k3yT0ken_aBc';

interface IngressProxy {
  url: string;
  /** Paths the proxy forwarded, without the prefix. */
  forwarded: string[];
  /** Requests outside the prefix: absolute URLs the page should not have used. */
  strays: string[];
}

/**
 * A reverse proxy that does what Home Assistant's ingress does for the page: serves the add-on
 * under a path prefix on its own origin, strips the prefix, adds X-Ingress-Path and the forwarding
 * headers, and streams the answers (the live SSE stream included). `/` is a page that shows the
 * add-on in a frame, as the Home Assistant panel does.
 */
async function startIngressProxy(
  t: TestContext,
  target: string,
  /** The address the proxy connects from (the Supervisor's own, where the daemon trusts it). */
  localAddress?: string,
): Promise<IngressProxy> {
  const upstream = new URL(target);
  const forwarded: string[] = [];
  const strays: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><title>Home Assistant</title><link rel="icon" href="data:,"><iframe src="${PREFIX}/" width="1200" height="900"></iframe>`,
      );
      return;
    }
    if (!path.startsWith(`${PREFIX}/`)) {
      strays.push(`${req.method} ${path}`);
      res.writeHead(404).end();
      return;
    }
    const inner = path.slice(PREFIX.length);
    forwarded.push(`${req.method} ${inner}`);
    const headers = { ...req.headers, host: upstream.host };
    const proxied = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        ...(localAddress ? { localAddress } : {}),
        method: req.method,
        path: inner,
        headers: {
          ...headers,
          'x-ingress-path': PREFIX,
          'x-hass-source': 'core.ingress',
          'x-forwarded-for': req.socket.remoteAddress ?? '',
          'x-forwarded-host': req.headers.host ?? '',
          'x-forwarded-proto': 'http',
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    proxied.on('error', () => res.destroy());
    req.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined));
  t.after(() => server.closeAllConnections());
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, forwarded, strays };
}

async function ingressFrame(page: import('playwright-core').Page): Promise<Frame> {
  for (;;) {
    const frame = page.frames().find((candidate) => candidate.url().includes(PREFIX));
    if (frame) return frame;
    await page.waitForEvent('frameattached');
  }
}

test('behind an ingress proxy under a path prefix the page loads in a frame, streams, and saves settings', async (t) => {
  if (!requireChromium(t)) return;
  const { daemon, page, pageErrors } = await setUp(t);
  const proxy = await startIngressProxy(t, daemon.baseUrl);

  const response = await page.goto(`${proxy.url}/`);
  assert.equal(response?.status(), 200);
  const frame = await ingressFrame(page);
  await frame.waitForLoadState('load');
  // Live events arrive through the prefixed stream; the system poll fills the identity.
  await eventsAbove(frame, 2);
  await frame.locator('#meter-status', { hasText: 'OK' }).waitFor();

  // A settings form saves through the prefix too.
  await frame.locator('a[href="#/settings/system"]').first().click();
  const name = frame.locator('#form-system input[name="system.name"]');
  await valueWhere(frame, '#form-system input[name="system.name"]', 'is', 'meter-gateway');
  await name.fill('Ingress meter');
  await frame.locator('#form-system button[type=submit]').click();
  await frame.locator('#form-system .form-status', { hasText: 'Saved.' }).waitFor();
  assert.equal((await settingsOf(daemon.baseUrl)).system.name, 'Ingress meter');

  assert.deepEqual(proxy.strays, [], 'requests outside the ingress prefix');
  for (const path of [
    'GET /',
    'GET /app.js',
    'GET /api/v1/page/stream?parts=live,peak,limiter',
    'GET /api/v1/system',
    'PUT /api/v1/settings',
  ]) {
    assert.ok(proxy.forwarded.includes(path), `${path} not requested through the prefix`);
  }
  assert.deepEqual(pageErrors, []);
});

test('the page may be framed by its own origin behind ingress only', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-ingress-'));
  const daemon = await startDaemonInProcess(stateDir);
  t.after(async () => {
    await daemon.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const direct = await fetch(`${daemon.baseUrl}/`);
  assert.match(direct.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  await direct.body?.cancel();
  const viaIngress = await fetch(`${daemon.baseUrl}/`, { headers: { 'X-Ingress-Path': PREFIX } });
  assert.match(viaIngress.headers.get('content-security-policy') ?? '', /frame-ancestors 'self'/);
  await viaIngress.body?.cancel();
});

test('with protection on, the panel through ingress asks for no password; the same page opened directly is refused with a challenge', async (t) => {
  if (!requireChromium(t) || !requireFullChromium(t)) return;
  // 127.0.0.2 stands in for the Supervisor's address on the add-on network (addon.ingress_proxy).
  // The full browser: the headless shell has no password prompt and shows the 401 body instead.
  const env = {
    METER_GATEWAY_SYSTEM_PROTECTION: 'true',
    METER_GATEWAY_SYSTEM_PASSWORD: 'panel-secret',
    METER_GATEWAY_ADDON_ENABLE: 'true',
    METER_GATEWAY_ADDON_INGRESS_PROXY: '127.0.0.2',
  };
  const { daemon, page, pageErrors } = await setUp(t, env, undefined, undefined, { fullChromium: true });
  const proxy = await startIngressProxy(t, daemon.baseUrl, '127.0.0.2');
  const challenges: string[] = [];
  page.on('response', (answer) => {
    if (answer.status() === 401) challenges.push(answer.url());
  });

  assert.equal((await page.goto(`${proxy.url}/`))?.status(), 200);
  const frame = await ingressFrame(page);
  await frame.waitForLoadState('load');
  await eventsAbove(frame, 2);
  assert.deepEqual(challenges, [], 'no request through ingress was asked for a password');
  assert.ok(proxy.forwarded.includes('GET /api/v1/system'));

  // Opened directly (not from the Supervisor's address), the daemon asks for its password: the
  // browser meets the challenge with no credentials to give (headless Chromium's failed prompt).
  await assert.rejects(page.goto(`${daemon.baseUrl}/`), /ERR_INVALID_AUTH_CREDENTIALS/);
  const direct = await fetch(`${daemon.baseUrl}/api/v1/system`);
  assert.equal(direct.status, 401);
  assert.match(String(direct.headers.get('www-authenticate')), /^(Digest|Basic) /);
  // Forged ingress headers from another address change nothing.
  const forged = await fetch(`${daemon.baseUrl}/api/v1/system`, {
    headers: { 'X-Ingress-Path': PREFIX, 'X-Remote-User-Id': 'admin' },
  });
  assert.equal(forged.status, 401);
  assert.deepEqual(pageErrors, []);
});
