import type { PeakGuard } from '../peak/peak-guard.js';
import type { ExportLimiter, PeakForecast } from './limiter.js';

/**
 * The export limiter and the peak guard side by side (docs/architecture.md#export-limiter): the
 * limiter reads the guard's forecast of the running window (no `pv_off` in a window predicted
 * above the limit), and the guard's view (GET /api/v1/peak, its stream, its MQTT state) shows the
 * limiter's decision and reason.
 */
export function peakForecastOf(guard: PeakGuard): () => PeakForecast | undefined {
  return () => {
    const snapshot = guard.snapshot();
    if (!('window' in snapshot) || !snapshot.quantities) return undefined;
    return { predictedKw: snapshot.quantities.predicted_kw, limitKw: snapshot.effective_limit_kw };
  };
}

/** The limiter's decision in the guard's view, while the limiter is enabled. */
export function showDecisionInPeakView(guard: PeakGuard, limiter: ExportLimiter): void {
  guard.exportLimiter = () => limiter.decisionView();
}
