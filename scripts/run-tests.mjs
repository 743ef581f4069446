#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with node's test runner.
// Node 20 and 22 differ in how `node --test DIR` expands arguments, so the list is built here.
// Optional arguments filter by substring of the path: `node scripts/run-tests.mjs modbus`.
// Every test has a deadline (60 s, or its own `{ timeout }` when it legitimately needs longer; set
// TEST_TIMEOUT_MS to change the default): see scripts/test-deadline.mjs.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const testRoot = join(root, 'dist', 'test');

function collect(dir) {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...collect(path));
    else if (name.endsWith('.test.js')) files.push(path);
  }
  return files;
}

const filters = process.argv.slice(2);
const files = collect(testRoot).filter(
  (file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)),
);
if (files.length === 0) {
  console.error('no test files found under dist/test (run `npm run build` first)');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    '--import',
    join(root, 'scripts', 'test-deadline.mjs'),
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', cwd: root },
);
process.exit(result.status ?? 1);
