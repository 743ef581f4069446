import { test } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes } from '../../src/http/server.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import {
  challenges,
  digestHeader,
  send,
  sendJsonBody,
  splitJoinedChallenges,
  type DigestInput,
} from './http-client.js';

const PASSWORD = 'S3cret-pässword';

async function withProtectedServer(fn: (server: HttpTestContext) => Promise<void>): Promise<void> {
  const server = await startHttpContext({
    routes: (router, ctx) => registerCoreRoutes(router, ctx),
    server: {
      nonceLifetimeMs: 60_000,
      throttle: { freeAttempts: 2, baseDelayMs: 20, maxDelayMs: 80, forgetAfterMs: 60_000, maxAddresses: 16 },
    },
  });
  const applied = server.ctx.config.apply(
    new Map<string, unknown>([
      ['system.protection', true],
      ['system.password', PASSWORD],
      ['system.host_name', 'gateway-7'],
    ]),
  );
  assert.ok(applied.ok);
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** A fresh challenge from an unauthenticated fetch() (the header list arrives joined). */
async function challenge(
  baseUrl: string,
  path = '/api/v1/system',
): Promise<{ realm: string; nonce: string; opaque: string }> {
  const response = await fetch(`${baseUrl}${path}`);
  assert.equal(response.status, 401);
  await response.arrayBuffer();
  const [first] = challenges(splitJoinedChallenges(response.headers.get('www-authenticate')));
  return {
    realm: first!.params.get('realm')!,
    nonce: first!.params.get('nonce')!,
    opaque: first!.params.get('opaque')!,
  };
}

async function fetchWithDigest(
  baseUrl: string,
  input: Omit<DigestInput, 'method'> & { method?: string },
): Promise<Response> {
  const method = input.method ?? 'GET';
  return fetch(`${baseUrl}${input.uri}`, {
    method,
    headers: { Authorization: digestHeader({ ...input, method }) },
  });
}

test('without protection no credentials are needed; protection without a password is refused', async () => {
  const server = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx) });
  try {
    assert.equal((await send(server.baseUrl, 'GET', '/api/v1/system')).status, 200);
    const refused = server.ctx.config.apply(new Map([['system.protection', true]]));
    assert.deepEqual(!refused.ok && refused.issues.map((issue) => issue.field), ['system.password']);
    const put = await fetch(`${server.baseUrl}/api/v1/settings`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ system: { protection: true, password: '' } }),
    });
    assert.equal(put.status, 400);
    const body = (await put.json()) as { error: string; details: { fields: { field: string }[] } };
    assert.equal(body.error, 'validation_failed');
    assert.ok(
      body.details.fields.some((issue) => issue.field === 'system.password'),
      JSON.stringify(body),
    );
    assert.equal(server.ctx.config.config.system.protection, false);
    assert.equal((await send(server.baseUrl, 'GET', '/api/v1/system')).status, 200);
  } finally {
    await server.close();
  }
});

test('401 carries one Digest challenge per algorithm and Basic, realm = host name, and the error body', () =>
  withProtectedServer(async ({ baseUrl }) => {
    for (const path of ['/api/v1/system', '/api/v1/live', '/api/v1/report', '/api/v1/unknown']) {
      const reply = await send(baseUrl, 'GET', path);
      assert.equal(reply.status, 401, path);
      assert.equal(reply.json().error, 'unauthorized');
      assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
      const offered = challenges(reply.distinct['www-authenticate']);
      assert.deepEqual(
        offered.map((c) => `${c.scheme} ${c.params.get('algorithm') ?? ''}`),
        ['Digest SHA-256', 'Digest MD5-sess', 'Digest MD5', 'Basic '],
      );
      for (const c of offered) assert.equal(c.params.get('realm'), 'gateway-7');
      const digest = offered.filter((c) => c.scheme === 'Digest');
      assert.equal(new Set(digest.map((c) => c.params.get('nonce'))).size, 1);
      for (const c of digest) assert.equal(c.params.get('qop'), 'auth');
    }
  }));

