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
  // Retried a few times: a child process ending beside the removal may still add a file.
  t?.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }));
  return dir;
}
