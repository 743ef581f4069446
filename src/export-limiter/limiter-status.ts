import type { AppConfig } from '../config/types.js';
import type { LimiterDecision, LimiterState } from '../contracts/export-limiter.js';
import type { OutputStatus } from '../output.js';
import type { RegisterWrite } from './sunspec.js';

/**
 * What the export limiter shows of itself (docs/architecture.md#export-limiter): the status of the
 * loop and of each inverter (GET /api/v1/export-limiter), the writes and events of its stream, and
 * the site's state derived from its inverters.
 */

export type LimiterSettings = AppConfig['services']['export_limiter'];
export type LimiterMode = LimiterSettings['mode'];
export type { LimiterState } from '../contracts/export-limiter.js';
/** What the loop does this quarter (docs/architecture.md#export-limiter). */
export type Decision = LimiterDecision;

/** The status facts of the export limiter (services.export_limiter): the loop's state and decision. */
export type ExportLimiterFacts = { control: LimiterState; decision: Decision; reason: string };
export type ExportLimiterStatus = OutputStatus<ExportLimiterFacts>;

export interface InverterStatus {
  id: string;
  profile: string;
  state: 'unknown' | 'ok' | 'inverter_lost' | 'busy' | 'pv_meter_missing';
  model: number | null;
  wmax_w: number | null;
  installer_limit_pct: number | null;
  reported_w: number | null;
  commanded_pct: number | null;
  commanded_w: number | null;
  last_write: string | null;
  writes_per_hour: number;
  writes: number;
  refreshes: number;
  failures: number;
  error: string | null;
}

export interface LimiterStatus {
  enabled: boolean;
  mode: LimiterMode;
  decision: Decision;
  reason: string;
  state: LimiterState;
  target_w: number;
  grid_w: number | null;
  grid_at: string | null;
  /** The limits the gateway holds, summed over the inverters (W); null while it holds none. */
  limit_w: number | null;
  inverters: InverterStatus[];
}

/** One limit write as the event stream and the tests see it. */
export interface LimiterWrite {
  inverter: string;
  at: number;
  percent: number | null;
  kind: 'limit' | 'refresh' | 'safe' | 'restore' | 'cancel';
  block: RegisterWrite;
}

export interface LimiterEvents {
  status: [LimiterStatus];
  write: [LimiterWrite];
  event: [{ at: number; type: string; message: string }];
}

/** What the site's state reads of each inverter (src/export-limiter/inverter.ts). */
interface InverterProgress {
  readonly state: InverterStatus['state'];
  readonly commandedPct: number | null;
  readonly commandedW: number | null;
}

/**
 * The site's state from its inverters and the decision: a busy or lost inverter (or one that did
 * not answer this step) wins over the decision; `limiting` while the gateway holds any limit.
 */
export function siteState(
  inverters: readonly InverterProgress[],
  ready: readonly InverterProgress[],
  decision: Decision,
): LimiterState {
  if (inverters.length === 0) return 'idle';
  if (inverters.some((inverter) => inverter.state === 'busy')) return 'busy';
  if (
    ready.length < inverters.length ||
    inverters.some((inverter) => inverter.state === 'inverter_lost' || inverter.state === 'pv_meter_missing')
  )
    return 'inverter_lost';
  if (decision === 'off') return 'idle';
  if (decision === 'free') return 'free';
  if (decision === 'pv_off') return 'pv_off';
  return inverters.some((inverter) => inverter.commandedPct !== null || inverter.commandedW !== null)
    ? 'limiting'
    : 'idle';
}
