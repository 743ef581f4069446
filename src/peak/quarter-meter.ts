import type { AppConfig } from '../config/types.js';
import { windowSeconds } from './tariff-model.js';

const QUARTER_S = 900;

/**
 * The meter whose quarter hours carry the peak guard's quarter value (the push targets' and the
 * MQTT quarter messages' demand): the guarded meter while the guard is on with quarter-hour windows
 * (be_quarter, or custom with window_s 900), else none. The guard's window value is the window's
 * import energy over its length (docs/architecture.md#peak-guard); for a quarter that is the
 * quarter's import energy (the history's 15-minute point) times 4.
 */
export function peakQuarterMeter(config: AppConfig): string | undefined {
  const guard = config.services.peak_guard;
  if (!guard.enabled || windowSeconds(guard) !== QUARTER_S) return undefined;
  return guard.meter;
}
