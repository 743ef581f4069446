import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
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
    const own = [
      `http://127.0.0.1:${h.port}`,
      `http://localhost:${h.port}`,
      'http://meter-gateway',
      'http://meter-gateway.local',
      'http://METER-GATEWAY.local.',
    ];
    for (const origin of [undefined, ...own]) {
      for (const [method, path, headers, body] of REQUESTS) {
        const reply = await ask(h, method, path, { ...headers, ...(origin ? { Origin: origin } : {}) }, body);
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
    assert.equal(
      (await ask(h, 'GET', '/api/v1/system', { Origin: 'http://kitchen-meter.local' })).status,
      200,
    );
    assert.equal(
      (await ask(h, 'GET', '/api/v1/system', { Origin: 'http://meter-gateway.local' })).status,
      404,
    );
  }));
