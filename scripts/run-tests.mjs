#!/usr/bin/env node
// Runs the compiled test files (dist/test/**/*.test.js) with node's test runner, in two tiers
// (scripts/test-tiers.mjs): the fast tier first, so that a failure there shows within a minute, then
// the system tier. Node 20 and 22 differ in how `node --test DIR` expands arguments, so the list is
// built here.
//
//   node scripts/run-tests.mjs                 both tiers (what `npm test` runs after the checks)
//   node scripts/run-tests.mjs --tier=fast     the fast tier alone (`npm run test:fast`)
//   node scripts/run-tests.mjs --tier=system   the system tier alone
//   node scripts/run-tests.mjs modbus mqtt/    files whose path contains one of the words, any tier
//
// The fast tier runs in shards, one more than there are cores (a file's loopback peers leave a core
// idle now and then): each shard is one process that runs its files one after another
// (scripts/test-shard.mjs), because starting node and loading the same modules again was two thirds
// of the fast tier's CPU. TEST_ISOLATE=1 gives each fast file a process of its own again, and files
// picked by a word always get one. The system tier runs one process per file, as many at a time
// (its tests wait on child processes, browsers and peers, but the container build and Chromium pages
// running side by side starve each other: at twice the cores on two, a page test missed its 30 s
// wait now and then), except its page files (test/web/): those run in two or three shards with one
// browser each, started first as the tier's longest jobs (TEST_ISOLATE=1 and words: a process
// each). TEST_CONCURRENCY overrides both numbers. At the end: both tiers' counts and
// times and the ten slowest files.
// Every test has a deadline (60 s, or its own `{ timeout }` when it legitimately needs longer; set
// TEST_TIMEOUT_MS to change the default): see scripts/test-deadline.mjs.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { isPageFile, tierOf } from './test-tiers.mjs';

/** The longest a test file's process may run (the slowest file, the container image test, takes ~200 s). */
const FILE_TIMEOUT_MS = 900_000;

const root = new URL('..', import.meta.url).pathname;
const testRoot = join(root, 'dist', 'test');
const cores = availableParallelism();
const CONCURRENCY = {
  fast: cores + 1,
  system: cores + 1,
};
/**
 * The system tier's page files run in this many processes, one browser each (scripts/test-tiers.mjs
 * PAGE_FOLDER). Their entry modules sit in a folder that sorts after dist/test/ (node's runner
 * starts its files in path order), so the page shards start last, as the page files did: started
 * first, they would hold two of the three places while the files that mostly wait on peers and
 * real time went through the third one after another.
 */
const PAGE_SHARDS = Math.max(2, Math.min(3, cores + 1));

function collect(dir) {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...collect(path));
    else if (name.endsWith('.test.js')) files.push(path);
  }
  return files;
}

const args = process.argv.slice(2);
const tierArg = args.find((arg) => arg.startsWith('--tier='))?.slice('--tier='.length) ?? 'all';
if (!['fast', 'system', 'all'].includes(tierArg)) {
  console.error(`unknown --tier=${tierArg} (fast, system or all)`);
  process.exit(2);
}
const filters = args.filter((arg) => !arg.startsWith('--'));
let all;
try {
  all = collect(testRoot);
} catch {
  all = [];
}
const files = all.filter(
  (file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)),
);
if (files.length === 0) {
  console.error('no test files found under dist/test (run `npm run build` first)');
  process.exit(1);
}

const tiers = (tierArg === 'all' ? ['fast', 'system'] : [tierArg])
  .map((tier) => ({ tier, files: files.filter((file) => tierOf(relative(root, file)) === tier) }))
  .filter(({ files: inTier }) => inTier.length > 0);

/**
 * The fast tier's files in `count` shards, each a generated entry module that runs its files one
 * after another in one process (scripts/test-shard.mjs); files are dealt out in turn, so each shard
 * gets a share of every folder. Returns the entry modules' paths.
 */
function shardEntries(tierFiles, count, scratch, name) {
  const shards = Array.from({ length: Math.min(count, tierFiles.length) }, () => []);
  tierFiles.forEach((file, index) => shards[index % shards.length].push(file));
  const runner = pathToFileURL(join(root, 'scripts', 'test-shard.mjs')).href;
  return shards.map((shardFiles, index) => {
    const entry = join(scratch, `${name}-shard-${index + 1}.mjs`);
    writeFileSync(
      entry,
      `import { runFiles } from ${JSON.stringify(runner)};\nawait runFiles(${JSON.stringify(shardFiles, null, 1)});\n`,
    );
    return entry;
  });
}

