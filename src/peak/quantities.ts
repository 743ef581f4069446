import type { DemandWindow } from './window.js';

/**
 * The window quantities (docs/architecture.md#peak-guard), W the window length in s, A+ the
 * import energy counter in kWh:
 *   running_kw   = (A+(t) − A+(start)) × 3600 / W
 *   average_kw   = (A+(t) − A+(start)) × 3600 / elapsed
 *   predicted_kw = running_kw + p_now_kw × remaining / W
 *   allowed_kw   = max(0, (L − running_kw) × W / remaining), null in the last 10 s
 *   headroom_kw  = allowed_kw − p_now_kw
 */
export interface WindowQuantities {
  elapsed_s: number;
  remaining_s: number;
  running_kw: number;
  average_kw: number | null;
  p_now_kw: number;
  predicted_kw: number;
  allowed_kw: number | null;
  headroom_kw: number | null;
}

/** allowed_kw is not given in the last seconds of a window, where it grows without bound. */
export const ALLOWED_UNTIL_S = 10;

export function windowQuantities(
  window: DemandWindow,
  now: number,
  energyKwh: number,
  pNowKw: number,
  limitKw: number,
): WindowQuantities {
  const W = window.seconds;
  const elapsed = Math.max(0, (now - window.start) / 1000);
  const remaining = Math.max(0, W - elapsed);
  const running = (energyKwh * 3600) / W;
  const allowed = remaining <= ALLOWED_UNTIL_S ? null : Math.max(0, ((limitKw - running) * W) / remaining);
  return {
    elapsed_s: elapsed,
    remaining_s: remaining,
    running_kw: running,
    average_kw: elapsed > 0 ? (energyKwh * 3600) / elapsed : null,
    p_now_kw: pNowKw,
    predicted_kw: running + (pNowKw * remaining) / W,
    allowed_kw: allowed,
    headroom_kw: allowed === null ? null : allowed - pNowKw,
  };
}

/**
 * The mean of the samples of the last `seconds` (the import power p_now, 30 s); samples are kept
 * for `keepSeconds` for the mean since a given time (a stage's relief since its shed).
 */
export class PowerMean {
  private samples: { at: number; kw: number }[] = [];

  constructor(
    private readonly seconds = 30,
    private readonly keepSeconds = seconds,
  ) {}

  add(at: number, kw: number): void {
    this.samples.push({ at, kw });
    const from = at - Math.max(this.seconds, this.keepSeconds) * 1000;
    while (this.samples.length > 0 && this.samples[0]!.at <= from) this.samples.shift();
  }

  /** The mean at `at` of the samples inside (at − seconds, at]; 0 without any. */
  mean(at: number): number {
    return this.meanSince(at - this.seconds * 1000, at) ?? 0;
  }

  /** The mean of the samples inside (from, at]; undefined without any. */
  meanSince(from: number, at: number): number | undefined {
    const inside = this.samples.filter((sample) => sample.at > from && sample.at <= at);
    if (inside.length === 0) return undefined;
    return inside.reduce((sum, sample) => sum + sample.kw, 0) / inside.length;
  }
}
