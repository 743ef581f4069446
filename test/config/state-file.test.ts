import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from 'typebox';
import { ConfigStore } from '../../src/config/config-store.js';
import { VersionedStateFile, type StateFileProblem } from '../../src/config/state-file.js';
import { STATE_FILES } from '../../src/config/state-files.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { RestartGuard } from '../../src/device/maintenance/restart-guard.js';
import { tempDir } from '../helpers/temp-dir.js';

registerConfigFormats();

/** State files validated at load (docs/architecture.md#durability): damaged ones moved aside, never fatal. */

const NOW = Date.UTC(2026, 10, 29, 8, 0, 0);
const Schema = Type.Object({ version: Type.Literal(2), cursor: Type.Integer(), name: Type.String() });
const VALID = { version: 2 as const, cursor: 41, name: 'x' };
const VARIANTS: [string, string][] = [
  ['truncated', JSON.stringify(VALID).slice(0, 17)],
  ['empty', ''],
  ['wrong version', JSON.stringify({ ...VALID, version: 1 })],
  ['field missing', JSON.stringify({ version: 2, name: 'x' })],
  ['wrong type', JSON.stringify({ ...VALID, cursor: 'many' })],
  ['not an object', '[1,2]'],
];

const corruptCopies = (dir: string, name: string) =>
  readdirSync(dir).filter((entry) => entry.startsWith(`${name}.corrupt-`));

test('a versioned state file: every damaged variant is moved aside and reported, the part starts empty', () => {
  for (const [variant, content] of VARIANTS) {
    const dir = tempDir('mg-state-file-');
    const path = join(dir, 'cursor.json');
    writeFileSync(path, content);
    const problems: StateFileProblem[] = [];
    const file = new VersionedStateFile(path, Schema, { now: () => NOW, onProblem: (p) => problems.push(p) });
    assert.equal(file.load(), undefined, variant);
    assert.equal(problems.length, 1, variant);
    assert.equal(existsSync(path), false, `${variant}: moved away`);
    assert.equal(readFileSync(problems[0]!.movedTo, 'utf8'), content, `${variant}: kept for a look`);
    assert.deepEqual(corruptCopies(dir, 'cursor.json'), ['cursor.json.corrupt-2026-11-29T08-00-00-000Z']);
    // The part goes on: the next save and load work.
    file.save(VALID);
    assert.deepEqual(file.load(), VALID, variant);
  }
});

test('maintenance.json: a damaged file does not block a reboot claim; it is moved aside and reported', () => {
  const variants: [string, string][] = [
    ['truncated', '{"version":1,"reboot":17'],
    ['wrong version', JSON.stringify({ version: 7, reboot: NOW })],
    ['wrong type', JSON.stringify({ version: 1, reboot: 'soon' })],
    ['old file without version', JSON.stringify({ reboot: NOW })],
  ];
  for (const [variant, content] of variants) {
    const dir = tempDir('mg-maintenance-');
    writeFileSync(join(dir, 'maintenance.json'), content);
    const problems: StateFileProblem[] = [];
    const guard = new RestartGuard(
      dir,
      () => NOW,
      (problem) => problems.push(problem),
    );
    assert.deepEqual(guard.claim('reboot'), { ok: true }, variant);
    assert.equal(problems.length, 1, variant);
    assert.equal(corruptCopies(dir, 'maintenance.json').length, 1, variant);
    // The claim was recorded in a valid file: a second one within 60 s is refused.
    assert.equal(guard.claim('reboot').ok, false, variant);
  }
});

test('every settings state file: truncated or invalid, it is moved aside and its section starts from defaults', () => {
  const variants: [string, (file: string) => string][] = [
    ['truncated', () => '{"system": {"host_name": "gw"'],
    ['wrong type', () => JSON.stringify({ system: { protection: 'maybe' } })],
    ['not an object', () => '"settings"'],
  ];
  for (const file of STATE_FILES) {
    for (const [variant, content] of variants) {
      const dir = tempDir('mg-state-');
      writeFileSync(join(dir, `${file}.json`), content(file));
      const store = ConfigStore.load({ env: {}, stateDir: dir });
      assert.deepEqual(
        store.problems.map((problem) => problem.file),
        [file],
        `${file}.json ${variant}`,
      );
      assert.equal(store.config.system.protection, false, `${file}.json ${variant}`);
      assert.equal(corruptCopies(dir, `${file}.json`).length, 1, `${file}.json ${variant}`);
    }
  }
});
