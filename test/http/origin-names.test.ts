import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerWebRoutes } from '../../src/web/routes.js';
import { loadStaticAssets } from '../../src/web/static-assets.js';
import { ConfigStore } from '../../src/config/config-store.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';

// The page of the device at whatever name the user typed, against the two attacks of
// docs/architecture.md#cross-site-requests: a cross-site page (CSRF) and a rebinding page.

interface Reply {
  status: number;
  body: string;
}

function ask(
  h: HttpTestContext,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port: h.port, method, path, headers, agent: false },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const json = { 'Content-Type': 'application/json' };

async function withServer(
  env: Record<string, string>,
  fn: (h: HttpTestContext) => Promise<void>,
): Promise<void> {
  const h = await startHttpContext({
    env: { METER_GATEWAY_HTTP_HOST: '0.0.0.0', ...env },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      registerWebRoutes(router, ctx, loadStaticAssets());
    },
  });
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

/** The headers a browser sends for a write from a page at `authority` to the same address. */
function pageAt(authority: string): Record<string, string> {
  return { ...json, Origin: `http://${authority}`, Host: authority, 'Sec-Fetch-Site': 'same-origin' };
}

function rename(h: HttpTestContext, headers: Record<string, string>, name: string): Promise<Reply> {
  return ask(h, 'PUT', '/api/v1/settings', headers, JSON.stringify({ system: { name } }));
}

test('the page at a name the daemon was never told writes, when no outsider can rebind that name', () =>
  withServer({}, async (h) => {
    const names = [
      'raspberrypi.local',
      'nas',
      'docker-host.lan',
      'meter.home.arpa',
      '192.0.2.7',
      '[fd00::7]',
    ];
    for (const [index, name] of names.entries()) {
      for (const authority of [name, `${name}:${h.port}`]) {
        const reply = await rename(h, pageAt(authority), `n${index}`);
        assert.equal(reply.status, 200, `${authority}: ${reply.body}`);
        assert.equal(h.ctx.config.config.system.name, `n${index}`);
        const read = await ask(h, 'GET', '/api/v1/settings', {
          Host: authority,
          'Sec-Fetch-Site': 'same-origin',
        });
        assert.equal(read.status, 200, authority);
      }
    }
  }));

test('a rebinding page (its own public name in Host and Origin) neither writes nor reads the API', () =>
  withServer({}, async (h) => {
    const rebound = `attacker.example:${h.port}`;
    const write = await rename(h, pageAt(rebound), 'rebound');
    assert.equal(write.status, 404);
    // The same page adding the headers of a proxy in front of the device.
    const proxied = await rename(
      h,
      { ...pageAt(rebound), 'X-Forwarded-Host': rebound, 'X-Ingress-Path': '/api/hassio_ingress/x' },
      'rebound',
    );
    assert.equal(proxied.status, 404);
    assert.equal(h.ctx.config.config.system.name, 'meter-gateway', 'no write went through');
    // Its same-origin reads carry no Origin, only the fetch metadata.
    for (const path of ['/api/v1/report', '/api/v1/settings', '/api/v1/system']) {
      const read = await ask(h, 'GET', path, { Host: rebound, 'Sec-Fetch-Site': 'same-origin' });
      assert.equal(read.status, 404, path);
      const body = JSON.parse(read.body) as { error: string; details: Record<string, unknown> };
      assert.equal(body.error, 'not_found');
      assert.equal(body.details.address, rebound);
      assert.equal(body.details.setting, 'http.allowed_hosts');
    }
    // A header of a proxy that the page adds itself names no other page.
    const disguised = await ask(h, 'GET', '/api/v1/settings', {
      Host: rebound,
      'X-Forwarded-Host': 'nas',
      'Sec-Fetch-Site': 'same-origin',
    });
    assert.equal(disguised.status, 404);
    // The files of the interface are not secret and open at any name.
    for (const path of ['/', '/app.js', '/style.css']) {
      const file = await ask(h, 'GET', path, { Host: rebound, Origin: `http://${rebound}` });
      assert.equal(file.status, 200, path);
    }
    // Clients that are no browser (curl, Home Assistant, evcc) send no fetch metadata.
    assert.equal((await ask(h, 'GET', '/api/v1/system', { Host: rebound })).status, 200);
  }));

test('a cross-site page cannot write through a visitor at any name of the device', () =>
  withServer({}, async (h) => {
    for (const authority of [
      'raspberrypi.local',
      `127.0.0.1:${h.port}`,
      'nas',
      `meter-gateway.local:${h.port}`,
    ]) {
      for (const origin of [
        'http://attacker.example',
        'http://printer.local',
        `http://other.lan:${h.port}`,
      ]) {
        const reply = await rename(
          h,
          { ...json, Origin: origin, Host: authority, 'Sec-Fetch-Site': 'cross-site' },
          'x',
        );
        assert.equal(reply.status, 404, `${origin} to ${authority}`);
      }
    }
    assert.equal(h.ctx.config.config.system.name, 'meter-gateway');
    // The interface's files open from a link on another site; its scripts load with the page's Origin.
    const page = await ask(h, 'GET', '/', { Host: 'raspberrypi.local', 'Sec-Fetch-Site': 'cross-site' });
    assert.equal(page.status, 200);
    const script = await ask(h, 'GET', '/app.js', {
      Host: 'raspberrypi.local',
      Origin: 'http://raspberrypi.local',
      'Sec-Fetch-Site': 'same-origin',
    });
    assert.equal(script.status, 200);
  }));

