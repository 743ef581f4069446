#!/usr/bin/env node
// `npm test`: the check (scripts/check.mjs: build, lint, format) and both test tiers
// (scripts/run-tests.mjs). The tests run the build's output, so they start once the build has
// passed; the lint and the format check read only the sources, so they run beside the build and
// then beside the tests, at the lowest CPU priority (nice 19, in an autogroup of their own): they
// take the CPU the tests leave idle while those wait on peers, browsers and real time, and a test
// never waits for them. Run
// one after the other, the check alone took about 105 s of a two-core machine before the first
// test started (ESLint's type-aware pass about 80 s of it); beside the tests it adds seconds.
// A part's outcome is printed when it ends, its output (the problems it found) after the tests;
// the run fails when any part or any test fails. A failed build runs no test.
//
//   node scripts/test.mjs               the check and both tiers (`npm test`)
//   node scripts/test.mjs modbus mqtt/  the check and the files whose path has one of the words
//                                       (any argument goes on to scripts/run-tests.mjs)
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { checkJobs, report, runJob } from './check.mjs';

const root = new URL('..', import.meta.url).pathname;
const LOWEST_PRIORITY = 19;

// Ctrl-C reaches the tests (this terminal's process group) but not the lint and the format check,
// which run in sessions of their own (scripts/check.mjs runJob): exiting here ends them too.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(signal, () => process.exit(128 + constants.signals[signal]));

const jobs = checkJobs();
const pending = [jobs.eslint, jobs.prettier].map((job) =>
  runJob(job, { niceness: LOWEST_PRIORITY }).then((result) => {
    console.log(result.line);
    return result;
  }),
);
const build = await runJob(jobs.build);
report(build);

let testsPassed = false;
if (build.ok) {
  const child = spawn(process.execPath, [`${root}scripts/run-tests.mjs`, ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
  });
  testsPassed = await new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve(code === 0 && signal === null)),
  );
} else {
  console.log('# tests: not run, the build failed');
}

const checks = await Promise.all(pending);
console.log('');
console.log(build.line);
for (const result of checks) report(result);
process.exit(build.ok && testsPassed && checks.every((result) => result.ok) ? 0 : 1);
