import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statfsSync,
  statSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SdLogger } from '../../src/device/sd-logger.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerSdCardRoutes } from '../../src/http/routes/sdcard.js';
import { runOutput } from '../../src/output-runner.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';
import { responseProblems } from './openapi-check.js';

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request whose path goes out byte for byte (a URL object would resolve `..` first). */
function raw(h: HttpTestContext, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<RawReply>((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port: h.port, method, path, headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** The daemon's own CSV logging writes a few rows into the SD card folder (two local days). */
async function withCsvLogs(fn: (h: HttpTestContext, sdDir: string) => Promise<void>): Promise<void> {
  const h = await startHttpContext({
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      registerSdCardRoutes(router, ctx);
    },
  });
  const logger = new SdLogger(h.ctx, h.ctx.logger);
  const output = runOutput(h.ctx, logger);
  try {
    await output.start();
    const enabled = h.ctx.config.apply(
      new Map<string, unknown>([
        ['services.sd.enable', true],
        ['services.sd.frequency', 1440],
      ]),
    );
    assert.equal(enabled.ok, true);
    for (let i = 0; i < 40; i++) {
      h.ctx.store.ingest(syntheticReading(h.clock.now()));
      logger.writeRow();
      h.clock.advance(3_600_000);
    }
    await output.stop();
    await fn(h, join(h.stateDir, 'sd'));
  } finally {
    await h.close();
  }
}

test('GET /sdcard lists the CSV logs; a file downloads byte for byte as text/csv with length and date', () =>
  withCsvLogs(async (h, sdDir) => {
    const doc = JSON.parse((await raw(h, 'GET', '/api/v1/openapi.json')).body.toString());
    const conforms = (method: string, path: string, reply: RawReply) =>
      assert.deepEqual(
        responseProblems(
          doc,
          method,
          path,
          reply.status,
          String(reply.headers['content-type']),
          reply.body.toString(),
        ),
        [],
      );
    const names = readdirSync(sdDir)
      .filter((name) => name.endsWith('.csv'))
      .sort();
    assert.ok(names.length >= 2, names.join());
    mkdirSync(join(sdDir, 'archive'));
    const listing = await raw(h, 'GET', '/sdcard');
    assert.equal(listing.status, 200);
    conforms('GET', '/sdcard', listing);
    const body = JSON.parse(listing.body.toString());
    assert.equal(body.path, '/');
    assert.deepEqual(
      body.files.map((f: { name: string; size: number; type: string }) => [f.name, f.size, f.type]),
      [...names.map((name) => [name, statSync(join(sdDir, name)).size, 'file']), ['archive/', 0, 'dir']],
    );
    assert.deepEqual(JSON.parse((await raw(h, 'GET', '/sdcard/')).body.toString()), body);

    const file = await raw(h, 'GET', `/sdcard/${names[0]}`);
    assert.equal(file.status, 200);
    conforms('GET', '/sdcard/{path}', file);
    assert.equal(file.headers['content-type'], 'text/csv; charset=utf-8');
    assert.ok(file.body.equals(readFileSync(join(sdDir, names[0]!))), 'byte for byte');
    assert.equal(file.headers['content-length'], String(file.body.length));
    assert.equal(file.headers['last-modified'], statSync(join(sdDir, names[0]!)).mtime.toUTCString());
    assert.equal(file.headers['accept-ranges'], 'bytes');
    const head = await raw(h, 'HEAD', `/sdcard/${names[0]}`);
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], file.headers['content-length']);
    assert.equal(head.body.length, 0);

    writeFileSync(join(sdDir, 'archive', 'blob.bin'), Buffer.from([0, 1, 2, 255]));
    const blob = await raw(h, 'GET', '/sdcard/archive/blob.bin');
    assert.equal(blob.headers['content-type'], 'application/octet-stream');
    assert.deepEqual([...blob.body], [0, 1, 2, 255]);
    const sub = await raw(h, 'GET', '/sdcard/archive/');
    conforms('GET', '/sdcard/{path}', sub);
    assert.deepEqual(JSON.parse(sub.body.toString()).path, '/archive/');
    assert.equal((await raw(h, 'GET', '/sdcard/missing.csv')).status, 404);
    assert.equal((await raw(h, 'GET', '/sdcard/archive')).status, 404, 'a directory is no file');
  }));

