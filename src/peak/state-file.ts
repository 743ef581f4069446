import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic-file.js';
import type { PeakPersisted } from './engine-types.js';

/**
 * The guard's state in `<state>/peak-guard.json` (docs/architecture.md#peak-guard): shed stages,
 * the window's counter at its start and the month peaks, written atomically (temp file, fsync,
 * rename) before any shed or restore call goes out, so a SIGKILL never leads to a second call.
 * The last reading inside the window is not kept: after a restart the counter at the window
 * start and the cumulative A+ give the running value back.
 */
export class PeakStateFile {
  private written: string | undefined;

  constructor(private readonly dir: string) {}

  get path(): string {
    return join(this.dir, 'peak-guard.json');
  }

  load(): PeakPersisted | undefined {
    try {
      const data = JSON.parse(readFileSync(this.path, 'utf8')) as PeakPersisted;
      if (data?.version !== 1 || !Array.isArray(data.shed) || !Array.isArray(data.months)) return undefined;
      this.written = JSON.stringify(data);
      return data;
    } catch {
      return undefined;
    }
  }

  /** Writes the state when it differs from the last write. */
  save(state: PeakPersisted): void {
    const stored: PeakPersisted = state.tracker
      ? {
          ...state,
          tracker: {
            ...state.tracker,
            lastAt: state.tracker.windowStart,
            lastKwh: state.tracker.startKwh,
          },
        }
      : state;
    const text = JSON.stringify(stored);
    if (text === this.written) return;
    writeFileAtomic(this.path, `${text}\n`, 0o640);
    this.written = text;
  }
}
