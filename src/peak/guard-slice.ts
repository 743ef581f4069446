/**
 * The peak guard's slice of the configuration and the shapes around it (peak-guard.ts): what the
 * guard needs of the actions engine, its status facts, the slice selected from the settings, and
 * the import counter and power the engine is fed from a reading.
 */
import type { AppConfig } from '../config/types.js';
import type { MeterLookup, MeterRef, OutputStatus } from '../output.js';
import type { Reading } from '../reading/reading.js';
import type { PeakSettings } from './engine-types.js';
import { normalizeStages } from './stages.js';

/** What the guard needs of the actions engine: calls, and trigger locks. */
export interface PeakActions {
  call(id: string, trigger: string): { ok: boolean; reason?: string };
  lock(owner: string, ids: ReadonlySet<string>): void;
}

export interface PeakSlice {
  enabled: boolean;
  /** The guarded meter (services.peak_guard.meter, empty: the primary `main`). */
  meter: MeterRef;
  /** The meters the stages name, by id (their power is read at each reading of the guarded one). */
  stageMeters: MeterRef[];
  settings: PeakSettings;
  timeoutS: number;
}

/** The status facts of the peak guard: the meter it guards. */
export type PeakGuardFacts = { meter: string };
export type PeakGuardStatus = OutputStatus<PeakGuardFacts>;

/** The slice without its meter handles: what a new engine is built from. */
export function settingsOf(slice: PeakSlice): Omit<PeakSlice, 'meter' | 'stageMeters'> & { meter: string } {
  return {
    enabled: slice.enabled,
    meter: slice.meter.id,
    settings: slice.settings,
    timeoutS: slice.timeoutS,
  };
}

/** The import counter A+ (1.8.0, else the sum of the tariff registers) and power (1.7.0). */
export function importOf(reading: Reading): { kwh: number; kw: number } | undefined {
  const total = reading.values.get('1.8.0')?.value;
  const t1 = reading.values.get('1.8.1')?.value;
  const t2 = reading.values.get('1.8.2')?.value;
  const kwh = total ?? (t1 !== undefined && t2 !== undefined ? t1 + t2 : undefined);
  const kw = reading.values.get('1.7.0')?.value;
  return kwh === undefined || kw === undefined ? undefined : { kwh, kw };
}

/** The guard's slice of the configuration, with the handles of the guarded meter and the stages' meters. */
export function selectPeakSlice(config: AppConfig, meters: MeterLookup): PeakSlice {
  const peak = config.services.peak_guard;
  const { enabled, meter, ...rest } = peak;
  const settings = { ...rest, stages: normalizeStages(peak.stages) } as PeakSettings;
  const stageMeters = [...new Set(settings.stages.flatMap((stage) => stage.meter ?? []))].sort();
  return {
    enabled,
    meter: meters.ref(meter || 'main'),
    stageMeters: stageMeters.map((id) => meters.ref(id)),
    settings,
    timeoutS: config.meter.timeout,
  };
}
