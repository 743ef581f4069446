// The marker of a removed meter's history folder (docs/architecture.md#housekeeping): a marker that
// is empty or torn (a power cut while it was written on an SD card) is no time; the folder is marked
// again from now and kept for history.keep_removed_days, never deleted at once.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REMOVED_MARKER, upkeepRemovedMeters } from '../../src/history/upkeep.js';
import { silentLogger } from '../helpers/log-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

const DAY_MS = 86_400_000;

test('an empty or torn removal marker keeps the folder and is written again from now', (t) => {
  const meters = tempDir('mg-removed-', t);
  const now = Date.UTC(2026, 10, 29, 12);
  // Empty, the first digits of a time, and no number at all.
  const markers = { empty: '', torn: '17', words: 'not a time' };
  for (const [id, marker] of Object.entries(markers)) {
    mkdirSync(join(meters, id));
    writeFileSync(join(meters, id, REMOVED_MARKER), marker);
  }
  assert.deepEqual(upkeepRemovedMeters(meters, new Set(['main']), 30, now, silentLogger()), []);
  for (const id of Object.keys(markers)) {
    assert.ok(existsSync(join(meters, id)), `${id}: kept`);
    assert.equal(
      readFileSync(join(meters, id, REMOVED_MARKER), 'utf8'),
      String(now),
      `${id}: marked from now`,
    );
  }
  // Marked from now: kept 29 days later, deleted after 30.
  upkeepRemovedMeters(meters, new Set(['main']), 30, now + 29 * DAY_MS, silentLogger());
  assert.ok(existsSync(join(meters, 'empty')));
  upkeepRemovedMeters(meters, new Set(['main']), 30, now + 30 * DAY_MS, silentLogger());
  for (const id of Object.keys(markers)) assert.equal(existsSync(join(meters, id)), false, `${id}: deleted`);
});
