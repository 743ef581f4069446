import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { signBundle, writeUnsignedBundle } from '../../../src/device/update/bundle-writer.js';
import { registerUpdateRoutes } from '../../../src/http/routes/update.js';
import { requireCommand } from '../../helpers/environment.js';
import { startHttpContext, type HttpTestContext } from '../../helpers/http-context.js';
import {
  buildFakeBundle,
  installRootWith,
  newSigningKey,
  snapshotInstall,
  type SigningKey,
} from './fake-release.js';
import { waitFor } from '../../helpers/wait.js';

const run = promisify(execFile);

interface Rig {
  http: HttpTestContext;
  work: string;
  root: string;
  key: SigningKey;
  restarts: string[];
}

async function startRig(options: { maxBytes?: number; key?: SigningKey } = {}): Promise<Rig> {
  const work = mkdtempSync(join(tmpdir(), 'load-'));
  const key = options.key ?? newSigningKey();
  const root = installRootWith(work, '1.0.0', 'works');
  const restarts: string[] = [];
  const http = await startHttpContext({
    env: {
      METER_GATEWAY_UPDATE_PUBLIC_KEY: key.publicKeyPem,
      ...(options.maxBytes ? { METER_GATEWAY_UPDATE_MAX_BYTES: String(options.maxBytes) } : {}),
    },
    routes: (router, ctx) => {
      ctx.requestRestart = (reason) => restarts.push(reason);
      registerUpdateRoutes(router, ctx, { installRoot: root });
    },
  });
  return { http, work, root, key, restarts };
}

async function stopRig(rig: Rig): Promise<void> {
  await rig.http.close();
  rmSync(rig.work, { recursive: true, force: true });
}

async function upload(
  rig: Rig,
  bytes: Buffer | string,
  part = 'file',
): Promise<{ status: number; type: string; body: string }> {
  const form = new FormData();
  form.append(part, new Blob([typeof bytes === 'string' ? readFileSync(bytes) : bytes]), 'bundle.bin');
  const response = await fetch(`${rig.http.baseUrl}/load`, { method: 'POST', body: form });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: await response.text(),
  };
}

function stagingFiles(rig: Rig): string[] {
  const dir = join(rig.http.stateDir, 'update');
  return existsSync(dir) ? readdirSync(dir) : [];
}

/**
 * The status of a POST /load that is not multipart: 409 while an upload holds the route's lock,
 * otherwise 415 (the lock is checked first). It touches nothing, so it can be asked repeatedly.
 */
async function lockProbe(rig: Rig): Promise<number> {
  const response = await fetch(`${rig.http.baseUrl}/load`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain' },
    body: 'probe',
  });
  await response.body?.cancel();
  return response.status;
}

test('curl uploads a signed bundle: 200 text/plain, unpacked beside the old release, switched, restart', async (t) => {
  if (!requireCommand(t, 'curl')) return;
  const rig = await startRig();
  try {
    const bundle = await buildFakeBundle(rig.work, '2.0.0', 'works', rig.key);
    const { stdout } = await run('curl', [
      '-sS',
      '-w',
      '\n%{http_code} %{content_type}',
      '-F',
      `file=@${bundle}`,
      `${rig.http.baseUrl}/load`,
    ]);
    const lines = stdout.trimEnd().split('\n');
    assert.match(lines.at(-1)!, /^200 text\/plain/);
    assert.match(lines[0]!, /firmware 2\.0\.0 verified and installed/);
    const current = readlinkSync(join(rig.root, 'current'));
    assert.match(current, /^releases\/2\.0\.0-[0-9a-f]{12}$/);
    assert.equal(readlinkSync(join(rig.root, 'previous')), 'releases/1.0.0-000000000000');
    assert.ok(existsSync(join(rig.root, current, 'dist', 'src', 'main.js')));
    assert.deepEqual(rig.restarts, ['firmware update to 2.0.0']);
    assert.deepEqual(stagingFiles(rig), []);
    assert.equal(readdirSync(join(rig.root, 'releases')).length, 2);

    const busy = await upload(rig, bundle);
    assert.equal(busy.status, 409, 'after a switch, the restart is pending');
    assert.equal(JSON.parse(busy.body).error, 'conflict');
  } finally {
    await stopRig(rig);
  }
});