test('a Range request gets 206 with exactly those bytes; past the end 416', () =>
  withCsvLogs(async (h, sdDir) => {
    const name = readdirSync(sdDir).find((n) => n.endsWith('.csv'))!;
    const whole = readFileSync(join(sdDir, name));
    const part = await raw(h, 'GET', `/sdcard/${name}`, { Range: 'bytes=10-99' });
    assert.equal(part.status, 206);
    const doc = JSON.parse((await raw(h, 'GET', '/api/v1/openapi.json')).body.toString());
    for (const [method, reply] of [
      ['GET', part],
      ['GET', await raw(h, 'GET', '/sdcard/none.csv')],
      ['DELETE', await raw(h, 'DELETE', '/sdcard/none.csv')],
      ['GET', await raw(h, 'GET', '/sdcard/%00')],
    ] as const) {
      const type = String(reply.headers['content-type']);
      assert.deepEqual(
        responseProblems(doc, method, '/sdcard/{path}', reply.status, type, reply.body.toString()),
        [],
      );
    }
    assert.equal(part.headers['content-range'], `bytes 10-99/${whole.length}`);
    assert.ok(part.body.equals(whole.subarray(10, 100)));
    const tail = await raw(h, 'GET', `/sdcard/${name}`, { Range: 'bytes=-20' });
    assert.ok(tail.body.equals(whole.subarray(whole.length - 20)));
    const open = await raw(h, 'GET', `/sdcard/${name}`, { Range: `bytes=${whole.length - 5}-` });
    assert.ok(open.body.equals(whole.subarray(whole.length - 5)));
    const past = await raw(h, 'GET', `/sdcard/${name}`, { Range: `bytes=${whole.length}-` });
    assert.equal(past.status, 416);
    assert.equal(past.headers['content-range'], `bytes */${whole.length}`);
  }));

test('DELETE removes a file, or a directory with everything below it; the folder itself stays', () =>
  withCsvLogs(async (h, sdDir) => {
    const name = readdirSync(sdDir).find((n) => n.endsWith('.csv'))!;
    assert.equal((await raw(h, 'DELETE', `/sdcard/${name}`)).status, 204);
    assert.equal(existsSync(join(sdDir, name)), false);
    mkdirSync(join(sdDir, 'old', 'deeper'), { recursive: true });
    writeFileSync(join(sdDir, 'old', 'a.csv'), 'a');
    writeFileSync(join(sdDir, 'old', 'deeper', 'b.csv'), 'b');
    assert.equal((await raw(h, 'DELETE', '/sdcard/old/')).status, 204);
    assert.equal(existsSync(join(sdDir, 'old')), false);
    assert.equal((await raw(h, 'DELETE', '/sdcard/old/')).status, 404);
    assert.equal((await raw(h, 'DELETE', '/sdcard/')).status, 400);
    assert.ok(existsSync(sdDir));
  }));

test('no path reaches outside the folder: traversal in every encoding, absolute paths, links out, NUL', () =>
  withCsvLogs(async (h, sdDir) => {
    const secrets = join(h.stateDir, 'secrets.json');
    h.ctx.config.apply(new Map([['system.password', 'do-not-leak']]));
    const before = readFileSync(secrets);
    assert.match(before.toString(), /do-not-leak/);
    symlinkSync(secrets, join(sdDir, 'secrets-link.json'));
    symlinkSync(h.stateDir, join(sdDir, 'state-link'));
    const forms = [
      '/sdcard/../secrets.json',
      '/sdcard/..%2fsecrets.json',
      '/sdcard/%2e%2e/secrets.json',
      '/sdcard/%2E%2E%2Fsecrets.json',
      '/sdcard/%252e%252e/secrets.json',
      '/sdcard/%252e%252e%252fsecrets.json',
      '/sdcard//etc/passwd',
      `/sdcard/${encodeURIComponent(secrets)}`,
      '/sdcard/%2fetc%2fpasswd',
      '/sdcard/..\\secrets.json',
      '/sdcard/%5c..%5csecrets.json',
      '/sdcard/secrets-link.json',
      '/sdcard/state-link/secrets.json',
      '/sdcard/state-link/',
      '/sdcard/a.csv%00.txt',
      '/sdcard/%00',
      '/sdcard/%zz',
    ];
    // DELETE of a link itself removes the link (the next test): only the paths through it are tried here.
    const links = new Set(['/sdcard/secrets-link.json', '/sdcard/state-link/']);
    for (const path of forms) {
      for (const method of links.has(path) ? ['GET'] : ['GET', 'DELETE']) {
        const reply = await raw(h, method, path);
        assert.ok([400, 404].includes(reply.status), `${method} ${path}: ${reply.status}`);
        assert.equal(reply.body.includes('do-not-leak'), false, `${method} ${path} leaked`);
      }
    }
    assert.ok(readFileSync(secrets).equals(before), 'the secrets file is untouched');
    const listed = JSON.parse((await raw(h, 'GET', '/sdcard/')).body.toString()).files.map(
      (f: { name: string }) => f.name,
    );
    assert.equal(listed.includes('secrets-link.json'), false, 'a link out is not listed');
    assert.equal(listed.includes('state-link/'), false);
  }));

