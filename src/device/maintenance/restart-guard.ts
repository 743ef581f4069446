import { join } from 'node:path';
import { Type } from 'typebox';
import { VersionedStateFile, type StateFileProblem } from '../../config/state-file.js';

/**
 * Reboot / restore (docs/architecture.md#reboot-restore-update): a second request within 60 s answers 429.
 */
export const RESTART_INTERVAL_MS = 60_000;

export type RestartAction = 'reboot' | 'restore';

/** maintenance.json: when each action was last accepted (ms since the epoch). */
const MaintenanceFileSchema = Type.Object({
  version: Type.Literal(1),
  reboot: Type.Optional(Type.Number()),
  restore: Type.Optional(Type.Number()),
});

export type Claim = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Remembers when each maintenance action was last accepted, in a file of the state directory so
 * the limit holds across the restart the action itself causes (the new process would otherwise
 * accept a reboot loop). Not one of the settings state files: restore leaves it in place.
 */
export class RestartGuard {
  readonly file: string;
  private readonly state: VersionedStateFile<typeof MaintenanceFileSchema>;

  constructor(
    stateDir: string,
    private readonly now: () => number,
    onProblem?: (problem: StateFileProblem) => void,
  ) {
    this.file = join(stateDir, 'maintenance.json');
    this.state = new VersionedStateFile(this.file, MaintenanceFileSchema, {
      now,
      ...(onProblem ? { onProblem } : {}),
    });
  }

  private read(): Partial<Record<RestartAction, number>> {
    const { version: _version, ...times } = this.state.load() ?? { version: 1 };
    return times;
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
    this.state.save({ version: 1, ...times, [action]: now });
    return { ok: true };
  }
}
