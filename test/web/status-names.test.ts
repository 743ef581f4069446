import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OUTPUT_NAMES } from '../../src/contracts/outputs.js';
import { repoRoot } from '../helpers/environment.js';

// The page's status boards read the declared list of outputs (docs/architecture.md#output-contract):
// every name a `data-status` board lists is a declared output with a label on the page, so no board
// waits for a status line that no output writes.

const ui = join(repoRoot, 'src', 'web', 'ui');

test('every status board names declared outputs that the page labels', () => {
  const html = readFileSync(join(ui, 'index.html'), 'utf8');
  const boards = [...html.matchAll(/data-status="([^"]*)"/g)].map((match) =>
    match[1]!.split(/\s+/).filter(Boolean),
  );
  assert.ok(boards.length >= 3, 'the page has its status boards');
  const source = readFileSync(join(ui, 'status.ts'), 'utf8');
  const block = /const LABELS[^{]*\{([^}]*)\}/.exec(source)?.[1] ?? '';
  const labelled = new Set([...block.matchAll(/^\s*(\w+):/gm)].map((match) => match[1]!));
  const declared = new Set<string>(OUTPUT_NAMES);
  for (const name of boards.flat()) {
    assert.ok(declared.has(name), `${name} is a declared output (src/contracts/outputs.ts)`);
    assert.ok(labelled.has(name), `${name} has a label in status.ts`);
  }
  for (const name of labelled) assert.ok(declared.has(name), `the label ${name} is a declared output`);
});
