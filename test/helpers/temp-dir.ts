import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh folder in the system's temp folder, named `prefix` plus six random characters (prefixes
 * start with `mg-`, so a leftover is recognisable). With `t` (a test context) it is removed after
 * the test; without, the caller removes it.
 */
export function tempDir(prefix: string, t?: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // Retried a few times: a child process ending beside the removal may still add a file. After
  // hooks run in the order they were added and stop at the first that throws, and this one is
  // added before those that stop the daemons writing into the folder: a removal that still fails
  // leaves the folder (said on the output), never those daemons running.
  t?.after(() => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch (error) {
      console.log(`# ${dir} left behind: ${(error as Error).message}`);
    }
  });
  return dir;
}