test('fetch with FormData uploads too; a third release prunes all but current and previous', async () => {
  const rig = await startRig();
  try {
    const first = await upload(rig, await buildFakeBundle(rig.work, '2.0.0', 'works', rig.key));
    assert.equal(first.status, 200);
    assert.match(first.type, /^text\/plain/);
    // a new process would start here; a second route registration stands in for it
    const rig2: Rig = { ...rig, restarts: [] };
    const http2 = await startHttpContext({
      env: { METER_GATEWAY_UPDATE_PUBLIC_KEY: rig.key.publicKeyPem },
      routes: (router, ctx) => {
        ctx.requestRestart = (reason) => rig2.restarts.push(reason);
        registerUpdateRoutes(router, ctx, { installRoot: rig.root });
      },
    });
    try {
      rig2.http = http2;
      assert.equal(
        (await upload(rig2, await buildFakeBundle(rig.work, '3.0.0', 'works', rig.key))).status,
        200,
      );
      const releases = readdirSync(join(rig.root, 'releases')).sort();
      assert.equal(releases.length, 2);
      assert.match(releases[0]!, /^2\.0\.0-/);
      assert.match(releases[1]!, /^3\.0\.0-/);
      assert.match(readlinkSync(join(rig.root, 'previous')), /^releases\/2\.0\.0-/);
    } finally {
      await http2.close();
    }
  } finally {
    await stopRig(rig);
  }
});

test('tampered, unsigned, foreign-key, truncated and wrong bundles answer 400 and change nothing', async () => {
  const rig = await startRig();
  try {
    const signed = readFileSync(await buildFakeBundle(rig.work, '2.0.0', 'works', rig.key));
    const other = newSigningKey();
    const tampered = Buffer.from(signed);
    tampered[200]! ^= 0x40;
    const cases: [string, Buffer | string, string][] = [
      ['tampered payload', tampered, 'checksum_mismatch'],
      ['unsigned', await buildFakeBundle(rig.work, '2.0.0', 'works', undefined), 'unsigned'],
      ['another key', await buildFakeBundle(rig.work, '2.0.0', 'works', other), 'unknown_key'],
      ['truncated', signed.subarray(0, signed.length - 300), 'truncated'],
      ['not a bundle', Buffer.from('\x7fELF firmware for another device'), 'bad_magic'],
      ['empty file', Buffer.alloc(0), 'truncated'],
    ];
    const before = snapshotInstall(rig.root);
    for (const [what, bytes, reason] of cases) {
      const response = await upload(rig, bytes);
      assert.equal(response.status, 400, what);
      const body = JSON.parse(response.body) as {
        error: string;
        message: string;
        details: { reason: string };
      };
      assert.equal(body.error, 'bad_request', what);
      assert.equal(body.details.reason, reason, what);
      assert.deepEqual(snapshotInstall(rig.root), before, `${what}: install root unchanged`);
      assert.deepEqual(stagingFiles(rig), [], `${what}: no upload left on disk`);
    }
    const noFilePart = await upload(rig, signed, 'firmware');
    assert.equal(noFilePart.status, 400);
    assert.equal(JSON.parse(noFilePart.body).details.reason, 'missing_file');
    assert.deepEqual(rig.restarts, []);
  } finally {
    await stopRig(rig);
  }
});

test('a signed bundle that is not this app is refused after unpacking, leaving nothing behind', async () => {
  const rig = await startRig();
  try {
    const bundle = await buildFakeBundle(rig.work, '2.0.0', 'works', rig.key);
    // properly signed by the key holder, but the payload is some other program
    const appDir = mkdtempSync(join(rig.work, 'app-'));
    writeFileSync(
      join(appDir, 'package.json'),
      JSON.stringify({ name: 'other-app', version: '2.0.0', bin: { 'meter-gateway': 'x.js' } }),
    );
    writeFileSync(join(appDir, 'x.js'), '');
    const foreign = join(rig.work, 'foreign.bin');
    await writeUnsignedBundle({
      cwd: appDir,
      paths: ['package.json', 'x.js'],
      version: '2.0.0',
      out: foreign,
    });
    await signBundle(foreign, rig.key.privateKey);
    const before = snapshotInstall(rig.root);
    const response = await upload(rig, foreign);
    assert.equal(response.status, 400);
    assert.equal(JSON.parse(response.body).details.reason, 'bad_archive');
    assert.deepEqual(snapshotInstall(rig.root), before);
    assert.deepEqual(stagingFiles(rig), []);
    assert.equal((await upload(rig, bundle)).status, 200, 'a refused upload does not block the next');
  } finally {
    await stopRig(rig);
  }
});

