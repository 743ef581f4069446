import { after, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { requireChromium } from '../helpers/browser.js';
import { startDaemonInProcess, type InProcessDaemon } from '../helpers/daemon-in-process.js';
import { launchMappedBrowser, seeRefusal, useEveryPageAt } from './addresses-check.js';
import { settingsOf } from './page-rig.js';

// The interface opens wherever a user types its address (docs/architecture.md#cross-site-requests):
// the daemon as the README's quick start runs it (every address), the browser at loopback names,
// at the machine's host name, at a name the daemon was never told, and behind reverse proxies
// under a path prefix. Chromium maps the names to 127.0.0.1 itself: nothing leaves loopback.

const OWN_HOST = hostname().toLowerCase();
const NAMES = ['raspberrypi.local', OWN_HOST, 'meter.example.test', 'proxy.example.net'];

/**
 * The file's one Chromium, with every name of NAMES mapped: launched by the first test that needs
 * it, closed after the file's last test. Each check opens a browser context of its own in it
 * (addresses-check.ts), which shares no cookies, storage or cache with the others'.
 */
let browserLaunch: Promise<Browser> | undefined;
function mappedBrowser(): Promise<Browser> {
  browserLaunch ??= launchMappedBrowser(NAMES);
  return browserLaunch;
}

/**
 * The daemon as the README's quick start runs it (every address, nothing configured), shared by the
 * tests that configure nothing; stopped after the file's last test.
 */
let quickStart: Promise<{ daemon: InProcessDaemon; stateDir: string }> | undefined;
function quickStartDaemon(): Promise<InProcessDaemon> {
  quickStart ??= (async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'mg-addresses-'));
    return { daemon: await startDaemonInProcess(stateDir, { METER_GATEWAY_HTTP_HOST: '0.0.0.0' }), stateDir };
  })();
  return quickStart.then(({ daemon }) => daemon);
}

after(async () => {
  const [browser, shared] = await Promise.all([
    browserLaunch?.catch(() => undefined),
    quickStart?.catch(() => undefined),
  ]);
  await browser?.close();
  if (shared) {
    await shared.daemon.stop();
    rmSync(shared.stateDir, { recursive: true, force: true });
  }
});

/** A daemon of the test's own with `env` (every address), and the file's browser. */
async function rig(
  t: TestContext,
  env: Record<string, string>,
): Promise<{ daemon: InProcessDaemon; browser: Browser }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-addresses-'));
  const daemon = await startDaemonInProcess(stateDir, { METER_GATEWAY_HTTP_HOST: '0.0.0.0', ...env });
  t.after(async () => {
    await daemon.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  return { daemon, browser: await mappedBrowser() };
}

/** The quick-start daemon, the file's browser, and the port the daemon listens on. */
async function quickStartRig(): Promise<{ daemon: InProcessDaemon; browser: Browser; port: number }> {
  const daemon = await quickStartDaemon();
  const browser = await mappedBrowser();
  return { daemon, browser, port: Number(new URL(daemon.baseUrl).port) };
}

// Before the test that saves names on the same daemon: nothing has been written to it yet.
test(
  'at a public name the daemon does not know the page names the address and the setting that allows it',
  { timeout: 300_000 },
  async (t) => {
    if (!requireChromium(t)) return;
    const { daemon, browser, port } = await quickStartRig();
    await seeRefusal(browser, `http://meter.example.test:${port}/`, `meter.example.test:${port}`);
    assert.equal((await settingsOf(daemon.baseUrl)).system.name, 'meter-gateway', 'nothing was written');
  },
);

test(
  'the interface works at localhost, 127.0.0.1, the host name and a name the daemon was never told',
  { timeout: 300_000 },
  async (t) => {
    if (!requireChromium(t)) return;
    const { daemon, browser, port } = await quickStartRig();
    const hosts = ['localhost', '127.0.0.1', OWN_HOST, 'raspberrypi.local'];
    await useEveryPageAt(
      browser,
      hosts.map((host, index) => ({ url: `http://${host}:${port}/`, name: `Meter ${index}` })),
      async ({ url, name }) => assert.equal((await settingsOf(daemon.baseUrl)).system.name, name, url),
    );
  },
);

/**
 * A reverse proxy serving the interface under /meter/ on its own port: it strips the prefix and
 * passes the request on with the upstream's Host. `forwardHost` adds X-Forwarded-Host and
 * X-Forwarded-Proto (Caddy and Traefik do by default); without it the proxy passes nothing on
 * (nginx's proxy_pass without proxy_set_header).
 */
async function startPathProxy(t: TestContext, target: string, forwardHost: boolean): Promise<number> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (!path.startsWith('/meter/')) {
      res.writeHead(404).end();
      return;
    }
    const headers = { ...req.headers, host: upstream.host };
    if (forwardHost)
      Object.assign(headers, { 'x-forwarded-host': req.headers.host ?? '', 'x-forwarded-proto': 'http' });
    const proxied = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: path.slice('/meter'.length),
        headers,
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
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  t.after(() => server.closeAllConnections());
  return (server.address() as { port: number }).port;
}

test(
  'behind a reverse proxy under a path prefix, with X-Forwarded-Host or with the proxy in http.allowed_hosts',
  { timeout: 300_000 },
  async (t) => {
    if (!requireChromium(t)) return;
    const { daemon, browser } = await rig(t, { METER_GATEWAY_HTTP_ALLOWED_HOSTS: 'proxy.example.net' });
    const forwarding = await startPathProxy(t, daemon.baseUrl, true);
    const plain = await startPathProxy(t, daemon.baseUrl, false);
    await useEveryPageAt(
      browser,
      [
        { url: `http://127.0.0.1:${forwarding}/meter/`, name: 'Forwarded meter' },
        { url: `http://proxy.example.net:${plain}/meter/`, name: 'Proxied meter' },
      ],
      async ({ name }) => assert.equal((await settingsOf(daemon.baseUrl)).system.name, name),
    );
    // The same proxy at an address nobody listed: the page says what to allow.
    await seeRefusal(browser, `http://127.0.0.1:${plain}/meter/`, `127.0.0.1:${plain}`);
  },
);
