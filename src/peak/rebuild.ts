import type { HistoryPoint } from '../history/point.js';
import type { Logger } from '../log.js';
import { windowSeconds, type PeakEngine } from './engine.js';
import { windowAt } from './window.js';

/**
 * The energy imported since a window's start, rebuilt from the history's minutes after a restart
 * (docs/architecture.md#peak-guard): used when the state file has no counter at the current
 * window's start (lost, or the daemon was down across a boundary). The minutes' import deltas
 * (E_In) inside [start, at) are summed; the stretch after the last minute with data (the daemon
 * was down, or the minute was still open when it was killed) is estimated at that minute's mean
 * import power. The history's first reading after a restart has no delta, so that stretch is
 * never counted twice.
 */

/** Reads the guarded meter's 1-minute history points overlapping [from, to] (ms). */
export type MinuteSource = (
  meter: string,
  from: number,
  to: number,
) => Promise<readonly HistoryPoint[] | undefined>;

export interface RebuiltEnergy {
  kwh: number;
  /** Minutes with an import delta that went into the sum. */
  minutes: number;
  /** Seconds estimated at the last known power. */
  estimatedS: number;
}

const MINUTE_MS = 60_000;

export function energySince(points: readonly HistoryPoint[], start: number, at: number): RebuiltEnergy {
  let kwh = 0;
  let minutes = 0;
  let lastEnd = start;
  let lastKw = 0;
  for (const point of points) {
    const from = point.t * 1000;
    if (from < start || from >= at || point.eIn === null) continue;
    kwh += point.eIn;
    minutes += 1;
    lastEnd = Math.min(at, from + MINUTE_MS);
    if (point.pIn && point.pIn.n > 0) lastKw = point.pIn.sum / point.pIn.n;
  }
  if (minutes === 0) return { kwh: 0, minutes: 0, estimatedS: 0 };
  const gapS = Math.max(0, (at - lastEnd) / 1000);
  return { kwh: kwh + (lastKw * gapS) / 3600, minutes, estimatedS: gapS };
}

/**
 * Seeds the engine's current window with the energy of the history's closed minutes since its
 * start (the guard asks while the engine has no state for that window); nothing when the history
 * has no minute of it or `current` says the engine was replaced meanwhile. A history that cannot be
 * read is logged, never thrown.
 */
export function seedFromHistory(
  engine: PeakEngine,
  minutes: MinuteSource,
  meter: string,
  at: number,
  kwh: number,
  log: Logger,
  current: () => boolean,
): Promise<void> {
  const start = windowAt(at, windowSeconds(engine.settingsInUse)).start;
  return minutes(meter, start, at)
    .then((points) => {
      const energy = energySince(points ?? [], start, at);
      if (!current() || energy.minutes === 0) return;
      engine.seedWindow(at, kwh, energy.kwh);
      log.info(
        `peak guard: running value rebuilt from ${energy.minutes} history minutes (${energy.estimatedS.toFixed(0)} s estimated)`,
      );
    })
    .catch((error: unknown) => log.warn(`peak guard: history not readable: ${(error as Error).message}`));
}