test('DELETE of a symbolic link removes the link, never the file or directory tree it points to', () =>
  withCsvLogs(async (h, sdDir) => {
    const outside = mkdtempSync(join(tmpdir(), 'meter-gateway-sd-outside-'));
    try {
      const file = join(outside, 'keep.txt');
      writeFileSync(file, 'keep me');
      mkdirSync(join(outside, 'tree', 'deeper'), { recursive: true });
      writeFileSync(join(outside, 'tree', 'deeper', 'leaf.txt'), 'leaf');
      const inside = readdirSync(sdDir).find((n) => n.endsWith('.csv'))!;
      const insideBytes = readFileSync(join(sdDir, inside));
      mkdirSync(join(sdDir, 'kept'));
      writeFileSync(join(sdDir, 'kept', 'a.csv'), 'a');
      symlinkSync(file, join(sdDir, 'file-link'));
      symlinkSync(join(outside, 'tree'), join(sdDir, 'tree-link'));
      symlinkSync(join(sdDir, inside), join(sdDir, 'inside-link.csv'));
      symlinkSync(join(sdDir, 'kept'), join(sdDir, 'kept-link'));
      symlinkSync(join(outside, 'missing'), join(sdDir, 'dangling'));
      for (const path of [
        'file-link',
        'tree-link',
        'tree-link/',
        'inside-link.csv',
        'kept-link/',
        'dangling',
      ]) {
        const name = path.replace(/\/$/, '');
        const reply = await raw(h, 'DELETE', `/sdcard/${path}`);
        assert.equal(reply.status, 204, `DELETE /sdcard/${path}: ${reply.body.toString()}`);
        assert.throws(() => lstatSync(join(sdDir, name)), /ENOENT/, `${name} is gone`);
        // Recreated for the form with a trailing slash.
        if (path === 'tree-link') symlinkSync(join(outside, 'tree'), join(sdDir, 'tree-link'));
      }
      assert.equal(readFileSync(file, 'utf8'), 'keep me');
      assert.equal(readFileSync(join(outside, 'tree', 'deeper', 'leaf.txt'), 'utf8'), 'leaf');
      assert.ok(readFileSync(join(sdDir, inside)).equals(insideBytes));
      assert.equal(readFileSync(join(sdDir, 'kept', 'a.csv'), 'utf8'), 'a');
      // Below a link that leads out nothing is reachable, DELETE included.
      symlinkSync(join(outside, 'tree'), join(sdDir, 'tree-link'));
      assert.equal((await raw(h, 'DELETE', '/sdcard/tree-link/deeper')).status, 404);
      assert.ok(existsSync(join(outside, 'tree', 'deeper', 'leaf.txt')));
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }));

test('with protection on every /sdcard request needs the API credentials', () =>
  withCsvLogs(async (h, sdDir) => {
    h.ctx.config.apply(
      new Map<string, unknown>([
        ['system.protection', true],
        ['system.password', 'pw-1234'],
      ]),
    );
    const name = readdirSync(sdDir).find((n) => n.endsWith('.csv'))!;
    for (const [method, path] of [
      ['GET', '/sdcard'],
      ['GET', '/sdcard/'],
      ['GET', `/sdcard/${name}`],
      ['DELETE', `/sdcard/${name}`],
    ] as const) {
      assert.equal((await raw(h, method, path)).status, 401, `${method} ${path}`);
    }
    assert.ok(existsSync(join(sdDir, name)));
    const basic = { Authorization: `Basic ${Buffer.from('admin:pw-1234').toString('base64')}` };
    assert.equal((await raw(h, 'GET', `/sdcard/${name}`, basic)).status, 200);
  }));

test('before anything is logged the folder lists empty', async () => {
  const h = await startHttpContext({ routes: (router, ctx) => registerSdCardRoutes(router, ctx) });
  try {
    for (const path of ['/sdcard', '/sdcard/']) {
      const reply = await raw(h, 'GET', path);
      assert.equal(reply.status, 200);
      assert.deepEqual(JSON.parse(reply.body.toString()), { path: '/', files: [] });
    }
    assert.equal((await raw(h, 'GET', '/sdcard/2025-01-01.csv')).status, 404);
  } finally {
    await h.close();
  }
});

test('/api/v1/system sd_card: installed once the folder exists and is writable, size from statfs', async () => {
  const h = await startHttpContext({ routes: (router, ctx) => registerCoreRoutes(router, ctx) });
  try {
    const sdCard = async () =>
      JSON.parse((await raw(h, 'GET', '/api/v1/system')).body.toString()).sd_card as Record<string, unknown>;
    assert.deepEqual(await sdCard(), { installed: false, type: '', size: 0, speed: 0 });
    const sdDir = join(h.stateDir, 'sd');
    mkdirSync(sdDir);
    const fs = statfsSync(sdDir);
    const card = await sdCard();
    assert.equal(card.installed, true);
    assert.equal(card.size, fs.blocks * fs.bsize);
    assert.equal(typeof card.type, 'string');
    assert.notEqual(card.type, '');
  } finally {
    await h.close();
  }
});
