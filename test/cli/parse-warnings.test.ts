import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cliCommand, corpusDir, repoRoot, requireCorpus } from '../helpers/environment.js';

test('meter-gateway parse prints no warning (no TimeoutOverflowWarning from the never-stale store)', (t) => {
  if (!requireCorpus(t)) return;
  const { command, args } = cliCommand();
  const result = spawnSync(command, [...args, 'parse', join(corpusDir, 'dsmr', 'amshan_sweden_ell5.txt')], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
  assert.match(result.stdout, /"report"/);
});