test('bundles beyond update.max_bytes answer 413 payload_too_large, by header and by Content-Length', async () => {
  const rig = await startRig({ maxBytes: 4096 });
  try {
    const big = await buildFakeBundle(rig.work, '2.0.0', 'works', rig.key, 8192);
    const before = snapshotInstall(rig.root);
    const response = await upload(rig, big);
    assert.equal(response.status, 413);
    assert.equal(JSON.parse(response.body).error, 'payload_too_large');
    const huge = await upload(rig, Buffer.alloc(200 * 1024, 1));
    assert.equal(huge.status, 413);
    assert.match(JSON.parse(huge.body).message, /exceeds update.max_bytes/);
    assert.deepEqual(snapshotInstall(rig.root), before);
    assert.deepEqual(stagingFiles(rig), []);
  } finally {
    await stopRig(rig);
  }
});

test('a body that is not multipart/form-data answers 415', async () => {
  const rig = await startRig();
  try {
    const bundle = readFileSync(await buildFakeBundle(rig.work, '2.0.0', 'works', rig.key));
    for (const type of ['application/octet-stream', 'multipart/form-data', 'multipart/mixed; boundary=x']) {
      const response = await fetch(`${rig.http.baseUrl}/load`, {
        method: 'POST',
        headers: { 'Content-Type': type },
        body: bundle,
      });
      assert.equal(response.status, 415, type);
      assert.equal(((await response.json()) as { error: string }).error, 'unsupported_media_type');
    }
    assert.deepEqual(rig.restarts, []);
  } finally {
    await stopRig(rig);
  }
});

test('a second upload while one runs answers 409; an aborted upload cleans up and frees the route', async () => {
  const rig = await startRig();
  try {
    const bundle = readFileSync(await buildFakeBundle(rig.work, '2.0.0', 'works', rig.key, 64 * 1024));
    const boundary = 'mgw-test-boundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const slow = request(`${rig.http.baseUrl}/load`, {
      method: 'POST',
      headers: {
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': head.length + bundle.length + tail.length,
      },
    });
    const slowDone = new Promise<void>((resolve) => {
      slow.on('error', () => resolve());
      slow.on('response', (response) => {
        response.resume();
        response.on('close', () => resolve());
      });
    });
    slow.write(Buffer.concat([head, bundle.subarray(0, 20 * 1024)]));
    await waitFor(
      'the first upload to hold the lock',
      () => lockProbe(rig),
      (status) => status === 409,
    );

    const second = await upload(rig, bundle);
    assert.equal(second.status, 409);
    assert.equal(JSON.parse(second.body).error, 'conflict');

    slow.destroy();
    await slowDone;
    // The lock is released after the aborted upload's files are removed.
    await waitFor(
      'the aborted upload to release the lock',
      () => lockProbe(rig),
      (status) => status !== 409,
    );
    assert.deepEqual(stagingFiles(rig), [], 'the aborted upload is removed');
    const third = await upload(rig, bundle);
    assert.equal(third.status, 200, third.body);
    assert.deepEqual(rig.restarts, ['firmware update to 2.0.0']);
  } finally {
    await stopRig(rig);
  }
});

test('random bytes are refused with 400 before anything else; a verified bundle outside a release installation is 503 update_unavailable', async () => {
  const key = newSigningKey();
  const work = mkdtempSync(join(tmpdir(), 'load-no-root-'));
  const http = await startHttpContext({
    env: { METER_GATEWAY_UPDATE_PUBLIC_KEY: key.publicKeyPem },
    // No installRoot: the daemon runs from the repository (npm start), not from releases/.
    routes: (router, ctx) => registerUpdateRoutes(router, ctx),
  });
  const rig: Rig = { http, work, root: '', key, restarts: [] };
  try {
    const random = await upload(rig, randomBytes(4096));
    assert.equal(random.status, 400, random.body);
    assert.equal(JSON.parse(random.body).error, 'bad_request');

    const signed = await upload(rig, await buildFakeBundle(work, '2.0.0', 'works', key));
    assert.equal(signed.status, 503, signed.body);
    const body = JSON.parse(signed.body) as { error: string; message: string };
    assert.equal(body.error, 'update_unavailable');
    assert.match(body.message, /does not run from a release installation/);
    assert.deepEqual(stagingFiles(rig), []);
  } finally {
    await stopRig(rig);
  }
});
