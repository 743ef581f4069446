import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import {
  BundleError,
  encodeBundleHeader,
  parseBundleHeader,
  TRAILER_LENGTH,
  trustedKeyOf,
} from '../../../src/device/update/bundle-format.js';
import { BundleReceiver } from '../../../src/device/update/bundle-receiver.js';
import { readBundleHeader, signBundle } from '../../../src/device/update/bundle-writer.js';
import {
  packageDirOf,
  productionModuleFilter,
  productionPackageRoots,
} from '../../../src/device/update/production-files.js';
import { repoRoot } from '../../helpers/environment.js';
import { buildFakeBundle, newSigningKey } from './fake-release.js';

test('header round-trips and says how many bytes it still needs', () => {
  const digest = createHash('sha256').update('payload').digest();
  const header = encodeBundleHeader('1.2.3-rc.1+build', 123_456, digest);
  const parsed = parseBundleHeader(header);
  assert.equal(parsed.status, 'complete');
  if (parsed.status !== 'complete') return;
  assert.equal(parsed.header.version, '1.2.3-rc.1+build');
  assert.equal(parsed.header.payloadLength, 123_456);
  assert.ok(parsed.header.payloadSha256.equals(digest));
  assert.equal(parsed.header.headerLength, header.length);
  assert.deepEqual(parseBundleHeader(header.subarray(0, 5)), { status: 'incomplete', needBytes: 12 });
  assert.deepEqual(parseBundleHeader(header.subarray(0, 20)), {
    status: 'incomplete',
    needBytes: header.length,
  });
});

test('foreign or damaged headers are typed rejections', () => {
  const header = encodeBundleHeader('1.0.0', 10, Buffer.alloc(32));
  const reasonOf = (bytes: Buffer) => {
    const parsed = parseBundleHeader(bytes);
    return parsed.status === 'rejected' ? parsed.reason : parsed.status;
  };
  assert.equal(reasonOf(Buffer.from('PK\u0003\u0004 a zip file')), 'bad_magic');
  assert.equal(reasonOf(Buffer.from('MGX')), 'bad_magic');
  const format2 = Buffer.from(header);
  format2.writeUInt16BE(2, 8);
  assert.equal(reasonOf(format2), 'unsupported_format');
  const noVersion = Buffer.from(header);
  noVersion.writeUInt16BE(0, 10);
  assert.equal(reasonOf(noVersion), 'bad_header');
  const slash = Buffer.from(header);
  slash.write('../..', 12, 'latin1');
  assert.equal(reasonOf(slash), 'bad_header');
  assert.throws(() => encodeBundleHeader('1.0/evil', 1, Buffer.alloc(32)));
});

async function receive(
  bundle: Buffer,
  options: { maxBytes?: number; freeBytes?: number; publicKeyPem?: string },
  dir: string,
) {
  const payloadPath = join(dir, `payload-${Math.random().toString(16).slice(2)}`);
  const receiver = new BundleReceiver({
    payloadPath,
    maxBytes: options.maxBytes ?? 10 * 1024 * 1024,
    freeBytes: options.freeBytes ?? Number.MAX_SAFE_INTEGER,
    trustedKey: trustedKeyOf(options.publicKeyPem ?? ''),
  });
  // deliver in small chunks so the header and trailer straddle chunk boundaries
  const chunks = [];
  for (let offset = 0; offset < bundle.length; offset += 7) chunks.push(bundle.subarray(offset, offset + 7));
  try {
    await pipeline(Readable.from(chunks), receiver);
    return { ok: true as const, payloadPath, result: receiver.result! };
  } catch (error) {
    assert.ok(error instanceof BundleError, String(error));
    assert.equal(existsSync(payloadPath), false, 'a refused bundle leaves no payload file');
    return { ok: false as const, reason: error.reason };
  }
}

