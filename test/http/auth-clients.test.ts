import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { registerCoreRoutes } from '../../src/http/server.js';
import { requireCommand, requirePeer } from '../helpers/environment.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { challenges, digestHeader, send } from './http-client.js';

const run = promisify(execFile);
const PASSWORD = 'curl-and-python';

async function withProtectedServer(fn: (server: HttpTestContext) => Promise<void>): Promise<void> {
  const server = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx) });
  assert.ok(
    server.ctx.config.apply(
      new Map<string, unknown>([
        ['system.protection', true],
        ['system.password', PASSWORD],
      ]),
    ).ok,
  );
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** curl's status code and body; `-w` appends the status after a marker line. */
async function curl(args: string[]): Promise<{ status: number; body: string; stderr: string }> {
  const { stdout, stderr } = await run('curl', ['-sS', '-v', '-w', '\n%{http_code}', ...args]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut), stderr };
}

function pythonRequestsAvailable(): boolean {
  try {
    execFileSync('python3', ['-c', 'import requests'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('curl --digest authenticates (SHA-256, the first challenge) and GETs the settings', async (t) => {
  if (!requireCommand(t, 'curl')) return;
  await withProtectedServer(async ({ baseUrl }) => {
    const denied = await curl([`${baseUrl}/api/v1/settings`]);
    assert.equal(denied.status, 401);
    const ok = await curl(['--digest', '-u', `:${PASSWORD}`, `${baseUrl}/api/v1/settings`]);
    assert.equal(ok.status, 200, ok.stderr);
    assert.match(ok.stderr, /Authorization: Digest .*algorithm=SHA-256/i);
    assert.equal(JSON.parse(ok.body).system.protection, true);
    const wrong = await curl(['--digest', '-u', ':wrong', `${baseUrl}/api/v1/settings`]);
    assert.equal(wrong.status, 401);
  });
});

test('curl with a hand-built MD5 Digest header (curl picks SHA-256 itself) authenticates', async (t) => {
  if (!requireCommand(t, 'curl')) return;
  await withProtectedServer(async ({ baseUrl }) => {
    const first = await send(baseUrl, 'GET', '/api/v1/system');
    const md5 = challenges(first.distinct['www-authenticate']).find(
      (c) => c.params.get('algorithm') === 'MD5',
    )!;
    const header = digestHeader({
      algorithm: 'MD5',
      realm: md5.params.get('realm')!,
      nonce: md5.params.get('nonce')!,
      opaque: md5.params.get('opaque')!,
      method: 'GET',
      uri: '/api/v1/system',
      password: PASSWORD,
    });
    const ok = await curl(['-H', `Authorization: ${header}`, `${baseUrl}/api/v1/system`]);
    assert.equal(ok.status, 200, ok.stderr);
    const replay = await curl(['-H', `Authorization: ${header}`, `${baseUrl}/api/v1/system`]);
    assert.equal(replay.status, 401);
  });
});

test('curl --anyauth -u ":password" picks Digest; curl -u ":password" uses Basic', async (t) => {
  if (!requireCommand(t, 'curl')) return;
  await withProtectedServer(async ({ baseUrl }) => {
    const any = await curl(['--anyauth', '-u', `:${PASSWORD}`, `${baseUrl}/api/v1/system`]);
    assert.equal(any.status, 200, any.stderr);
    assert.match(any.stderr, /Authorization: Digest /);
    const basic = await curl(['-u', `:${PASSWORD}`, `${baseUrl}/api/v1/system`]);
    assert.equal(basic.status, 200, basic.stderr);
    assert.match(basic.stderr, /Authorization: Basic /);
    const put = await curl([
      '--digest',
      '-u',
      `:${PASSWORD}`,
      '-X',
      'PUT',
      '-H',
      'Content-Type: application/json',
      '--data',
      '{"system":{"name":"via curl"}}',
      `${baseUrl}/api/v1/settings`,
    ]);
    assert.equal(put.status, 200, put.stderr);
    assert.equal(JSON.parse(put.body).system.name, 'via curl');
  });
});

// python-requests merges the challenges into one dict, so it answers the last one: MD5.
test("python3 requests' HTTPDigestAuth authenticates GET and PUT (MD5)", async (t) => {
  if (!requireCommand(t, 'python3')) return;
  if (!requirePeer(t, pythonRequestsAvailable(), 'python3 module requests (Debian python3-requests)')) return;
  await withProtectedServer(async ({ baseUrl }) => {
    const script = [
      'import sys, requests',
      'from requests.auth import HTTPDigestAuth',
      'base, password = sys.argv[1], sys.argv[2]',
      "auth = HTTPDigestAuth('', password)",
      's = requests.Session()',
      "r = s.get(base + '/api/v1/system', auth=auth)",
      'import re',
      "print(r.status_code, r.json()['device']['id'], re.search(r'algorithm=\"?([\\w-]+)', r.request.headers['Authorization']).group(1))",
      "r = s.put(base + '/api/v1/settings', json={'system': {'name': 'via python'}}, auth=auth)",
      "print(r.status_code, r.json()['system']['name'])",
      "r = s.get(base + '/api/v1/system', auth=HTTPDigestAuth('', 'wrong'))",
      'print(r.status_code)',
    ].join('\n');
    const { stdout } = await run('python3', ['-c', script, baseUrl, PASSWORD]);
    assert.deepEqual(stdout.trim().split('\n'), ['200 A1B2C3D4E5F6 MD5', '200 via python', '401']);
  });
});
