// Child process of atomic-file.test.ts: rewrites one file with versions 0, 1, 2, ... forever and
// reports each completed write on stdout, until the parent kills it with SIGKILL.
import { writeFileAtomic } from '../../src/config/atomic-file.js';
import { versionContent } from './atomic-versions.js';

const [path, startText] = process.argv.slice(2);
let version = Number(startText);
for (;;) {
  writeFileAtomic(path!, versionContent(version), 0o600);
  process.stdout.write(`${version}\n`);
  version += 1;
}
