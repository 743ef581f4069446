/**
 * `node dist/scripts/production-packages.js DIR`: prints the node_modules directories that hold the
 * production packages of DIR's package-lock.json, one per line, outermost only (a package copied
 * whole brings its nested ones). systemd/install.sh copies these from a checkout instead of all of
 * node_modules, the same packages a release bundle holds (src/device/update/production-files.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { productionPackageRoots, type PackageLock } from '../src/device/update/production-files.js';

const dir = process.argv[2] ?? '.';
const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as PackageLock;
process.stdout.write(
  productionPackageRoots(lock)
    .map((root) => `${root}\n`)
    .join(''),
);
