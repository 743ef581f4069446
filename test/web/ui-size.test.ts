// The size of the web interface as the gateway serves it: every asset in its gzip form (or as is,
// where gzip would not make it smaller), summed. A bound on bytes, not on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadStaticAssets } from '../../src/web/static-assets.js';

/** The whole interface, uPlot included, must stay under this when compressed. */
const LIMIT_BYTES = 160 * 1024;

test('the web interface stays under 160 kB gzipped', (t) => {
  const assets = loadStaticAssets();
  assert.ok(
    assets.some((asset) => asset.urlPath === '/') && assets.some((asset) => asset.urlPath === '/app.js'),
    'the interface is built',
  );
  const sized = assets.map((asset) => ({ path: asset.urlPath, bytes: (asset.gzip ?? asset.body).length }));
  const total = sized.reduce((sum, asset) => sum + asset.bytes, 0);
  const raw = assets.reduce((sum, asset) => sum + asset.body.length, 0);
  t.diagnostic(`${assets.length} files, ${raw} bytes, ${total} bytes gzipped (limit ${LIMIT_BYTES})`);
  assert.ok(
    total < LIMIT_BYTES,
    `${total} bytes gzipped: ${sized.map((asset) => `${asset.path} ${asset.bytes}`).join(', ')}`,
  );
});
