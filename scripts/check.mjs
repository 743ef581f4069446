#!/usr/bin/env node
// `npm run check`: the build (tsc, both projects), the lint (eslint, type-aware) and the format
// check (prettier) of the whole repository. The three read only the sources and do not wait for
// each other (eslint type-checks through its own TypeScript service, not the build output), and
// each of them runs on one core, so they run side by side: on two cores the check takes about as
// long as its slowest part instead of the sum of all three. Each one's output is printed in one
// piece when it ends; the check fails when any of them fails.
//
// Prettier keeps a cache of the files it found formatted (node_modules/.cache/prettier, keyed by
// content), so a second check reads only the files that changed since.
//
//   node scripts/check.mjs          the whole check (`npm run check`, the first step of `npm test`)
//   node scripts/check.mjs --fast   the edit loop (`npm run check:fast`): the same three, with
//                                   ESLint's cache too, so an unchanged tree is checked in seconds
//
// ESLint's cache stays out of the whole check: it records per file whether the file passed, but a
// type-aware rule's verdict on a file also depends on the files it imports, and an unchanged file
// is not linted again when only an imported file's types changed. The edit loop accepts that;
// `npm run check` and CI lint everything.
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const fast = process.argv.includes('--fast');
const ESLINT_CACHE = [
  '--cache',
  '--cache-strategy',
  'content',
  '--cache-location',
  'node_modules/.cache/eslint/',
];

const JOBS = [
  { name: 'build', command: npm, args: ['run', '--silent', 'build'] },
  { name: 'eslint', command: npx, args: ['eslint', ...(fast ? ESLINT_CACHE : []), '.'] },
  {
    name: 'prettier',
    command: npx,
    args: ['prettier', '--check', '--cache', '--cache-strategy', 'content', '.'],
  },
];

function run({ name, command, args }) {
  const started = Date.now();
  const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => (output += `${error.message}\n`));
    child.on('close', (code, signal) => {
      const ok = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const outcome = ok ? 'ok' : `FAILED (${signal ?? `exit ${code}`})`;
      console.log(`# ${name}: ${outcome}, ${seconds} s  (${[command, ...args].join(' ')})`);
      if (output.trim() !== '') console.log(output.trimEnd());
      resolve(ok);
    });
  });
}

const results = await Promise.all(JOBS.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
