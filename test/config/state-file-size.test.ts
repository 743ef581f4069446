import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'typebox';
import { VersionedStateFile, type StateFileProblem } from '../../src/config/state-file.js';
import { tempDir } from '../helpers/temp-dir.js';

// A state file larger than its bound is not read into memory: it is moved aside as damaged, like
// one that fails its contract (docs/architecture.md#durability).

const Schema = Type.Object({ version: Type.Literal(1), note: Type.String() });

test('a state file over its size bound is moved aside unread; one within it loads', (t) => {
  const dir = tempDir('mg-state-size-', t);
  const path = join(dir, 'part.json');
  const problems: StateFileProblem[] = [];
  const file = new VersionedStateFile(path, Schema, {
    now: () => Date.UTC(2026, 10, 29),
    onProblem: (problem) => problems.push(problem),
    maxBytes: 1024,
  });
  writeFileSync(path, JSON.stringify({ version: 1, note: 'x'.repeat(900) }));
  assert.equal(file.load()?.note.length, 900);
  writeFileSync(path, JSON.stringify({ version: 1, note: 'x'.repeat(2000) }));
  assert.equal(file.load(), undefined);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]!.reason, 'larger than 1024 bytes');
  assert.deepEqual(readdirSync(dir), [problems[0]!.movedTo.slice(dir.length + 1)]);
  assert.equal(file.load(), undefined, 'absent now: nothing to load, nothing to report');
  assert.equal(problems.length, 1);
});
