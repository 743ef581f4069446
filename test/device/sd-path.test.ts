import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSdPath } from '../../src/device/sd-path.js';

function tree(): { base: string; root: string } {
  const base = mkdtempSync(join(tmpdir(), 'sd-path-'));
  const root = join(base, 'sd');
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'a.csv'), 'a');
  writeFileSync(join(root, 'sub', 'b.csv'), 'b');
  writeFileSync(join(base, 'secrets.json'), '{}');
  symlinkSync(join(base, 'secrets.json'), join(root, 'out.json'));
  symlinkSync(join(root, 'a.csv'), join(root, 'in.csv'));
  return { base, root };
}

test('paths inside the folder resolve to their real path and the listing form', async () => {
  const { base, root } = tree();
  try {
    assert.deepEqual(await resolveSdPath(root, ''), {
      ok: true,
      path: root,
      display: '/',
      directory: true,
      root: true,
    });
    const sub = await resolveSdPath(root, 'sub/');
    assert.equal(sub.ok && sub.display, '/sub/');
    const file = await resolveSdPath(root, 'sub/b.csv');
    assert.equal(file.ok && file.path, join(root, 'sub', 'b.csv'));
    assert.equal(file.ok && file.directory, false);
    const encoded = await resolveSdPath(root, 'sub%2Fb.csv');
    assert.equal(encoded.ok && encoded.path, join(root, 'sub', 'b.csv'), 'one decoding');
    const link = await resolveSdPath(root, 'in.csv');
    assert.equal(link.ok && link.path, join(root, 'a.csv'), 'a link inside stays inside');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test('every way out is refused: dot segments raw and encoded, absolute, links out, NUL, backslash', async () => {
  const { base, root } = tree();
  try {
    const cases: [string, number][] = [
      ['..', 404],
      ['../secrets.json', 404],
      ['%2e%2e/secrets.json', 404],
      ['..%2Fsecrets.json', 404],
      ['sub/../../secrets.json', 404],
      ['./a.csv', 404],
      ['/etc/passwd', 404],
      ['%2Fetc%2Fpasswd', 404],
      ['sub//b.csv', 404],
      ['out.json', 404],
      ['%252e%252e/secrets.json', 404],
      ['missing.csv', 404],
      ['a.csv%00', 400],
      ['..%5Csecrets.json', 400],
      ['%E0%A4%A', 400],
    ];
    for (const [path, status] of cases) {
      const result = await resolveSdPath(root, path);
      assert.equal(result.ok, false, path);
      assert.equal(!result.ok && result.status, status, path);
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
