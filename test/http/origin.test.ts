import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { networkInterfaces } from 'node:os';
import { registerCoreRoutes } from '../../src/http/server.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';

interface Head {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request; for the live stream only the status line and headers are read (the stream then
 * closes), for the others the whole body.
 */
function ask(
  h: HttpTestContext,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Head> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port: h.port, method, path, headers, agent: false },
      (response) => {
        if (path === '/api/v1/live' && response.statusCode === 200) {
          resolve({ status: 200, headers: response.headers, body: '' });
          response.destroy();
          return;
        }
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const json = { 'Content-Type': 'application/json' };
const REQUESTS: [method: string, path: string, headers: Record<string, string>, body?: string][] = [
  ['GET', '/api/v1/system', {}],
  ['GET', '/api/v1/live', {}],
  ['PUT', '/api/v1/settings', json, JSON.stringify({ system: { name: 'changed' } })],
  // POST replaces every setting: the host name is sent along so the own names stay what they are.
  [
    'POST',
    '/api/v1/settings',
    json,
    JSON.stringify({ system: { name: 'changed', host_name: 'meter-gateway' } }),
  ],
];

function corsHeaders(headers: IncomingHttpHeaders): string[] {
  return Object.keys(headers).filter((name) => name.startsWith('access-control-'));
}

async function withServer(fn: (h: HttpTestContext) => Promise<void>): Promise<void> {
  const h = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx) });
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

test('a foreign Origin gets 404 without CORS headers on GET, PUT, POST and the live stream; nothing changes', () =>
  withServer(async (h) => {
    const foreign = [
      'http://evil.example',
      `http://127.0.0.2:${h.port}`,
      `http://meter-gateway.evil.example:${h.port}`,
      'null',
      'file://',
    ];
    for (const origin of foreign) {
      for (const [method, path, headers, body] of REQUESTS) {
        const reply = await ask(h, method, path, { ...headers, Origin: origin }, body);
        assert.equal(reply.status, 404, `${method} ${path} from ${origin}`);
        assert.deepEqual(corsHeaders(reply.headers), [], `${method} ${path} from ${origin}`);
      }
    }
    // A preflight gets the same answer, so a page cannot send what needs one.
    const preflight = await ask(h, 'OPTIONS', '/api/v1/settings', {
      Origin: 'http://evil.example',
      'Access-Control-Request-Method': 'PUT',
    });
    assert.equal(preflight.status, 404);
    assert.equal(h.ctx.config.config.system.name, 'meter-gateway', 'no write went through');
  }));

test('a cross-site form post is refused, with or without an Origin header', () =>
  withServer(async (h) => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const withOrigin = await ask(
      h,
      'POST',
      '/api/v1/settings',
      { ...form, Origin: 'http://lan-page.example' },
      'a=1',
    );
    assert.equal(withOrigin.status, 404);
    const hidden = await ask(
      h,
      'POST',
      '/api/v1/settings',
      { ...form, 'Sec-Fetch-Site': 'cross-site' },
      'a=1',
    );
    assert.equal(hidden.status, 404);
    // A link from another site to a page of the device (a safe method) still opens it.
    const navigation = await ask(h, 'GET', '/api/v1/system', { 'Sec-Fetch-Site': 'cross-site' });
    assert.equal(navigation.status, 200);
  }));

test('the own origin (address, localhost, host name, .local name), the ingress origin and no Origin get 200', () =>
  withServer(async (h) => {
    // Origin and the Host header as a browser sends them for a page of the device at that address.
    const own: [origin: string | undefined, host?: string][] = [
      [undefined],
      [`http://127.0.0.1:${h.port}`],
      [`http://localhost:${h.port}`, `localhost:${h.port}`],
      ['http://meter-gateway', 'meter-gateway'],
      ['http://meter-gateway.local', 'meter-gateway.local'],
      ['http://METER-GATEWAY.local.', 'METER-GATEWAY.local.'],
      [`http://meter-gateway.local:${h.port}`, `meter-gateway.local:${h.port}`],
    ];
    for (const [origin, host] of own) {
      for (const [method, path, headers, body] of REQUESTS) {
        const sent = { ...headers, ...(origin ? { Origin: origin } : {}), ...(host ? { Host: host } : {}) };
        const reply = await ask(h, method, path, sent, body);
        assert.equal(reply.status, 200, `${method} ${path} from ${origin ?? 'no origin'}: ${reply.body}`);
        assert.deepEqual(corsHeaders(reply.headers), []);
      }
    }
    const sameSite = await ask(
      h,
      'PUT',
      '/api/v1/settings',
      { ...json, 'Sec-Fetch-Site': 'same-origin', Origin: `http://127.0.0.1:${h.port}` },
      '{}',
    );
    assert.equal(sameSite.status, 200);
    // Behind Home Assistant's ingress the browser's origin is the Home Assistant host.
    const ingress = {
      Origin: 'http://homeassistant.lan:8123',
      'X-Ingress-Path': '/api/hassio_ingress/token',
      'X-Forwarded-Host': 'homeassistant.lan:8123',
    };
    for (const [method, path, headers, body] of REQUESTS) {
      const reply = await ask(h, method, path, { ...headers, ...ingress }, body);
      assert.equal(reply.status, 200, `${method} ${path} through ingress`);
    }
    const spoofed = await ask(h, 'GET', '/api/v1/system', {
      ...ingress,
      'X-Forwarded-Host': 'other.lan:8123',
    });
    assert.equal(spoofed.status, 404, 'the ingress origin is the forwarded host only');
  }));

