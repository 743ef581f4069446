import { METER_ROLES, type MeterRole } from '../contracts/values.js';
/**
 * The further meters of `meters[]` (docs/architecture.md#several-meters): polled meters with a
 * source of their own and virtual meters computed from other meters. `main` is the primary meter
 * (`meter.*`), whose id no entry may take.
 */
export { METER_ROLES, type MeterRole };

/** The primary meter's id in every per-meter API, topic and variable. */
export const MAIN_METER_ID = 'main';
export const METER_ID_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

export interface PolledMeterEntry {
  id: string;
  name: string;
  role: MeterRole;
  /** A source URI as `meter.source` takes it (docs/architecture.md#meter-source). */
  source: string;
  /** Seconds without a valid reading before the meter is NO DATA. */
  timeout: number;
}

export interface VirtualMeterEntry {
  id: string;
  name: string;
  role: MeterRole;
  /** `+`, `-` and constant factors over other meters' ids, e.g. `main - ev` or `main + 0.5 * pv`. */
  expression: string;
}

export type MeterEntry = PolledMeterEntry | VirtualMeterEntry;

export function isVirtualEntry(entry: MeterEntry): entry is VirtualMeterEntry {
  return 'expression' in entry;
}
