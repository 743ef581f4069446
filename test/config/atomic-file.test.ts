import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../src/config/atomic-file.js';
import { killWriterAfter } from '../helpers/killed-writer.js';
import { versionContent } from './atomic-versions.js';

test('writeFileAtomic writes only when the content changed and keeps the mode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-atomic-'));
  const path = join(dir, 'secrets.json');
  assert.equal(writeFileAtomic(path, 'a', 0o600), true);
  assert.equal(writeFileAtomic(path, 'a', 0o600), false);
  assert.equal(writeFileAtomic(path, 'b', 0o600), true);
  assert.equal(readFileSync(path, 'utf8'), 'b');
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ['secrets.json'], 'no temp files left behind');
});

// A dozen or more writer processes started and killed one after another.
const WRITER_ROUNDS = { timeout: 240_000 };

test('SIGKILL during 200+ writes never leaves a mix of old and new content', WRITER_ROUNDS, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mg-atomic-kill-'));
  const path = join(dir, 'settings.json');
  let next = 0;
  let rounds = 0;
  while (next < 240 || rounds < 12) {
    const lastReported = await killWriterAfter(
      'config/atomic-writer-child',
      [path],
      next,
      // Killed after 1 to 40 reported writes: about 20 a round, 12 rounds or a few more.
      { reports: 1 + Math.floor(Math.random() * 40) },
    );
    rounds += 1;
    const content = readFileSync(path, 'utf8');
    const version = (JSON.parse(content.slice(0, content.indexOf('\n'))) as { version: number }).version;
    assert.equal(content, versionContent(version), `round ${rounds}: file is exactly one version`);
    // The file holds the last reported version or the one after it (killed between rename and report).
    assert.ok(
      version === lastReported || version === lastReported + 1,
      `round ${rounds}: ${version} vs ${lastReported}`,
    );
    next = version + 1;
  }
  assert.ok(next >= 200, `only ${next} writes happened`);
});
