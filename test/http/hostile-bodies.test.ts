import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { startDaemonProcess, type ListeningDaemon } from '../helpers/daemon-process.js';
import { send, type Reply } from './http-client.js';

/**
 * Hostile JSON bodies against the running daemon (docs/architecture.md#hostile-input): every route that
 * takes a JSON body, as its own OpenAPI document (generated from the router) lists them, gets bodies
 * nested far beyond the depth limit and random deep and wide ones. Each request is answered and the
 * process keeps running.
 */

interface BodyRoute {
  method: string;
  path: string;
}

/** The routes with a request body, from GET /api/v1/openapi.json; a tail parameter gets a harmless value. */
async function bodyRoutes(baseUrl: string): Promise<BodyRoute[]> {
  const reply = await send(baseUrl, 'GET', '/api/v1/openapi.json');
  assert.equal(reply.status, 200, reply.text);
  const paths = reply.json().paths as Record<string, Record<string, { requestBody?: unknown }>>;
  const routes: BodyRoute[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (operation.requestBody !== undefined)
        routes.push({ method: method.toUpperCase(), path: path.replace('{path}', 'x') });
    }
  }
  return routes;
}

/** Nested arrays `[[[...]]]`, or objects `{"a":{"a":...}}`, `depth` levels deep around `core`. */
function nested(depth: number, kind: 'array' | 'object', core: string): string {
  const open = kind === 'array' ? '[' : '{"a":';
  const close = kind === 'array' ? ']' : '}';
  return open.repeat(depth) + core + close.repeat(depth);
}

/** A JSON request; chunked (no Content-Length) unless asked, as a streaming client sends it. */
function postJson(daemon: ListeningDaemon, route: BodyRoute, text: string, chunked: boolean): Promise<Reply> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (chunked) headers['Transfer-Encoding'] = 'chunked';
  return send(daemon.baseUrl, route.method, route.path, { headers, body: text });
}

async function assertAlive(daemon: ListeningDaemon): Promise<void> {
  assert.equal(daemon.child.exitCode, null, daemon.output().slice(-2000));
  assert.equal(daemon.child.signalCode, null);
  const reply = await send(daemon.baseUrl, 'GET', '/api/v1/system');
  assert.equal(reply.status, 200);
}

async function withDaemon(
  fn: (daemon: ListeningDaemon, routes: BodyRoute[]) => Promise<void>,
): Promise<void> {
  const state = mkdtempSync(join(tmpdir(), 'meter-gateway-hostile-'));
  // PRO: license-gated routes read their bodies too.
  const daemon = await startDaemonProcess(state, { METER_GATEWAY_LICENSE_TYPE: 'PRO' });
  try {
    const routes = await bodyRoutes(daemon.baseUrl);
    assert.ok(routes.length >= 10, `body routes found: ${routes.map((r) => r.path).join(', ')}`);
    await fn(daemon, routes);
  } finally {
    await daemon.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

test('JSON nested 10,000 deep is refused with 400 on every body route, and the daemon keeps running', () =>
  withDaemon(async (daemon, routes) => {
    // The reported case first: 4,500 levels in 9 kB with a Content-Length; over a route's limit it is 413.
    for (const route of routes) {
      const reply = await postJson(daemon, route, nested(4_500, 'array', ''), false).catch((error: Error) => {
        throw new Error(`${route.method} ${route.path}: ${error.message}\n${daemon.output().slice(-1500)}`);
      });
      assert.ok([400, 413].includes(reply.status), `${route.method} ${route.path}: ${reply.status}`);
      await assertAlive(daemon);
    }
    for (const route of routes) {
      for (const kind of ['array', 'object'] as const) {
        const reply = await postJson(daemon, route, nested(10_000, kind, '1'), true);
        assert.equal(reply.status, 400, `${route.method} ${route.path}: ${reply.text.slice(0, 300)}`);
        const body = reply.json();
        assert.equal(body.error, 'bad_request');
        assert.equal(body.details.max_depth, 32);
        assert.ok(reply.text.length < 1000, 'the error body echoes nothing of the value');
      }
      await assertAlive(daemon);
    }
    // 31 levels are within the limit: the body reaches the route, which judges its content.
    const actions = routes.find((route) => route.path === '/api/v1/actions')!;
    const reply = await postJson(daemon, actions, nested(31, 'object', '1'), false);
    assert.notEqual(reply.json().details?.max_depth, 32, reply.text);
  }));

/** A random JSON text: `depth` levels of arrays or objects around a wide core of `width` leaves. */
const hostileBody = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 3000, max: 8000 })),
    kind: fc.constantFrom('array' as const, 'object' as const),
    width: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 400 })),
    wideKind: fc.constantFrom('array', 'object'),
    leaf: fc.constantFrom('1', '-0.5e3', '"x"', '"[{\\"]"', 'null', 'true', '{}', '[]'),
    chunked: fc.boolean(),
  })
  .map(({ depth, kind, width, wideKind, leaf, chunked }) => {
    const leaves = Array.from({ length: width }, (_, i) => (wideKind === 'array' ? leaf : `"k${i}":${leaf}`));
    const core = wideKind === 'array' ? `[${leaves.join(',')}]` : `{${leaves.join(',')}}`;
    return { text: nested(depth, kind, core), chunked };
  });

test('random deep and wide JSON on every body route: every request is answered, the daemon survives', () =>
  withDaemon(async (daemon, routes) => {
    // Each route gets its own runs, so a route with a larger body limit is not left to chance.
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(hostileBody, async (body) => {
          const reply = await postJson(daemon, route, body.text, body.chunked).catch((error: Error) => {
            throw new Error(`${route.method} ${route.path} unanswered: ${error.message}`);
          });
          assert.ok(
            reply.status >= 200 && reply.status < 500,
            `${route.method} ${route.path}: ${reply.status} ${reply.text.slice(0, 300)}`,
          );
          assert.equal(daemon.child.exitCode, null);
        }),
        { numRuns: 40 },
      );
    }
    await assertAlive(daemon);
  }));
