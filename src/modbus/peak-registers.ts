import type { PeakSnapshot, PeakState } from '../peak/engine-types.js';
import type { PeakGuard } from '../peak/peak-guard.js';

/**
 * The peak guard's values as register ids of a custom whatwatt layout
 * (docs/architecture.md#peak-guard-outputs): `peak.running_kw`, `peak.predicted_kw`,
 * `peak.allowed_kw`, `peak.headroom_kw`, `peak.month_kw`, `peak.rolling_kw` in kW (a scaler of 3
 * gives W) and `peak.state` as a code. The values are instantaneous: NaN (float, double) or 0
 * (integers) while the guard is off or stale (docs/architecture.md#staleness), and allowed power in
 * the last 10 s of a window, where the guard has none.
 */

export type PeakSnapshotOrOff = PeakSnapshot | { state: 'off' };

/** `peak.state`: the guard's state as a number (it reads 0 while the guard is off). */
export const PEAK_STATE_CODES: Readonly<Record<PeakState, number>> = {
  off: 0,
  idle: 1,
  warning: 2,
  shedding: 3,
  over_limit: 4,
  stale: 5,
};

type Running = PeakSnapshot;

const QUANTITY = (key: 'running_kw' | 'predicted_kw' | 'allowed_kw' | 'headroom_kw') => (s: Running) =>
  s.quantities?.[key] ?? undefined;

const VALUES: Readonly<Record<string, (snapshot: Running) => number | undefined>> = {
  'peak.running_kw': QUANTITY('running_kw'),
  'peak.predicted_kw': QUANTITY('predicted_kw'),
  'peak.allowed_kw': QUANTITY('allowed_kw'),
  'peak.headroom_kw': QUANTITY('headroom_kw'),
  'peak.month_kw': (snapshot) => snapshot.month_peak?.kw,
  'peak.rolling_kw': (snapshot) => snapshot.rolling.kw,
};

/**
 * What a `peak.*` id reads from the register image's value source: only its `peak` snapshot. Declared
 * by that one member, so a resolver fits the register table's wider source without this file
 * importing the table.
 */
type PeakResolver = (source: { peak?: () => PeakSnapshotOrOff | undefined }) => number | undefined;

/** The register ids and what each reads (from `source.peak`, the guard's snapshot of the rebuild). */
export function peakRegisterIds(): [string, PeakResolver][] {
  const ids: [string, PeakResolver][] = Object.entries(VALUES).map(([id, value]) => [
    id,
    (source) => {
      const snapshot = source.peak?.();
      if (!snapshot || !('window' in snapshot) || snapshot.state === 'stale') return undefined;
      return value(snapshot);
    },
  ]);
  ids.push(['peak.state', (source) => PEAK_STATE_CODES[source.peak?.()?.state ?? 'off']]);
  return ids;
}

export const PEAK_REGISTER_PREFIX = 'peak.';

/** The guard's snapshot, taken at most once per image rebuild (several cells read it); no guard: the ids read NaN / 0. */
export function peakSnapshotOnce(guard: PeakGuard | undefined): () => PeakSnapshotOrOff | undefined {
  let taken: PeakSnapshotOrOff | undefined;
  return () => (taken ??= guard?.snapshot());
}
