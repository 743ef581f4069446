import type { QuarterPrice } from '../price-signal.js';
import type { Decision, LimiterSettings } from './limiter-status.js';

/**
 * The price mode of the export limiter (docs/architecture.md#export-limiter): what the loop does
 * this quarter from the mode, the quarter's import and export price and the peak guard's forecast.
 */

/** The peak guard's forecast for the running window, as the limiter reads it. */
export interface PeakForecast {
  predictedKw: number | null;
  limitKw: number | null;
}

export interface DecisionWithReason {
  decision: Decision;
  reason: string;
}

const as = (decision: Decision, reason: string): DecisionWithReason => ({ decision, reason });

/**
 * The decision of the quarter. `peakForecast` is asked only when a negative import price would turn
 * the PV off: an import the peak guard predicts above its limit keeps zero export instead.
 */
export function decide(
  settings: LimiterSettings,
  quarter: QuarterPrice | undefined,
  peakForecast: () => PeakForecast | undefined,
): DecisionWithReason {
  if (settings.mode === 'off') return as('off', 'mode off');
  if (settings.mode === 'zero_export') return as('zero_export', 'mode zero_export');
  if (!quarter || (quarter.import === null && quarter.export === null))
    // docs/architecture.md#export-limiter: an unknown price limits (at most the export revenue of
    // the quarter is lost) rather than risk exporting at a negative price.
    return as('zero_export', 'price unknown for this quarter: zero export');
  if (quarter.import !== null && quarter.import < 0) {
    const peak = peakForecast();
    if (peak && peak.predictedKw !== null && peak.limitKw !== null && peak.predictedKw > peak.limitKw)
      return as(
        'zero_export',
        `import price ${quarter.import} < 0 but PV off suppressed: the peak guard predicts ${peak.predictedKw} kW above ${peak.limitKw} kW`,
      );
    return as('pv_off', `import price ${quarter.import} < 0: PV off`);
  }
  if (quarter.export === null) return as('zero_export', 'export price unknown for this quarter: zero export');
  if (quarter.export < settings.export_threshold)
    return as('zero_export', `export price ${quarter.export} < ${settings.export_threshold}: zero export`);
  return as('free', `export price ${quarter.export} ≥ ${settings.export_threshold}: free`);
}
