import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import type { TestContext } from 'node:test';

/** The project root (the folder with package.json), whether tests run from test/ or dist/test/. */
export const repoRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the test helpers');
    dir = parent;
  }
  return dir;
})();

/**
 * The capture corpus beside the project (recorded public captures; never copied into the repo):
 * ../shared/corpus, or TEST_CORPUS_DIR (a missing folder shows how the corpus tests skip).
 */
export const corpusDir: string = resolve(
  process.env.TEST_CORPUS_DIR ?? resolve(repoRoot, '..', 'shared', 'corpus'),
);

export const inCi: boolean = process.env.CI === 'true';

/**
 * Skips the test with a printed reason when a peer is missing, but fails it under CI=true
 * (under CI a test whose peer is missing fails, so a CI image without it cannot pass).
 */
export function requirePeer(t: TestContext, available: boolean, what: string): boolean {
  if (available) return true;
  if (inCi) throw new Error(`required test peer missing under CI: ${what}`);
  console.log(`# skipped: ${what} is not available here`);
  t.skip(`${what} is not available`);
  return false;
}

export function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Skips (or fails under CI) when `command` is not on PATH. */
export function requireCommand(t: TestContext, command: string): boolean {
  return requirePeer(t, hasCommand(command), `command '${command}'`);
}

/** Skips (or fails under CI) when the capture corpus is absent. */
export function requireCorpus(t: TestContext): boolean {
  return requirePeer(t, existsSync(corpusDir), `corpus at ${corpusDir}`);
}

/**
 * The bytes of one corpus file (`relative` below the corpus, e.g. `dsmr/ndokter_v5.txt`), or
 * undefined when the corpus is absent (the test skipped, or failed under CI).
 */
export function corpusBytes(t: TestContext, relative: string): Buffer | undefined {
  if (!requireCorpus(t)) return undefined;
  return readFileSync(join(corpusDir, relative));
}

/**
 * The shared folder beside the project (../shared: reference documents and the corpus; never
 * copied into the repository), or TEST_SHARED_DIR. Tests reach it only through this module, so that a clone without
 * it skips those tests (test/architecture/shared-folder.test.ts).
 */
export const sharedDir: string = resolve(process.env.TEST_SHARED_DIR ?? resolve(repoRoot, '..', 'shared'));

/**
 * The path of a file of the shared folder (`relative` below it, e.g. `reference/x.yaml`), or
 * undefined when it is absent (the test skipped, or failed under CI).
 */
export function requireSharedFile(t: TestContext, relative: string): string | undefined {
  const file = join(sharedDir, relative);
  return requirePeer(t, existsSync(file), `shared file ${file}`) ? file : undefined;
}

/**
 * Command line that runs the daemon CLI: the built dist/src/main.js when tests run compiled, or
 * src/main.ts through tsx when a single test runs from source (`node --import tsx --test ...`).
 */
export function cliCommand(): { command: string; args: string[] } {
  const fromSource = fileURLToPath(import.meta.url).endsWith('.ts');
  if (fromSource)
    return { command: process.execPath, args: ['--import', 'tsx', join(repoRoot, 'src', 'main.ts')] };
  return {
    command: process.execPath,
    args: ['--enable-source-maps', join(repoRoot, 'dist', 'src', 'main.js')],
  };
}

/**
 * Command line that runs a module of the test tree (a child process for a test): compiled .js when
 * tests run from dist, the .ts through tsx when run from source. `fromTestRoot` is relative to
 * test/, without extension, e.g. 'config/atomic-writer-child'.
 */
export function testModuleCommand(fromTestRoot: string): { command: string; args: string[] } {
  const fromSource = fileURLToPath(import.meta.url).endsWith('.ts');
  if (fromSource)
    return {
      command: process.execPath,
      args: ['--import', 'tsx', join(repoRoot, 'test', `${fromTestRoot}.ts`)],
    };
  return { command: process.execPath, args: [join(repoRoot, 'dist', 'test', `${fromTestRoot}.js`)] };
}