/** Runs one tier's files; resolves with the exit status, the file times and the summary counters. */
function runTier(tier, tierFiles, scratch) {
  const times = join(scratch, `${tier}.jsonl`);
  const shardTimes = join(scratch, `${tier}-shards.jsonl`);
  const concurrency = Number(process.env.TEST_CONCURRENCY ?? CONCURRENCY[tier]);
  const sharded = filters.length === 0 && process.env.TEST_ISOLATE !== '1';
  // Sharded: the fast tier wholly, the system tier's page files; every other file a process each.
  const inShards = sharded
    ? tierFiles.filter((file) => tier === 'fast' || isPageFile(relative(root, file)))
    : [];
  const alone = tierFiles.filter((file) => !inShards.includes(file));
  const shards =
    inShards.length > 0
      ? shardEntries(
          inShards,
          tier === 'fast' ? concurrency : PAGE_SHARDS,
          tier === 'fast' ? scratch : pageScratch,
          tier === 'fast' ? 'fast' : 'page',
        )
      : [];
  const entries = [...shards, ...alone];
  console.log(
    shards.length > 0
      ? `\n# ${tier} tier: ${tierFiles.length} files in ${entries.length} processes, ${concurrency} at a time (${inShards.length} files in ${shards.length} shards; TEST_ISOLATE=1: one each)\n`
      : `\n# ${tier} tier: ${tierFiles.length} files, ${concurrency} at a time\n`,
  );
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      '--enable-source-maps',
      '--import',
      join(root, 'scripts', 'test-deadline.mjs'),
      '--test',
      `--test-concurrency=${concurrency}`,
      // Node 20 bounds each test file's process with this (Node 22 makes it the default of a test
      // that sets none, which test-deadline.mjs already sets): a file whose tests have ended but
      // whose process a leftover child keeps alive is cancelled instead of hanging the run.
      `--test-timeout=${FILE_TIMEOUT_MS}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'scripts', 'file-times-reporter.mjs')}`,
      `--test-reporter-destination=${times}`,
      ...entries,
    ],
    { stdio: 'inherit', cwd: root, env: { ...process.env, MG_TEST_FILE_TIMES: shardTimes } },
  );
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      const lines = readLines(times);
      const fileLines = [
        ...lines.filter((line) => line.file && !shards.includes(line.file)),
        ...readLines(shardTimes),
      ];
      resolve({
        tier,
        status: code ?? (signal ? 1 : 0),
        seconds: (Date.now() - started) / 1000,
        files: fileLines,
        summary: lines.find((line) => line.summary)?.summary ?? {},
      });
    });
  });
}

function readLines(path) {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

/**
 * One tier's counts, its wall time and the sum of its files' own times (each file or shard from its
 * start to its end): the sum over the wall time says how many files ran side by side on average.
 */
function describe({ tier, seconds, summary, files }) {
  const counts = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo']
    .map((name) => `${name} ${summary[name] ?? '?'}`)
    .join(', ');
  const fileSeconds = files.reduce((sum, file) => sum + file.ms, 0) / 1000;
  return `${tier} tier: ${counts}; ${seconds.toFixed(1)} s (files ${fileSeconds.toFixed(1)} s)`;
}

const scratch = mkdtempSync(join(tmpdir(), 'mg-test-times-'));
// "dist/tests-pages-..." sorts after every "dist/test/..." ('s' after '/').
const pageScratch = mkdtempSync(join(root, 'dist', 'tests-pages-'));
const results = [];
try {
  for (const { tier, files: tierFiles } of tiers) {
    const result = await runTier(tier, tierFiles, scratch);
    results.push(result);
    console.log(`\n# ${describe(result)}`);
    if (result.status !== 0)
      console.log(`# ${tier} tier FAILED (exit ${result.status}): see the failures above`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(pageScratch, { recursive: true, force: true });
}

const slowest = results
  .flatMap((result) => result.files.map((file) => ({ ...file, tier: result.tier })))
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 10);
console.log('\n# slowest test files');
for (const { file, ms, ok, tier } of slowest)
  console.log(
    `#   ${(ms / 1000).toFixed(1).padStart(6)} s  ${tier.padEnd(6)} ${relative(root, file)}${ok ? '' : '  FAILED'}`,
  );
for (const result of results) console.log(`# ${describe(result)}`);
if (results.length > 1) {
  const total = (name) => results.reduce((sum, result) => sum + (result.summary[name] ?? 0), 0);
  const seconds = results.reduce((sum, result) => sum + result.seconds, 0);
  console.log(
    `# all: tests ${total('tests')}, pass ${total('pass')}, fail ${total('fail')}; ${seconds.toFixed(1)} s`,
  );
}
process.exit(results.some((result) => result.status !== 0) ? 1 : 0);
