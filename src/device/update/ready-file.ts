import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic-file.js';

/**
 * The readiness signal for scripts/launcher.ts: `<state dir>/ready` holding the app's PID, written
 * when the daemon is up (right where it sends READY=1 to systemd). The launcher deletes the file
 * before it starts a release and accepts it only with its child's PID, so it cannot be fooled by
 * an earlier run. It works with and without systemd (the app's sd_notify goes to systemd itself).
 */
export const READY_FILE = 'ready';

export function markReady(stateDir: string, pid: number = process.pid): void {
  writeFileAtomic(join(stateDir, READY_FILE), `${pid}\n`, 0o640);
}
