#!/usr/bin/env node
// `npm start`'s build step: runs `npm run build` only when a build input changed since the last
// build made here, so a second start goes straight to the daemon. Loading the compiler alone costs
// about a second even when `tsc -b` then finds everything up to date; comparing modification times
// costs milliseconds. `npm run build` itself always asks the compiler.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
/** Written after each build started here, dated when that build started. */
const stamp = join(root, 'dist', '.build-stamp');
const sourceFolders = ['src', 'test', 'bench', 'scripts'];
const sourceFiles = ['package.json', 'package-lock.json', 'tsconfig.json'];

/** The newest modification time among the build's inputs (sources, page assets, settings). */
function newestInput() {
  let newest = 0;
  const visit = (path) => {
    const stats = statSync(path);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, stats.mtimeMs);
  };
  for (const folder of sourceFolders) visit(join(root, folder));
  for (const file of sourceFiles) if (existsSync(join(root, file))) visit(join(root, file));
  return newest;
}

const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
if (newestInput() <= builtAt) {
  console.log('build up to date');
} else {
  const startedAt = new Date();
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  writeFileSync(stamp, '');
  utimesSync(stamp, startedAt, startedAt);
}