test('Basic with the password and any user name is accepted; a wrong password is not', () =>
  withProtectedServer(async ({ baseUrl }) => {
    const basic = (user: string, password: string) =>
      `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    assert.equal(
      (await send(baseUrl, 'GET', '/api/v1/system', { headers: { Authorization: basic('', PASSWORD) } }))
        .status,
      200,
    );
    assert.equal(
      (await send(baseUrl, 'GET', '/api/v1/system', { headers: { Authorization: basic('admin', PASSWORD) } }))
        .status,
      200,
    );
    assert.equal(
      (await send(baseUrl, 'GET', '/api/v1/system', { headers: { Authorization: basic('', 'wrong') } }))
        .status,
      401,
    );
    assert.equal(
      (await send(baseUrl, 'GET', '/api/v1/system', { headers: { Authorization: 'Basic !!!' } })).status,
      401,
    );
  }));

test('Digest with MD5, MD5-sess, SHA-256 and SHA-256-sess (hand-built, Node fetch) is accepted', () =>
  withProtectedServer(async ({ baseUrl }) => {
    for (const algorithm of ['MD5', 'MD5-sess', 'SHA-256', 'SHA-256-sess'] as const) {
      const { realm, nonce, opaque } = await challenge(baseUrl);
      const ok = await fetchWithDigest(baseUrl, {
        algorithm,
        realm,
        nonce,
        opaque,
        uri: '/api/v1/system',
        password: PASSWORD,
        username: 'anyone',
      });
      assert.equal(ok.status, 200, algorithm);
      assert.ok(((await ok.json()) as { device?: unknown }).device);
      const bad = await fetchWithDigest(baseUrl, {
        algorithm,
        realm,
        nonce,
        uri: '/api/v1/system',
        password: 'wrong',
        nc: 2,
      });
      assert.equal(bad.status, 401, algorithm);
      assert.doesNotMatch(bad.headers.get('www-authenticate')!, /stale=true/);
    }
  }));

test('an expired nonce answers 401 with stale=true, and the new nonce works', () =>
  withProtectedServer(async ({ baseUrl, clock }) => {
    const { realm, nonce } = await challenge(baseUrl);
    clock.advance(61_000);
    const stale = await fetchWithDigest(baseUrl, {
      algorithm: 'SHA-256',
      realm,
      nonce,
      uri: '/api/v1/system',
      password: PASSWORD,
    });
    assert.equal(stale.status, 401);
    assert.equal(((await stale.json()) as { error: string }).error, 'unauthorized');
    const renewed = challenges(splitJoinedChallenges(stale.headers.get('www-authenticate')));
    assert.equal(renewed[0]!.params.get('stale'), 'true');
    const fresh = renewed[0]!.params.get('nonce')!;
    assert.notEqual(fresh, nonce);
    const ok = await fetchWithDigest(baseUrl, {
      algorithm: 'SHA-256',
      realm,
      nonce: fresh,
      uri: '/api/v1/system',
      password: PASSWORD,
    });
    assert.equal(ok.status, 200);
  }));

test('a nonce the server never issued is stale when the password is right, invalid otherwise', () =>
  withProtectedServer(async ({ baseUrl }) => {
    const forged = 'A'.repeat(43);
    const right = await fetchWithDigest(baseUrl, {
      algorithm: 'MD5',
      realm: 'gateway-7',
      nonce: forged,
      uri: '/api/v1/system',
      password: PASSWORD,
    });
    assert.equal(right.status, 401);
    assert.match(right.headers.get('www-authenticate')!, /stale=true/);
    const wrong = await fetchWithDigest(baseUrl, {
      algorithm: 'MD5',
      realm: 'gateway-7',
      nonce: forged,
      uri: '/api/v1/system',
      password: 'x',
    });
    assert.doesNotMatch(wrong.headers.get('www-authenticate')!, /stale=true/);
  }));

test('a replayed request (same nonce count) is refused; growing and slightly reordered counts pass once', () =>
  withProtectedServer(async ({ baseUrl }) => {
    const { realm, nonce } = await challenge(baseUrl);
    const header = digestHeader({
      algorithm: 'MD5',
      realm,
      nonce,
      method: 'GET',
      uri: '/api/v1/system',
      password: PASSWORD,
      nc: 1,
    });
    const first = await fetch(`${baseUrl}/api/v1/system`, { headers: { Authorization: header } });
    assert.equal(first.status, 200);
    const replay = await fetch(`${baseUrl}/api/v1/system`, { headers: { Authorization: header } });
    assert.equal(replay.status, 401);
    assert.match(((await replay.json()) as { message: string }).message, /replay/);
    const at = (nc: number) =>
      fetchWithDigest(baseUrl, {
        algorithm: 'MD5',
        realm,
        nonce,
        uri: '/api/v1/system',
        password: PASSWORD,
        nc,
      });
    assert.equal((await at(5)).status, 200);
    assert.equal((await at(3)).status, 200, 'out of order within the window');
    assert.equal((await at(3)).status, 401, 'but only once');
    assert.equal((await at(6)).status, 200);
  }));

test('the uri parameter must match the request-target', () =>
  withProtectedServer(async ({ baseUrl }) => {
    const { realm, nonce } = await challenge(baseUrl);
    const header = digestHeader({
      algorithm: 'SHA-256',
      realm,
      nonce,
      method: 'GET',
      uri: '/api/v1/settings',
      password: PASSWORD,
    });
    assert.equal(
      (await fetch(`${baseUrl}/api/v1/system`, { headers: { Authorization: header } })).status,
      401,
    );
    const query = await fetchWithDigest(baseUrl, {
      algorithm: 'SHA-256',
      realm,
      nonce,
      uri: '/api/v1/system?x=1',
      password: PASSWORD,
      nc: 2,
    });
    assert.equal(query.status, 200);
  }));

test('a host_name change moves the realm at once; the old realm no longer authenticates', () =>
  withProtectedServer(async ({ baseUrl }) => {
    const { nonce } = await challenge(baseUrl);
    const auth = { Authorization: `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}` };
    const changed = await sendJsonBody(
      baseUrl,
      'PUT',
      '/api/v1/settings',
      { system: { host_name: 'renamed-gw' } },
      auth,
    );
    assert.equal(changed.status, 200);
    const next = await challenge(baseUrl);
    assert.equal(next.realm, 'renamed-gw');
    const old = await fetchWithDigest(baseUrl, {
      algorithm: 'MD5',
      realm: 'gateway-7',
      nonce,
      uri: '/api/v1/system',
      password: PASSWORD,
    });
    assert.equal(old.status, 401);
    const ok = await fetchWithDigest(baseUrl, {
      algorithm: 'MD5',
      realm: 'renamed-gw',
      nonce: next.nonce,
      uri: '/api/v1/system',
      password: PASSWORD,
    });
    assert.equal(ok.status, 200);
  }));

test('repeated failures from one address are held back (Retry-After) until a success', () =>
  withProtectedServer(async ({ baseUrl }) => {
    const wrong = { Authorization: `Basic ${Buffer.from(':nope').toString('base64')}` };
    const retryAfter: Array<string | undefined> = [];
    for (let i = 0; i < 4; i++)
      retryAfter.push(
        (await send(baseUrl, 'GET', '/api/v1/system', { headers: wrong })).headers['retry-after'],
      );
    assert.deepEqual(retryAfter, [undefined, undefined, '1', '1']);
    assert.equal(
      (await send(baseUrl, 'GET', '/api/v1/system')).headers['retry-after'],
      undefined,
      'no credentials: no failure',
    );
    const right = { Authorization: `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}` };
    assert.equal((await send(baseUrl, 'GET', '/api/v1/system', { headers: right })).status, 200);
    assert.equal(
      (await send(baseUrl, 'GET', '/api/v1/system', { headers: wrong })).headers['retry-after'],
      undefined,
    );
  }));

test('protection switched on through the API is enforced on the next request, and off again', () =>
  withProtectedServer(async ({ baseUrl }) => {
    const auth = { Authorization: `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}` };
    assert.equal(
      (await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', { system: { protection: false } }, auth))
        .status,
      200,
    );
    assert.equal((await send(baseUrl, 'GET', '/api/v1/settings')).status, 200);
    assert.equal(
      (await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', { system: { protection: true } })).status,
      200,
    );
    assert.equal((await send(baseUrl, 'GET', '/api/v1/settings')).status, 401);
  }));

test('malformed Digest credentials are 401, never 500', () =>
  withProtectedServer(async ({ baseUrl }) => {
    for (const header of [
      'Digest',
      'Digest ,,,',
      'Digest username="',
      'Digest a=b=c',
      'Digest username="", username=""',
      'Bearer abc',
      'Digest nc=zz',
    ]) {
      const reply = await send(baseUrl, 'GET', '/api/v1/system', { headers: { Authorization: header } });
      assert.equal(reply.status, 401, header);
    }
  }));
