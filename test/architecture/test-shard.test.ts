// The fast tier's shards (scripts/test-shard.mjs, docs/architecture.md#test-tiers) give each file
// what a process of its own gave it: its tests run alone, with the environment the shard started
// with plus what the file itself set, and its top-level after() runs when its own tests are done.
// Checked on three small files run by node's test runner in one shard, as scripts/run-tests.mjs
// runs them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/environment.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Runs `files` (name -> source) as one shard; its output, exit status and the per-file times. */
function runShard(
  dir: string,
  files: Record<string, string>,
): { status: number | null; output: string; times: Array<{ file: string; ok: boolean }> } {
  const paths = Object.entries(files).map(([name, source]) => {
    const path = join(dir, name);
    writeFileSync(path, source);
    return path;
  });
  const entry = join(dir, 'shard.mjs');
  const runner = pathToFileURL(join(repoRoot, 'scripts', 'test-shard.mjs')).href;
  writeFileSync(
    entry,
    `import { runFiles } from ${JSON.stringify(runner)};\nawait runFiles(${JSON.stringify(paths)});\n`,
  );
  const timesFile = join(dir, 'times.jsonl');
  // NODE_TEST_CONTEXT tells a node started by a test runner that it is a test file, not a runner.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=spec', entry], {
    encoding: 'utf8',
    env: { ...env, TZ: 'UTC', MG_TEST_FILE_TIMES: timesFile },
    timeout: 60_000,
  });
  let times: Array<{ file: string; ok: boolean }> = [];
  try {
    times = readFileSync(timesFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { file: string; ok: boolean });
  } catch {
    // no file ran to its end
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}`, times };
}

test('a shard runs each file alone, with the starting environment plus its own, and its after() at its own end', (t) => {
  const dir = tempDir('mg-shard-', t);
  const log = join(dir, 'order.log');
  const note = (what: string) => `appendFileSync(${JSON.stringify(log)}, ${what} + '\\n');`;
  const { status, output, times } = runShard(dir, {
    'first.test.mjs': `
      import { test, after } from 'node:test';
      import { appendFileSync } from 'node:fs';
      process.env.TZ = 'Australia/Sydney';
      process.env.MG_SHARD_FIRST = 'set';
      after(() => { ${note("'first after'")} });
      test('first, slow', async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        ${note("'first test ' + new Date(Date.UTC(2026, 0, 1)).getHours()")}
      });`,
    'second.test.mjs': `
      import { test, describe, it } from 'node:test';
      import { appendFileSync } from 'node:fs';
      ${note("'second loaded ' + (process.env.MG_SHARD_FIRST ?? 'unset')")}
      describe('a suite', () => {
        it('second', () => { ${note("'second test ' + new Date(Date.UTC(2026, 0, 1)).getHours()")} });
      });`,
    'third.test.mjs': `
      import { test } from 'node:test';
      test('third fails', () => { throw new Error('planted failure'); });`,
  });
  assert.equal(status, 1, output);
  assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), [
    'first test 11', // Sydney: UTC+11 on 1 January
    'first after',
    'second loaded unset',
    'second test 0', // back to the shard's UTC
  ]);
  assert.match(output, /planted failure/);
  assert.deepEqual(
    times.map(({ file, ok }) => [file.slice(dir.length + 1), ok]),
    [
      ['first.test.mjs', true],
      ['second.test.mjs', true],
      ['third.test.mjs', false],
    ],
  );
});

test('a shard refuses a top-level beforeEach, which would run around every later file', (t) => {
  const dir = tempDir('mg-shard-', t);
  const { status, output, times } = runShard(dir, {
    'hooks.test.mjs': `
      import { test, beforeEach } from 'node:test';
      beforeEach(() => {});
      test('never reached', () => {});`,
    'next.test.mjs': `
      import { test } from 'node:test';
      test('runs', () => {});`,
  });
  assert.equal(status, 1, output);
  assert.match(
    output,
    /hooks\.test\.mjs: a top-level beforeEach\(\) would run around the tests of every later file/,
  );
  assert.deepEqual(
    times.map(({ ok }) => ok),
    [false, true],
  );
});
