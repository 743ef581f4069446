import type { Inverter } from './inverter.js';

/**
 * The control law of the export limiter (docs/architecture.md#export-limiter): the new limit of
 * each inverter from the grid power's error, and when a write's effect has shown so the next one
 * may follow.
 */

/** After a write, the meter reading that judges it must be taken this long after the inverter showed the effect. */
export const EFFECT_MARGIN_MS = 1000;
/** A write whose effect never shows is given up after this long (inverter dead times reach 25 s). */
export const EFFECT_TIMEOUT_MS = 30_000;

/** The write in flight: when, from which reported output, to which commanded total. */
export interface Pending {
  at: number;
  fromW: number;
  commandedW: number;
  /** When the inverter first reported the commanded output. */
  reachedAt?: number;
}

/**
 * Whether a write's effect has shown: the inverter reports an output within deadband of the
 * command (for a raise, at least the command less the deadband, since PV may not reach it), and
 * the meter reading at `gridAt` was taken EFFECT_MARGIN_MS after that report; or EFFECT_TIMEOUT_MS
 * passed. Notes in `pending` when the output was first reached.
 */
export function effectSeen(
  pending: Pending,
  reportedW: number,
  deadbandW: number,
  gridAt: number | null,
  now: number,
): boolean {
  if (now - pending.at >= EFFECT_TIMEOUT_MS) return true;
  const reached =
    pending.commandedW <= pending.fromW
      ? reportedW <= pending.commandedW + deadbandW
      : reportedW >= pending.commandedW - deadbandW;
  if (!reached) return false;
  pending.reachedAt ??= now;
  return gridAt !== null && gridAt >= pending.reachedAt + EFFECT_MARGIN_MS;
}

/** The limits to write, and the output they command over all inverters (W). */
export interface LimitPlan {
  writes: Array<{ inverter: Inverter; percent: number }>;
  commandedW: number;
}

/**
 * new limit = P_inverter_reported + P_grid − target_w (`errorW` = P_grid − target_w), shared by
 * WMax and clamped to [0, installer limit]: one jump to where the grid power reaches the target,
 * not a creep on the last command. An inverter is left alone when the change is within its share
 * of the deadband, for a raise a non-binding limit would not feel, and while it holds no limit and
 * the new one is its cap.
 */
export function planLimits(ready: Inverter[], errorW: number, deadbandW: number): LimitPlan {
  const wmaxTotal = ready.reduce((sum, inverter) => sum + inverter.facts!.wmaxW, 0);
  const plan: LimitPlan = { writes: [], commandedW: 0 };
  for (const inverter of ready) {
    const wmax = inverter.facts!.wmaxW;
    const capW = (inverter.capPct / 100) * wmax;
    const share = (inverter.reportedW ?? 0) + (errorW * wmax) / wmaxTotal;
    const limitW = Math.min(capW, Math.max(0, share));
    const percent = Math.round((limitW / wmax) * 1000) / 10;
    plan.commandedW += limitW;
    const heldW = inverter.commandedPct === null ? null : (inverter.commandedPct / 100) * wmax;
    // A raise the inverter would not feel: it is below its limit already (PV, not the limit, binds).
    if (errorW > 0 && (heldW === null || (inverter.reportedW ?? 0) < heldW - deadbandW)) continue;
    if (heldW !== null && Math.abs(limitW - heldW) <= deadbandW / ready.length) continue;
    if (heldW === null && limitW >= capW) continue;
    plan.writes.push({ inverter, percent });
  }
  return plan;
}
