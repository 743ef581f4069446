#!/usr/bin/env node
// `npm run check`: the build (tsc, both projects), the lint (eslint, type-aware) and the format
// check (prettier) of the whole repository. The three read only the sources and do not wait for
// each other (eslint type-checks through its own TypeScript service, not the build output), and
// each of them runs on one core, so they run side by side: on two cores the check takes about as
// long as its slowest part instead of the sum of all three. Each one's output is printed in one
// piece when it ends; the check fails when any of them fails. `npm test` runs the same three
// (scripts/test.mjs), the tests beside the lint and the format check.
//
// Prettier keeps a cache of the files it found formatted (node_modules/.cache/prettier, keyed by
// content), so a second check reads only the files that changed since.
//
//   node scripts/check.mjs          the whole check (`npm run check`)
//   node scripts/check.mjs --fast   the edit loop (`npm run check:fast`): the same three, with
//                                   ESLint's cache too, so an unchanged tree is checked in seconds
//
// ESLint's cache stays out of the whole check: it records per file whether the file passed, but a
// type-aware rule's verdict on a file also depends on the files it imports, and an unchanged file
// is not linted again when only an imported file's types changed. The edit loop accepts that;
// `npm run check`, `npm test` and CI lint everything.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const ESLINT_CACHE = [
  '--cache',
  '--cache-strategy',
  'content',
  '--cache-location',
  'node_modules/.cache/eslint/',
];

/** The three parts of the check; `fast` adds ESLint's cache (the edit loop only). */
export function checkJobs({ fast = false } = {}) {
  return {
    build: { name: 'build', command: npm, args: ['run', '--silent', 'build'] },
    eslint: { name: 'eslint', command: npx, args: ['eslint', ...(fast ? ESLINT_CACHE : []), '.'] },
    prettier: {
      name: 'prettier',
      command: npx,
      args: ['prettier', '--check', '--cache', '--cache-strategy', 'content', '.'],
    },
  };
}

/**
 * Runs one part; resolves with whether it passed, its one-line outcome and its output. `niceness`
 * (0 to 19) lowers the CPU priority of the part and of every process it starts (they inherit it).
 *
 * On Linux a nice value counts only against the processes of the same autogroup (one per session,
 * sched(7)), and the page tests' browsers and the containers run in sessions of their own: a part
 * merely niced took as much CPU as a browser (measured: three busy loops, two in sessions of their
 * own, the third niced to 19 in ours, got 4.2, 4.0 and 3.8 CPU-s of 12). So a lowered part gets a
 * session, hence an autogroup, of its own, and the autogroup gets the nice value (0.13 CPU-s of 12
 * in the same measurement). Its process group is ended when this process exits.
 */
export function runJob({ name, command, args }, { niceness = 0 } = {}) {
  const started = Date.now();
  const lowered = niceness > 0;
  const child = spawn(command, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: lowered && process.platform !== 'win32',
  });
  let endGroup;
  if (lowered && child.pid !== undefined) {
    const pid = child.pid;
    try {
      setPriority(pid, niceness);
      if (process.platform === 'linux') writeFileSync(`/proc/${pid}/autogroup`, String(niceness));
    } catch {
      // Not allowed or no autogroups here: the part runs at the usual priority, a slower neighbour.
    }
    if (process.platform !== 'win32') {
      endGroup = () => {
        try {
          process.kill(-pid, 'SIGTERM');
        } catch {
          // Already ended.
        }
      };
      process.on('exit', endGroup);
    }
  }
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on('error', (error) => (output += `${error.message}\n`));
    child.on('close', (code, signal) => {
      if (endGroup) process.off('exit', endGroup);
      const ok = code === 0;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const outcome = ok ? 'ok' : `FAILED (${signal ?? `exit ${code}`})`;
      resolve({
        ok,
        line: `# ${name}: ${outcome}, ${seconds} s  (${[command, ...args].join(' ')})`,
        output: output.trimEnd(),
      });
    });
  });
}

/** Prints a part's outcome and, when it said anything, its output. */
export function report({ line, output }) {
  console.log(line);
  if (output !== '') console.log(output);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const jobs = checkJobs({ fast: process.argv.includes('--fast') });
  const results = await Promise.all(
    Object.values(jobs).map((job) => runJob(job).then((result) => (report(result), result))),
  );
  process.exit(results.every((result) => result.ok) ? 0 : 1);
}
