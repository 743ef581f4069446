import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { acceptsGzip, matchesIfNoneMatch, registerWebRoutes } from '../../src/web/routes.js';
import { loadStaticAssets } from '../../src/web/static-assets.js';
import { requireCommand } from '../helpers/environment.js';
import { startHttpContext } from '../helpers/http-context.js';

const PAGE = `<!doctype html><html><head><title>t</title></head><body>${'<p>meter</p>'.repeat(50)}</body></html>`;
const SCRIPT = `export const answer = ${JSON.stringify('x'.repeat(2000))};\n`;

/** A built interface in a temporary folder: page, a module, a nested vendor file, and files not served. */
function uiFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mg-ui-'));
  mkdirSync(join(dir, 'vendor'));
  writeFileSync(join(dir, 'index.html'), PAGE);
  writeFileSync(join(dir, 'app.js'), SCRIPT);
  writeFileSync(join(dir, 'vendor', 'lib.css'), 'a{}');
  writeFileSync(join(dir, 'app.d.ts'), 'export {};');
  writeFileSync(join(dir, 'vendor', 'lib.LICENSE'), 'MIT');
  return dir;
}

/** Raw GET (node:http, so no client decompresses or caches behind the test's back). */
function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }>((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    })
      .on('error', reject)
      .end();
  });
}

async function withUi(env: Record<string, string> = {}) {
  const dir = uiFolder();
  const context = await startHttpContext({
    env,
    routes: (router, ctx) => registerWebRoutes(router, ctx, loadStaticAssets(dir)),
  });
  return {
    ...context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('loadStaticAssets serves index.html as /, nested files by path, and leaves out declarations and licences', () => {
  const dir = uiFolder();
  try {
    const assets = loadStaticAssets(dir);
    assert.deepEqual(
      assets.map((asset) => [asset.urlPath, asset.contentType]),
      [
        ['/app.js', 'text/javascript; charset=utf-8'],
        ['/', 'text/html; charset=utf-8'],
        ['/vendor/lib.css', 'text/css; charset=utf-8'],
      ],
    );
    // 'a{}' does not shrink under gzip: served as it is.
    assert.equal(assets[2]!.gzip, undefined);
    assert.deepEqual(gunzipSync(assets[1]!.gzip!).toString(), PAGE);
    assert.deepEqual(loadStaticAssets(join(dir, 'absent')), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Accept-Encoding and If-None-Match follow RFC 9110', () => {
  assert.equal(acceptsGzip('gzip, deflate, br'), true);
  assert.equal(acceptsGzip('br;q=1.0, gzip;q=0.5'), true);
  assert.equal(acceptsGzip('gzip;q=0'), false);
  assert.equal(acceptsGzip('*'), true);
  assert.equal(acceptsGzip('*;q=0, br'), false);
  assert.equal(acceptsGzip('identity'), false);
  assert.equal(acceptsGzip(undefined), false);
  assert.equal(matchesIfNoneMatch('"a", "b"', '"b"'), true);
  assert.equal(matchesIfNoneMatch('W/"b"', '"b"'), true);
  assert.equal(matchesIfNoneMatch('*', '"b"'), true);
  assert.equal(matchesIfNoneMatch('"c"', '"b"'), false);
});

test('GET / answers the page with ETag, gzip when accepted, 304 when unchanged', async () => {
  const web = await withUi();
  try {
    const plain = await get(`${web.baseUrl}/`);
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(plain.body.toString(), PAGE);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers['cache-control'], 'no-cache');
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    assert.match(String(plain.headers['content-security-policy']), /default-src 'self'/);
    const etag = String(plain.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);

    const packed = await get(`${web.baseUrl}/`, { 'Accept-Encoding': 'gzip, br' });
    assert.equal(packed.headers['content-encoding'], 'gzip');
    assert.equal(Number(packed.headers['content-length']), packed.body.length);
    assert.ok(packed.body.length < plain.body.length);
    assert.equal(gunzipSync(packed.body).toString(), PAGE);
    assert.notEqual(packed.headers.etag, etag);

    const unchanged = await get(`${web.baseUrl}/`, { 'If-None-Match': etag });
    assert.equal(unchanged.status, 304);
    assert.equal(unchanged.body.length, 0);
    assert.equal(unchanged.headers.etag, etag);
    const unchangedPacked = await get(`${web.baseUrl}/`, {
      'If-None-Match': String(packed.headers.etag),
      'Accept-Encoding': 'gzip',
    });
    assert.equal(unchangedPacked.status, 304);
    // The identity tag does not validate the gzip representation.
    assert.equal(
      (await get(`${web.baseUrl}/`, { 'If-None-Match': etag, 'Accept-Encoding': 'gzip' })).status,
      200,
    );

    const script = await get(`${web.baseUrl}/app.js`);
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(script.body.toString(), SCRIPT);
    assert.equal((await get(`${web.baseUrl}/vendor/lib.css`)).body.toString(), 'a{}');
    assert.equal((await get(`${web.baseUrl}/app.d.ts`)).status, 404);
  } finally {
    await web.close();
  }
});

test('with protection on, / and every asset answer 401 with the Digest challenge; curl --digest gets the page', async (t) => {
  const web = await withUi({
    METER_GATEWAY_SYSTEM_PROTECTION: 'true',
    METER_GATEWAY_SYSTEM_PASSWORD: 'pa55word',
  });
  try {
    for (const path of ['/', '/app.js', '/vendor/lib.css']) {
      const refused = await get(`${web.baseUrl}${path}`);
      assert.equal(refused.status, 401, path);
      assert.match(String(refused.headers['www-authenticate']), /Digest realm="meter-gateway"/);
    }
    if (!requireCommand(t, 'curl')) return;
    // Asynchronous: the server answers from this process's event loop.
    const page = await promisify(execFile)('curl', ['-s', '--digest', '-u', ':pa55word', `${web.baseUrl}/`]);
    assert.equal(page.stdout, PAGE);
  } finally {
    await web.close();
  }
});

test('without built files, GET / answers 503 with the error body and a logged hint', async () => {
  const context = await startHttpContext({
    routes: (router, ctx) => registerWebRoutes(router, ctx, []),
  });
  try {
    const answer = await get(`${context.baseUrl}/`);
    assert.equal(answer.status, 503);
    assert.equal(JSON.parse(answer.body.toString()).error, 'service_unavailable');
    assert.ok(context.logLines.some((line) => line.includes('web interface files not found')));
  } finally {
    await context.close();
  }
});
