// The test suite runs in a clone without the shared folder beside it (../shared: the capture
// corpus and reference documents, never copied into the repository): the tests that need it skip
// with a printed reason, and fail only under CI=true (docs/architecture.md#test-tiers). So only the
// environment helper names that folder or its override, no module reads the corpus when it is
// loaded, and every test file that reaches the corpus, itself or through a module of the test tree
// it imports, goes through the helper's skip (requireCorpus, corpusBytes, requireSharedFile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from '../helpers/environment.js';

const TEST_ROOT = join(repoRoot, 'test');
const HELPER = join(TEST_ROOT, 'helpers', 'environment.ts');
/** This file: its patterns and examples name what they look for. */
const SELF = join(TEST_ROOT, 'architecture', 'shared-folder.test.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sourceFiles(path);
      return name.endsWith('.ts') ? [path] : [];
    });
}

const files = sourceFiles(TEST_ROOT).filter((file) => file !== HELPER && file !== SELF);
const sources = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));

/** The shared folder or the corpus override named in a path: `../shared`, `'..', 'shared'`, the variable. */
const NAMES_SHARED = /\.\.\/shared\b|['"]\.\.['"]\s*,\s*['"]shared['"]|TEST_CORPUS_DIR|TEST_SHARED_DIR/;
/** What reaches the corpus: the helper's folder, or a folder a test module derives from it. */
const REACHES_CORPUS = /\bcorpusDir\b/;
/** The helper's calls that skip a test when the folder is absent. */
const SKIPS = /\b(requireCorpus|corpusBytes|requireSharedFile)\(/;
/** A read of the file system in a statement at module level (column 0), run when the module loads. */
const MODULE_LEVEL_READ =
  /^(?:export )?(?:const|let|var) [^\n]*\b(?:readFileSync|readdirSync|statSync)\([^\n]*/m;

/** The test-tree modules a file imports (relative imports of .js files, as .ts paths). */
function localImports(file: string): string[] {
  const found: string[] = [];
  for (const match of sources.get(file)!.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
    const target = resolve(dirname(file), `${match[1]}.ts`);
    if (target.startsWith(TEST_ROOT) && existsSync(target)) found.push(target);
  }
  return found;
}

/** Whether the file reaches the corpus, itself or through what it imports from the test tree. */
function reachesCorpus(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const source = sources.get(file);
  if (source === undefined) return false;
  return REACHES_CORPUS.test(source) || localImports(file).some((target) => reachesCorpus(target, seen));
}

const name = (file: string) => relative(repoRoot, file);

test('only the environment helper names the shared folder, TEST_CORPUS_DIR or TEST_SHARED_DIR', () => {
  const offenders = files.filter((file) => NAMES_SHARED.test(sources.get(file)!)).map(name);
  assert.deepEqual(offenders, [], 'use corpusDir / requireSharedFile of test/helpers/environment.ts');
});

test('no test module reads the corpus when it is loaded', () => {
  const offenders = files
    .filter((file) => reachesCorpus(file))
    .filter((file) => {
      const lines = sources.get(file)!.split('\n');
      return lines.some((line) => MODULE_LEVEL_READ.test(line) && /corpus/i.test(line));
    })
    .map(name);
  assert.deepEqual(offenders, [], 'read corpus files inside the tests, after requireCorpus');
});

test('every test file that reaches the corpus skips through the helper when it is absent', () => {
  const offenders = files
    .filter((file) => file.endsWith('.test.ts') && reachesCorpus(file))
    .filter((file) => !SKIPS.test(sources.get(file)!))
    .map(name);
  assert.deepEqual(offenders, [], 'call requireCorpus (or corpusBytes) before using the corpus');
});

test('the checks see what they look for', () => {
  assert.ok(NAMES_SHARED.test("join(repoRoot, '..', 'shared', 'reference')"));
  assert.ok(NAMES_SHARED.test('resolve(root, "../shared/corpus")'));
  assert.ok(MODULE_LEVEL_READ.test("const TELEGRAM = readFileSync(join(corpusDir, 'dsmr', 'a.txt'));"));
  assert.ok(!MODULE_LEVEL_READ.test("  const telegram = readFileSync(join(corpusDir, 'a.txt'));"));
  assert.ok(
    files.some((file) => reachesCorpus(file)),
    'test files that use the corpus exist',
  );
});
