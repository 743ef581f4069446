// The tier list of scripts/test-tiers.mjs stays true (docs/architecture.md#test-tiers): every entry
// names test files that exist, and a test file that starts Chromium, a container, install.sh, the
// daemon as a child process or a SIGKILL loop is in the system tier, so the fast tier stays fast; and no fast-tier file declares a
// top-level hook that its shard (scripts/test-shard.mjs) would run around the files after it, nor
// does a page file of the system tier (they run in page shards).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/environment.js';

interface Tiers {
  SYSTEM_TIER: string[];
  testId(path: string): string;
  entryMatches(entry: string, id: string): boolean;
  tierOf(path: string): 'fast' | 'system';
  isPageFile(path: string): boolean;
}

const tiers = (await import(pathToFileURL(join(repoRoot, 'scripts', 'test-tiers.mjs')).href)) as Tiers;

function testFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return testFiles(path);
      return name.endsWith('.test.ts') ? [relative(repoRoot, path)] : [];
    });
}

const files = testFiles(join(repoRoot, 'test'));

/** What puts a file into the system tier: the helpers and programs that make a test slow. */
const SYSTEM_MARKS: Array<[RegExp, string]> = [
  [/helpers\/(file-)?browser\.js|\/page-rig\.js/, 'Chromium'],
  [/helpers\/daemon-process\.js/, 'the daemon as a child process'],
  [/\/podman\.js/, 'podman'],
  [/install\.sh/, 'install.sh'],
  [/SIGKILL/, 'SIGKILL'],
];

test('every entry of the system tier names at least one existing test file', () => {
  const unmatched = tiers.SYSTEM_TIER.filter(
    (entry) => !files.some((file) => tiers.entryMatches(entry, tiers.testId(file))),
  );
  assert.deepEqual(unmatched, []);
});

test('a test file using Chromium, podman, install.sh, a daemon process or SIGKILL is in the system tier', () => {
  assert.ok(files.length > 100, `${files.length} test files found`);
  const misplaced = files.flatMap((file) => {
    if (file.endsWith('test-tiers.test.ts')) return []; // this file names the marks
    const source = readFileSync(join(repoRoot, file), 'utf8');
    const marks = SYSTEM_MARKS.filter(([pattern]) => pattern.test(source)).map(([, what]) => what);
    return marks.length > 0 && tiers.tierOf(file) !== 'system' ? [`${file} (${marks.join(', ')})`] : [];
  });
  assert.deepEqual(misplaced, []);
});

test('the tier of a path: listed files and folders are system, everything else fast, from test/ or dist/test/', () => {
  assert.equal(tiers.tierOf('test/web/theme.test.ts'), 'system');
  assert.equal(tiers.tierOf('dist/test/web/theme.test.js'), 'system');
  assert.equal(tiers.tierOf('dist/test/container/image.test.js'), 'system');
  assert.equal(tiers.tierOf('test/web/ui-helpers.test.ts'), 'fast');
  // An entry names one file exactly: web/dashboard is not web/dashboard-headline's prefix rule.
  assert.equal(tiers.testId('dist/test/web/dashboard-headline.test.js'), 'web/dashboard-headline');
  assert.equal(tiers.entryMatches('web/dashboard', 'web/dashboard-headline'), false);
  // The system tier's page files run in page shards; a fast-tier file of test/web/ does not.
  assert.equal(tiers.isPageFile('dist/test/web/theme.test.js'), true);
  assert.equal(tiers.isPageFile('test/web/ui-helpers.test.ts'), false);
  assert.equal(tiers.isPageFile('dist/test/container/image.test.js'), false);
});

test('no fast-tier or page file declares a top-level before, beforeEach or afterEach (its shard would run it around later files)', () => {
  const pageFiles = files.filter((file) => tiers.isPageFile(file));
  assert.ok(pageFiles.length > 20, `${pageFiles.length} page files found`);
  const offenders = files.flatMap((file) => {
    if (tiers.tierOf(file) !== 'fast' && !tiers.isPageFile(file)) return [];
    const source = readFileSync(join(repoRoot, file), 'utf8');
    const hooks = [...source.matchAll(/^(before|beforeEach|afterEach)\(/gm)].map((match) => match[1]);
    return hooks.length > 0 ? [`${file} (${hooks.join(', ')})`] : [];
  });
  assert.deepEqual(offenders, []);
});
