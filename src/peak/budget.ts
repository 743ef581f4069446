import type { PeakStage } from './stages.js';

/**
 * A stage's budget (docs/architecture.md#peak-guard): what it may draw this second without the
 * window ending above the limit, so an action can set an EV charger's current rather than stop
 * it. With allowed_kw the mean power the rest of the window may have and the house's draw the
 * import without the stage:
 *   budget_w = max(0, allowed_kw − (p_now_kw − stage draw)) × 1000
 *   budget_a = floor(budget_w / (phases × 230 V)), 0 below the charger's minimum current.
 * The stage's draw is its sub-meter's power; without one, 0 while it is shed and its relief_kw
 * (at most the import) while it runs. IEC 61851-1 chargers signal 6 A as their lowest current,
 * the default of `min_a`; 230 V is the nominal phase voltage of IEC 60038.
 */

export const NOMINAL_VOLTS = 230;
export const DEFAULT_MIN_A = 6;

export function stageBudget(
  stage: Pick<PeakStage, 'relief_kw' | 'phases' | 'min_a'>,
  allowedKw: number | null,
  pNowKw: number,
  shed: boolean,
  subMeterKw: number | undefined,
): { budget_w: number | null; budget_a: number | null } {
  if (allowedKw === null) return { budget_w: null, budget_a: null };
  const draw = subMeterKw ?? (shed ? 0 : Math.min(stage.relief_kw, Math.max(0, pNowKw)));
  const watts = Math.max(0, allowedKw - (pNowKw - draw)) * 1000;
  const amps = Math.floor(watts / ((stage.phases ?? 1) * NOMINAL_VOLTS) + 1e-9);
  return { budget_w: Math.round(watts), budget_a: amps < (stage.min_a ?? DEFAULT_MIN_A) ? 0 : amps };
}