test('with a changed host name the new name and its .local name are the own origin', () =>
  withServer(async (h) => {
    assert.equal(h.ctx.config.apply(new Map([['system.host_name', 'kitchen-meter']])).ok, true);
    const at = (name: string) => ({ Origin: `http://${name}:${h.port}`, Host: `${name}:${h.port}` });
    assert.equal((await ask(h, 'GET', '/api/v1/system', at('kitchen-meter.local'))).status, 200);
    assert.equal((await ask(h, 'GET', '/api/v1/system', at('kitchen-meter'))).status, 200);
    // A public DNS name is no name of the device, whatever its first label.
    assert.equal((await ask(h, 'GET', '/api/v1/system', at('kitchen-meter.example.net'))).status, 404);
  }));

test('an own host name on another port or scheme is foreign: the Origin must be the address the request came in on', () =>
  withServer(async (h) => {
    const put = (headers: Record<string, string>) =>
      ask(
        h,
        'PUT',
        '/api/v1/settings',
        { ...json, ...headers },
        JSON.stringify({ system: { name: 'changed' } }),
      );
    const foreign: Record<string, string>[] = [
      { Origin: 'http://localhost:3000' },
      { Origin: 'http://127.0.0.1:3000' },
      { Origin: `https://127.0.0.1:${h.port}` },
      { Origin: 'http://meter-gateway.local:3000', Host: `meter-gateway.local:${h.port}` },
      { Origin: 'http://meter-gateway.local', Host: `meter-gateway.local:${h.port}` },
      { Origin: `http://meter-gateway.local:${h.port}`, Host: 'meter-gateway.local' },
    ];
    for (const headers of foreign) {
      const reply = await put(headers);
      assert.equal(reply.status, 404, JSON.stringify(headers));
    }
    assert.equal(h.ctx.config.config.system.name, 'meter-gateway', 'no write went through');
    // Behind a proxy that terminates TLS the page's scheme is https, and the proxy says so.
    const proxied = await put({
      Origin: 'https://meter-gateway.local',
      Host: 'meter-gateway.local',
      'X-Forwarded-Proto': 'https',
    });
    assert.equal(proxied.status, 200, proxied.body);
  }));

test('a loopback page on another port is foreign while the daemon listens on every address', async () => {
  const h = await startHttpContext({
    env: { METER_GATEWAY_HTTP_HOST: '0.0.0.0' },
    routes: (router, ctx) => registerCoreRoutes(router, ctx),
  });
  try {
    const put = (headers: Record<string, string>) =>
      ask(h, 'PUT', '/api/v1/settings', { ...json, ...headers }, '{}');
    // Another program of the machine (a development server) serves pages on loopback names too.
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://app.localhost:3000']) {
      for (const host of [`localhost:${h.port}`, `127.0.0.1:${h.port}`, `meter-gateway:${h.port}`]) {
        assert.equal((await put({ Origin: origin, Host: host })).status, 404, `${origin} to ${host}`);
      }
    }
    // A page of a development server on the visitor's machine, on the daemon's port number.
    assert.equal(
      (await put({ Origin: `http://localhost:${h.port}`, Host: `meter-gateway:${h.port}` })).status,
      404,
    );
    // The page of the device itself at a loopback name, on the port the request came in on.
    const at = (authority: string) => ({ Origin: `http://${authority}`, Host: authority });
    for (const authority of [`localhost:${h.port}`, `127.0.0.1:${h.port}`, `meter-gateway:${h.port}`]) {
      assert.equal((await put(at(authority))).status, 200, authority);
    }
    assert.equal((await put({})).status, 200, 'without Origin (curl)');
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal);
    if (lan) {
      const reply = await put(at(`${lan.address}:${h.port}`));
      assert.equal(reply.status, 200, `the LAN address ${lan.address}`);
    }
  } finally {
    await h.close();
  }
});