test('http.allowed_hosts admits a public name and a reverse proxy that rewrites Host', () =>
  withServer({ METER_GATEWAY_HTTP_ALLOWED_HOSTS: 'meter.example.net, proxy.example.org:8443' }, async (h) => {
    assert.equal((await rename(h, pageAt('meter.example.net'), 'a')).status, 200);
    assert.equal((await rename(h, pageAt(`meter.example.net:${h.port}`), 'b')).status, 200);
    // A proxy that passes its own name on as X-Forwarded-Host and one that does not.
    const upstream = `127.0.0.1:${h.port}`;
    const viaForwarded = await rename(
      h,
      { ...json, Origin: 'http://shop-proxy.lan', Host: upstream, 'X-Forwarded-Host': 'shop-proxy.lan' },
      'c',
    );
    assert.equal(viaForwarded.status, 200, viaForwarded.body);
    const rewritten = await rename(
      h,
      { ...json, Origin: 'https://proxy.example.org:8443', Host: upstream },
      'd',
    );
    assert.equal(rewritten.status, 200, rewritten.body);
    assert.equal(h.ctx.config.config.system.name, 'd');
    // Only the listed port, and no other public name.
    assert.equal(
      (await rename(h, { ...json, Origin: 'https://proxy.example.org', Host: upstream }, 'e')).status,
      404,
    );
    assert.equal((await rename(h, pageAt('other.example.net'), 'f')).status, 404);
    const refused = JSON.parse((await rename(h, pageAt('other.example.net'), 'f')).body) as {
      message: string;
    };
    assert.match(refused.message, /other\.example\.net/);
    assert.match(refused.message, /METER_GATEWAY_HTTP_ALLOWED_HOSTS/);
  }));

test('http.allowed_hosts takes only names, addresses and ports', () => {
  const load = (value: string) =>
    ConfigStore.load({ env: { METER_GATEWAY_HTTP_ALLOWED_HOSTS: value }, stateDir: tempDir('mg-origin-') });
  assert.equal(load('a.example, [fd00::1]:80,b:1').config.http.allowed_hosts, 'a.example, [fd00::1]:80,b:1');
  for (const bad of ['http://a.example', 'a.example/path', 'a b', 'a,,b']) {
    assert.throws(() => load(bad), /http\.allowed_hosts/, bad);
  }
});

test('behind the trusted ingress proxy a public Home Assistant name (remote access) may write', () =>
  withServer(
    { METER_GATEWAY_ADDON_ENABLE: 'true', METER_GATEWAY_ADDON_INGRESS_PROXY: '127.0.0.1' },
    async (h) => {
      const ingress = {
        ...json,
        Origin: 'https://abc123.ui.nabu.casa',
        'X-Ingress-Path': '/api/hassio_ingress/token',
        'X-Forwarded-Host': 'abc123.ui.nabu.casa',
        'X-Forwarded-Proto': 'https',
      };
      const reply = await rename(h, ingress, 'remote');
      assert.equal(reply.status, 200, reply.body);
      assert.equal(h.ctx.config.config.system.name, 'remote');
    },
  ));

test('a WebSocket upgrade from a foreign or rebinding page is refused; from the own page and apps it is taken', async () => {
  const { WebSocketServer, WebSocket } = await import('ws');
  const sockets = new WebSocketServer({ noServer: true });
  const h = await startHttpContext({
    env: { METER_GATEWAY_HTTP_HOST: '0.0.0.0' },
    server: {
      upgrades: {
        handles: () => true,
        upgrade: (request, socket, head) =>
          sockets.handleUpgrade(request, socket, head, (client) => client.close(1000, 'taken')),
        close: () => sockets.close(),
      },
    },
    routes: (router, ctx) => registerCoreRoutes(router, ctx),
  });
  try {
    const open = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const client = new WebSocket(`ws://127.0.0.1:${h.port}/rpc`, { headers });
        client.on('unexpected-response', (_request, response) => {
          resolve(response.statusCode ?? 0);
          client.terminate();
        });
        client.on('close', () => resolve(101));
        client.on('error', () => resolve(-1));
      });
    assert.equal(await open({ Origin: 'http://attacker.example' }), 404);
    assert.equal(
      await open({ Origin: `http://attacker.example:${h.port}`, Host: `attacker.example:${h.port}` }),
      404,
    );
    assert.equal(await open({ Origin: `http://127.0.0.1:${h.port}` }), 101);
    assert.equal(await open({}), 101);
  } finally {
    await h.close();
  }
});