test('the streaming receiver accepts a signed bundle and refuses every kind of damage', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bundle-'));
  try {
    const key = newSigningKey();
    const other = newSigningKey();
    const file = await buildFakeBundle(dir, '2.0.0', 'works', key);
    const bundle = readFileSync(file);
    const { header } = await readBundleHeader(file);
    const parsed = parseBundleHeader(bundle);
    assert.equal(parsed.status, 'complete');
    if (parsed.status !== 'complete') return;
    const { headerLength, payloadLength } = parsed.header;
    assert.equal(bundle.length, headerLength + payloadLength + TRAILER_LENGTH);
    assert.equal(header.version, '2.0.0');

    const good = await receive(bundle, { publicKeyPem: key.publicKeyPem }, dir);
    assert.ok(good.ok);
    const digest = createHash('sha256');
    await pipeline(createReadStream(good.payloadPath), digest);
    assert.ok(digest.digest().equals(parsed.header.payloadSha256), 'the payload on disk is the payload');

    const flip = (offset: number) => {
      const copy = Buffer.from(bundle);
      copy[offset]! ^= 0x01;
      return copy;
    };
    const cases: [string, Buffer, Parameters<typeof receive>[1], string][] = [
      [
        'payload byte flipped',
        flip(headerLength + 10),
        { publicKeyPem: key.publicKeyPem },
        'checksum_mismatch',
      ],
      ['version byte flipped', flip(12), { publicKeyPem: key.publicKeyPem }, 'bad_signature'],
      [
        'signature byte flipped',
        flip(bundle.length - 1),
        { publicKeyPem: key.publicKeyPem },
        'bad_signature',
      ],
      ['signed by another key', bundle, { publicKeyPem: other.publicKeyPem }, 'unknown_key'],
      ['no trusted key configured', bundle, {}, 'unknown_key'],
      [
        'unsigned',
        bundle.subarray(0, headerLength + payloadLength),
        { publicKeyPem: key.publicKeyPem },
        'unsigned',
      ],
      [
        'cut in the payload',
        bundle.subarray(0, headerLength + 20),
        { publicKeyPem: key.publicKeyPem },
        'truncated',
      ],
      [
        'cut in the trailer',
        bundle.subarray(0, bundle.length - 5),
        { publicKeyPem: key.publicKeyPem },
        'truncated',
      ],
      ['cut in the header', bundle.subarray(0, 9), { publicKeyPem: key.publicKeyPem }, 'truncated'],
      [
        'bytes after the trailer',
        Buffer.concat([bundle, Buffer.from('x')]),
        { publicKeyPem: key.publicKeyPem },
        'trailing_data',
      ],
      ['wrong magic', flip(0), { publicKeyPem: key.publicKeyPem }, 'bad_magic'],
      [
        'larger than max_bytes',
        bundle,
        { publicKeyPem: key.publicKeyPem, maxBytes: bundle.length - 1 },
        'too_large',
      ],
      [
        'larger than the free space',
        bundle,
        { publicKeyPem: key.publicKeyPem, freeBytes: payloadLength - 1 },
        'too_large',
      ],
    ];
    for (const [what, bytes, options, reason] of cases) {
      const outcome = await receive(bytes, options, dir);
      assert.equal(outcome.ok ? 'accepted' : outcome.reason, reason, what);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('signing checks the payload, appends the trailer once and replaces it when signing again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sign-'));
  try {
    const file = await buildFakeBundle(dir, '3.1.0', 'works', undefined);
    const unsignedSize = statSync(file).size;
    const first = newSigningKey();
    const second = newSigningKey();
    await signBundle(file, first.privateKey);
    assert.equal(statSync(file).size, unsignedSize + TRAILER_LENGTH);
    await signBundle(file, second.privateKey);
    assert.equal(statSync(file).size, unsignedSize + TRAILER_LENGTH);
    const signed = readFileSync(file);
    assert.ok((await receive(signed, { publicKeyPem: second.publicKeyPem }, dir)).ok);
    assert.equal(
      ((await receive(signed, { publicKeyPem: first.publicKeyPem }, dir)) as { reason: string }).reason,
      'unknown_key',
    );

    const corrupt = Buffer.from(signed);
    corrupt[corrupt.length - TRAILER_LENGTH - 3]! ^= 0xff;
    writeFileSync(file, corrupt);
    await assert.rejects(
      signBundle(file, first.privateKey),
      (error: BundleError) => error.reason === 'checksum_mismatch',
    );
    writeFileSync(file, signed.subarray(0, unsignedSize - 1));
    await assert.rejects(
      signBundle(file, first.privateKey),
      (error: BundleError) => error.reason === 'truncated',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('package directories of node_modules paths', () => {
  assert.equal(packageDirOf('node_modules/tar/dist/index.js'), 'node_modules/tar');
  assert.equal(
    packageDirOf('node_modules/@serialport/bindings-cpp/prebuilds/x.node'),
    'node_modules/@serialport/bindings-cpp',
  );
  assert.equal(packageDirOf('node_modules/a/node_modules/@s/b/x'), 'node_modules/a/node_modules/@s/b');
  assert.equal(packageDirOf('node_modules/@scope'), undefined);
  assert.equal(packageDirOf('node_modules'), undefined);
});

test('the release keeps production packages and drops dev-only and extraneous ones', () => {
  const filter = productionModuleFilter({
    packages: {
      '': {},
      'node_modules/tar': {},
      'node_modules/typescript': { dev: true },
      'node_modules/@types/node': { dev: true },
      'node_modules/fsevents': { devOptional: true, optional: true },
      'node_modules/a': {},
      'node_modules/a/node_modules/b': {},
      'node_modules/@serialport/stream': {},
    },
  });
  const kept = [
    'package.json',
    'dist/src/main.js',
    'node_modules',
    'node_modules/tar',
    'node_modules/tar/index.js',
    'node_modules/@serialport',
    'node_modules/@serialport/stream/dist/index.js',
    'node_modules/fsevents/x',
    'node_modules/a/node_modules/b/y.js',
  ];
  const dropped = [
    'node_modules/typescript/lib/tsc.js',
    'node_modules/@types',
    'node_modules/@types/node',
    'node_modules/.bin',
    'node_modules/.package-lock.json',
    'node_modules/leftover/x.js',
  ];
  for (const path of kept) assert.equal(filter(path), true, path);
  for (const path of dropped) assert.equal(filter(path), false, path);
});

test('a checkout installs the outermost production packages: nested ones come with them, dev-only ones stay behind', () => {
  const roots = productionPackageRoots({
    packages: {
      '': {},
      'node_modules/tar': {},
      'node_modules/typescript': { dev: true },
      'node_modules/typescript/node_modules/x': { dev: true },
      'node_modules/fsevents': { devOptional: true, optional: true },
      'node_modules/a': {},
      'node_modules/a/node_modules/b': {},
      'node_modules/a/node_modules/@s/c': {},
      'node_modules/dev-tool': { dev: true },
      'node_modules/dev-tool/node_modules/shared': {},
      'node_modules/@serialport/stream': {},
      'node_modules/linked': { link: true },
    },
  });
  assert.deepEqual(roots, [
    'node_modules/@serialport/stream',
    'node_modules/a',
    'node_modules/dev-tool/node_modules/shared',
    'node_modules/fsevents',
    'node_modules/tar',
  ]);
});

test("this project's lock: the runtime dependencies are packed, the toolchain is not", () => {
  const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8'));
  const filter = productionModuleFilter(lock);
  for (const name of ['busboy', 'tar', 'multicast-dns', 'mqtt', 'serialport', 'convict'])
    assert.equal(filter(`node_modules/${name}/package.json`), true, name);
  for (const name of ['typescript', 'eslint', 'tsx', 'prettier', 'fast-check'])
    assert.equal(filter(`node_modules/${name}/package.json`), false, name);
});
