import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHttpContext } from '../helpers/http-context.js';
import { pushClient, ZERO_COUNTS } from './push-fixture.js';

/**
 * The push cursor file held to its contract (docs/architecture.md#durability): a file cut short, of
 * another version or missing a field is moved aside as `.corrupt-<time>`, counted as
 * state_file_corrupt, and the target starts at the retention edge as without a file. No request is
 * made: the client is loaded, not started.
 */
const CURSOR = 1_700_000_100;
const valid = JSON.stringify({ version: 1, cursor: CURSOR, counts: { ...ZERO_COUNTS, sent: 7 } });

test('a valid cursor file is read: its cursor and counts', async () => {
  const h = await startHttpContext();
  try {
    mkdirSync(join(h.stateDir, 'push'));
    writeFileSync(join(h.stateDir, 'push', 'fleet.json'), valid);
    const client = pushClient(h, [], { kind: 'vm_import', url: 'http://127.0.0.1:9/api/v1/import' });
    assert.equal(client.status().cursor, CURSOR);
    assert.equal(client.status().counts.sent, 7);
    assert.equal(h.ctx.refusals.get('state_file_corrupt'), 0);
  } finally {
    await h.close();
  }
});

for (const [variant, damaged] of [
  ['truncated', valid.slice(0, valid.length / 2)],
  ['of another version', valid.replace('"version":1', '"version":2')],
  [
    'without its version (as written before the version)',
    JSON.stringify({ cursor: CURSOR, counts: ZERO_COUNTS }),
  ],
  ['missing a field', JSON.stringify({ version: 1, cursor: CURSOR })],
] as const) {
  test(`a cursor file ${variant} is moved aside, counted, and the target starts at the retention edge`, async () => {
    const h = await startHttpContext();
    try {
      const dir = join(h.stateDir, 'push');
      mkdirSync(dir);
      writeFileSync(join(dir, 'fleet.json'), damaged);
      const client = pushClient(h, [], { kind: 'vm_import', url: 'http://127.0.0.1:9/api/v1/import' });
      const aside = readdirSync(dir).filter((name) => name.startsWith('fleet.json.corrupt-'));
      assert.equal(aside.length, 1, readdirSync(dir).join(', '));
      assert.equal(readFileSync(join(dir, aside[0]!), 'utf8'), damaged);
      assert.equal(h.ctx.refusals.get('state_file_corrupt'), 1);
      const status = client.status();
      assert.notEqual(status.cursor, CURSOR);
      assert.deepEqual(status.counts, ZERO_COUNTS);
      // The retention edge, written back in the current version.
      const edge = h.ctx.now() / 1000 - 30 * 86_400 + 3600;
      assert.ok(Math.abs(status.cursor - edge) < 900, `${status.cursor} vs ${edge}`);
      const fresh = JSON.parse(readFileSync(join(dir, 'fleet.json'), 'utf8')) as {
        version: number;
        cursor: number;
      };
      assert.deepEqual([fresh.version, fresh.cursor], [1, status.cursor]);
    } finally {
      await h.close();
    }
  });
}
