import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withConfigReference } from '../../src/config/reference.js';
import { LEAVES } from '../../src/config/paths.js';
import { repoRoot } from '../helpers/environment.js';
import { registerConfigFormats } from '../../src/config-formats.js';

// The formats the outputs and the meter own, as the daemon registers them before its config load.
registerConfigFormats();

test('the configuration reference of the user guide is in sync with the schema', () => {
  const readme = readFileSync(join(repoRoot, 'docs', 'guide', 'configuration-reference.md'), 'utf8');
  assert.equal(readme, withConfigReference(readme), 'run `npm run config-reference` to regenerate it');
  for (const path of LEAVES.keys()) assert.ok(readme.includes(`| \`${path}\` |`), path);
});
