import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic-file.js';

/**
 * Reboot / restore (docs/architecture.md#reboot-restore-update): a second request within 60 s answers 429.
 */
export const RESTART_INTERVAL_MS = 60_000;

export type RestartAction = 'reboot' | 'restore';

export type Claim = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Remembers when each maintenance action was last accepted, in a file of the state directory so
 * the limit holds across the restart the action itself causes (the new process would otherwise
 * accept a reboot loop). Not one of the settings state files: restore leaves it in place.
 */
export class RestartGuard {
  readonly file: string;

  constructor(
    stateDir: string,
    private readonly now: () => number,
  ) {
    this.file = join(stateDir, 'maintenance.json');
  }

  private read(): Partial<Record<RestartAction, number>> {
    try {
      const data: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
      return typeof data === 'object' && data !== null
        ? (data as Partial<Record<RestartAction, number>>)
        : {};
    } catch {
      return {};
    }
  }

  /**
   * Accepts `action` and records the time, or says how long to wait. A recorded time in the future
   * (the clock was set back) does not block.
   */
  claim(action: RestartAction): Claim {
    const now = this.now();
    const times = this.read();
    const last = times[action];
    if (typeof last === 'number' && last <= now && now - last < RESTART_INTERVAL_MS) {
      return { ok: false, retryAfterMs: RESTART_INTERVAL_MS - (now - last) };
    }
    writeFileAtomic(this.file, `${JSON.stringify({ ...times, [action]: now })}\n`, 0o640);
    return { ok: true };
  }
}
