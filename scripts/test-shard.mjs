// Runs several test files one after another in one process: scripts/run-tests.mjs gives each fast-tier
// shard a generated entry module that calls runFiles() with its files (docs/architecture.md#test-tiers).
// A fast-tier file spends most of its CPU starting node and loading the same modules as every other
// file; in shards the fast tier needs about a third of the CPU of one process per file.
//
// Node 20 has no in-process mode of its own (`--experimental-test-isolation=none` came with 22.8), so
// this module gives each file what its own process gave it:
// - its tests run alone: the next file is imported only after every test, suite and hook the file
//   declared has finished (node:test's test() and describe() return a promise that settles then);
// - the environment it started with: process.env is put back to the shard's starting environment
//   before each file, so a file's module-level `process.env.TZ = ...` holds for its own tests only;
// - its own end: an after() at the top of a file runs when that file's tests are done, not at the
//   end of the shard. Other top-level hooks (before, beforeEach, afterEach) would apply to every later
//   file, so a fast-tier file that declares one fails with a message naming it.
// - shared helpers that outlive a file: a helper module is loaded once per shard, so it cannot hang
//   its clean-up on a file's after(); it asks the shard instead, through the object at
//   globalThis[Symbol.for('meter-gateway.test-shard')]: afterFile(hook) runs the hook after each file
//   (after its own after() hooks), atEnd(hook) after the last one. The page shards' one browser
//   (test/helpers/file-browser.ts) closes the contexts a file left open after each file and the
//   browser itself at the end.
// Each file's duration goes as one JSON line to the file named by MG_TEST_FILE_TIMES, for the
// runner's list of the slowest files.
import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const nodeTest = createRequire(import.meta.url)('node:test');
/** test() as the file's own process would have it (with scripts/test-deadline.mjs's deadline). */
const declareTest = nodeTest.test;

/** The file being run: the completion promises of what it declared, its top-level after() hooks. */
let current;
/** How deep inside a describe() callback the current declaration is (0: the file's top level). */
let suiteDepth = 0;

/** Marks the current file failed when `fn` throws; keeps the arity node:test reads (2: `done`). */
function watched(fn, file) {
  if (typeof fn !== 'function' || fn.length >= 2) return fn;
  return async function (context) {
    try {
      return await fn.call(this, context);
    } catch (error) {
      file.failed = true;
      throw error;
    }
  };
}

/** test(), it(), describe(), suite() that remember the promise of what they declare. */
function tracked(define, isSuite) {
  const declare = function (...args) {
    const file = current;
    if (!file) return define.apply(this, args);
    const at = args.findIndex((arg) => typeof arg === 'function');
    if (at !== -1) {
      const fn = args[at];
      args[at] = isSuite
        ? function (...suiteArgs) {
            suiteDepth += 1;
            try {
              return fn.apply(this, suiteArgs);
            } finally {
              suiteDepth -= 1;
            }
          }
        : watched(fn, file);
    }
    const settled = define.apply(this, args);
    if (settled && typeof settled.then === 'function') file.pending.push(settled);
    return settled;
  };
  return Object.assign(declare, define);
}

/** A top-level hook of a file: after() runs at the file's end; the others are refused. */
function fileHook(name, hook) {
  return function (...args) {
    if (!current || suiteDepth > 0 || current.running) return hook.apply(this, args);
    if (name === 'after') {
      current.afters.push(args.find((arg) => typeof arg === 'function'));
      return undefined;
    }
    throw new Error(
      `${current.path}: a top-level ${name}() would run around the tests of every later file in its ` +
        'shard; move it into a describe() or into the tests, or list the file in the system tier',
    );
  };
}

nodeTest.test = tracked(nodeTest.test, false);
nodeTest.it = tracked(nodeTest.it, false);
nodeTest.describe = tracked(nodeTest.describe, true);
nodeTest.suite = tracked(nodeTest.suite, true);
for (const name of ['before', 'after', 'beforeEach', 'afterEach'])
  nodeTest[name] = fileHook(name, nodeTest[name]);
syncBuiltinESMExports();

/** Reports `error` as a failed test named `name`, and the file as failed. */
async function failure(file, name, error) {
  file.failed = true;
  await declareTest(name, () => {
    throw error;
  });
}

/** The hooks of shared helpers (see the top of this file). */
const shardHooks = { afterFile: [], atEnd: [] };
globalThis[Symbol.for('meter-gateway.test-shard')] = {
  afterFile: (hook) => shardHooks.afterFile.push(hook),
  atEnd: (hook) => shardHooks.atEnd.push(hook),
};

/** Runs `paths` (compiled test files) one after another; see the top of this file. */
export async function runFiles(paths) {
  const startEnv = { ...process.env };
  const timesFile = process.env.MG_TEST_FILE_TIMES;
  for (const path of paths) {
    for (const name of Object.keys(process.env)) if (!(name in startEnv)) delete process.env[name];
    for (const [name, value] of Object.entries(startEnv))
      if (process.env[name] !== value) process.env[name] = value;
    const file = { path, pending: [], afters: [], failed: false, running: false };
    current = file;
    const started = performance.now();
    let loadError;
    try {
      await import(pathToFileURL(path).href);
    } catch (error) {
      loadError = error;
    }
    file.running = true;
    while (file.pending.length > 0) await Promise.allSettled(file.pending.splice(0));
    // A module that did not load (or declared a refused hook) shows as a failed test of its own.
    if (loadError !== undefined) await failure(file, `${path} loads`, loadError);
    for (const hook of file.afters) {
      try {
        await hook();
      } catch (error) {
        await failure(file, `${path} after()`, error);
      }
    }
    for (const hook of shardHooks.afterFile) {
      try {
        await hook();
      } catch (error) {
        await failure(file, `${path}: the shard's clean-up after it`, error);
      }
    }
    current = undefined;
    const ms = performance.now() - started;
    if (timesFile) appendFileSync(timesFile, `${JSON.stringify({ file: path, ms, ok: !file.failed })}\n`);
  }
  for (const hook of shardHooks.atEnd.splice(0)) {
    try {
      await hook();
    } catch (error) {
      await declareTest("the shard's clean-up at its end", () => {
        throw error;
      });
    }
  }
}
