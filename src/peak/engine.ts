import type {
  PeakCall,
  PeakEvent,
  PeakPersisted,
  PeakReading,
  PeakSettings,
  PeakSnapshot,
  PeakState,
  PeakStep,
} from './engine-types.js';
import { PeakLimits } from './limits.js';
import { MonthPeaks, type MonthRecord, type MonthSource } from './months.js';
import { PowerMean, windowQuantities, type WindowQuantities } from './quantities.js';
import type { PeakStage } from './stages.js';
import { outsideFilter, windowSeconds } from './tariff-model.js';
import { monthOf, windowAt } from './window.js';
import { stageBudget } from './budget.js';
import { WindowTracker } from './window-tracker.js';
import { StageLadder } from './stage-ladder.js';

export { windowSeconds };

/**
 * The peak guard's state machine (docs/architecture.md#peak-guard), pure: readings and the time
 * go in, the actions to call and the events come out. The window, the month values and the
 * snapshot are here; the shed and restore decisions are the stage ladder's (stage-ladder.ts).
 * Escalate when the predicted demand passes
 * L − margin, the window is armed and step_delay_s passed; a stage that relieved less than half
 * its relief_kw within step_delay_s is ineffective and the next one goes; nothing left: one
 * `unavoidable` per window. Restore newest first only when the window with the stage back stays
 * L − hysteresis below for hold_s (also at a window start: no blanket restore). Stale data never
 * escalates, and restores only with on_stale = restore_all.
 */

const step = (): PeakStep => ({ calls: [], events: [] });

/** An import price per kWh, and whether it is an estimate (a fallback for a quarter without one). */
export interface PeakPrice {
  price: number;
  estimated: boolean;
}

/** The import price of the quarter that contains a time (ms), or null when energy is not priced. */
export type PeakPriceOf = (at: number) => PeakPrice | null;

export class PeakEngine {
  private readonly tracker: WindowTracker;
  private readonly power: PowerMean;
  private readonly months: MonthPeaks;
  private readonly limits: PeakLimits;
  /** Why the current window does not count (se_max_hour and custom filters). */
  private notCounted: string | undefined;
  private state: PeakPersisted;
  private quantities: WindowQuantities | null = null;
  private lastReadingAt: number | null = null;
  private lastMeters: Readonly<Record<string, number>> = {};
  private lastImportKw: number | undefined;
  private warning = false;
  private stale = false;
  private readonly ladder: StageLadder;
  private meterMissing = false;
  private priceOf: PeakPriceOf = () => null;

  constructor(
    private readonly settings: PeakSettings,
    private readonly staleAfterMs: number,
    persisted?: PeakPersisted,
  ) {
    // The import samples since a shed are kept for its relief check (step_delay_s).
    this.power = new PowerMean(30, Math.max(30, settings.step_delay_s + 5));
    this.state = persisted
      ? structuredClone(persisted)
      : { version: 1, shed: [], restoredAt: {}, ineffective: [], months: [] };
    this.tracker = new WindowTracker(windowSeconds(settings), this.state.tracker, staleAfterMs);
    this.limits = new PeakLimits(settings);
    this.months = new MonthPeaks(this.state.months, this.limits.rule);
    this.ladder = new StageLadder(settings, this.state, this.power, {
      quantities: () => this.quantities,
      lastImportKw: () => this.lastImportKw,
      subMeterKw: (stage) => this.subMeterKw(stage),
      windowEnd: () => this.tracker.current!.end,
      limitOfWindow: (at) =>
        outsideFilter(this.settings, at) === undefined ? this.effectiveLimit(at) : Infinity,
    });
  }

  /** The limit in force for the mode (limits.ts); no limit in a window that does not count. */
  effectiveLimit(at: number): number {
    return this.limits.effective(this.months, at);
  }

  /**
   * The import price per kWh the marginal cost counts the window's excess energy at (the day-ahead
   * price of mode dynamic, docs/architecture.md#prices); none: the capacity charge alone.
   */
  setPrice(priceOf: PeakPriceOf): void {
    this.priceOf = priceOf;
  }

  get settingsInUse(): PeakSettings {
    return this.settings;
  }

  /** Whether the guard has no counter at the start of the window of `at` (a restart across a boundary). */
  needsWindow(at: number): boolean {
    return this.tracker.current?.start !== windowAt(at, this.tracker.seconds).start;
  }

  /**
   * Starts the window of `at` with `energyKwh` already imported in it (rebuilt from the history's
   * closed minutes after a restart); the windows missed while down are not recorded.
   */
  seedWindow(at: number, importKwh: number, energyKwh: number): void {
    this.tracker.seed(at, importKwh, energyKwh);
    this.persist();
  }

  /**
   * The meter's own month values (1-0:1.6.0, 0-0:98.1.0; `at` the window end the meter stamps):
   * each month's value where the meter sends one (docs/architecture.md#peak-guard).
   */
  meterMonths(months: readonly { month: string; kw: number; at: number }[]): void {
    const seconds = this.tracker.seconds;
    for (const month of months) {
      if (!Number.isFinite(month.kw) || !Number.isFinite(month.at)) continue;
      this.months.setMeter(month.month, { at: month.at - seconds * 1000, kw: month.kw });
    }
    this.persist();
  }

  /** The month records and the source of each month's value. */
  monthSources(): { record: MonthRecord; source: MonthSource; kw: number | undefined }[] {
    return this.months
      .list()
      .map((record) => ({ record, source: this.months.sourceOf(record), kw: this.months.valueOf(record) }));
  }

  reading(reading: PeakReading): PeakStep {
    const out = step();
    this.stale = false;
    this.lastReadingAt = reading.at;
    this.lastMeters = reading.meters ?? {};
    this.power.add(reading.at, reading.importKw);
    this.lastImportKw = reading.importKw;
    for (const closed of this.tracker.add(reading.at, reading.importKwh)) {
      // A window without readings around its end (the daemon or the meter was away) is not
      // invented from a straight line across the gap.
      if (closed.missed) continue;
      const window = { start: closed.start, end: closed.end, kw: closed.kw };
      this.state.lastWindow = window;
      out.closed = window;
      if (outsideFilter(this.settings, closed.start) !== undefined) continue;
      if (this.months.record({ at: closed.start, kw: closed.kw }))
        out.events.push({ type: 'new_month_peak', at: closed.end, kw: closed.kw });
    }
    const window = this.tracker.current!;
    if (this.state.ineffectiveWindow !== window.start) {
      this.state.ineffective = [];
      this.state.ineffectiveWindow = window.start;
    }
    this.notCounted = outsideFilter(this.settings, window.start);
    const limit = this.notCounted === undefined ? this.effectiveLimit(reading.at) : Infinity;
    const q = windowQuantities(
      window,
      reading.at,
      this.tracker.energyKwh,
      this.power.mean(reading.at),
      this.effectiveLimit(reading.at),
    );
    this.quantities = q;
    const warning = q.predicted_kw >= limit - this.settings.warn_margin_kw;
    if (warning && !this.warning) out.events.push({ type: 'warning', at: reading.at, kw: q.predicted_kw });
    this.warning = warning;
    this.ladder.checkRelief(reading.at, out);
    if (q.predicted_kw > limit - this.settings.margin_kw) this.ladder.escalate(reading.at, window.start, out);
    else this.ladder.considerRestore(reading.at, q, limit, out);
    this.persist();
    return out;
  }

  /** The guarded meter is not registered: stale until it is (no shed, no restore). */
  setMeterMissing(missing: boolean): void {
    this.meterMissing = missing;
    if (missing) this.ladder.releaseHold();
  }

  /** Time passing without readings: stale after the meter's timeout. */
  tick(at: number): PeakStep {
    const out = step();
    if (this.lastReadingAt === null || at - this.lastReadingAt <= this.staleAfterMs || this.stale) return out;
    this.stale = true;
    this.ladder.releaseHold();
    if (this.settings.on_stale === 'restore_all') return this.restoreAll(at);
    return out;
  }

  /** Restores every shed stage, newest first (guard disabled, or stale with restore_all). */
  restoreAll(at: number): PeakStep {
    const out = step();
    this.ladder.restoreAll(at, out);
    this.persist();
    return out;
  }

  /**
   * Restores the shed stages the settings no longer list, newest first, each once (its restore
   * action as it was when shed); the others stay shed.
   */
  restoreRemoved(at: number, previous: readonly PeakStage[] = []): PeakStep {
    const out = step();
    this.ladder.restoreRemoved(at, previous, out);
    this.persist();
    return out;
  }

  persisted(): PeakPersisted {
    return structuredClone(this.state);
  }

  get currentState(): PeakState {
    if (this.stale || this.meterMissing) return 'stale';
    const window = this.tracker.current;
    if (window && this.state.unavoidableWindow === window.start && this.overMargin()) return 'over_limit';
    if (this.state.shed.length > 0) return 'shedding';
    return this.warning ? 'warning' : 'idle';
  }

  snapshot(at: number): PeakSnapshot {
    const window = this.tracker.current;
    const peak = this.months.peakOf(at);
    const entry = this.months.list().find((month) => month.month === monthOf(at));
    const q = this.quantities;
    const seconds = this.tracker.seconds;
    const marginal = this.marginal(at, window?.seconds ?? seconds);
    return {
      state: this.currentState,
      window: window ?? null,
      quantities: q,
      limit_kw: this.settings.limit_kw,
      effective_limit_kw: this.effectiveLimit(at),
      month_value_kw: this.limits.value(this.months, at) ?? null,
      step: this.limits.step(this.months, at),
      not_counted: this.notCounted ?? null,
      // Peak times are the end of their window, as the meter stamps 1-0:1.6.0.
      month_peak:
        peak && entry
          ? { kw: peak.kw, at: peak.at + seconds * 1000, source: this.months.sourceOf(entry) }
          : null,
      rolling: this.months.rolling(at, this.settings.floor_kw),
      marginal_eur: marginal.eur,
      marginal_price: marginal.price,
      marginal_estimated: marginal.estimated,
      shed: this.state.shed.map((shed) => ({
        id: shed.id,
        since: shed.since,
        ineffective: this.state.ineffective.includes(shed.id),
      })),
      stages: this.settings.stages.map((stage) => ({
        id: stage.id,
        shed: stage.shed,
        restore: stage.restore,
        relief_kw: stage.relief_kw,
        last_shed: this.state.shedAt?.[stage.id] ?? null,
        last_restore: this.state.restoredAt[stage.id] ?? null,
        ...this.budget(stage),
      })),
      last_window: this.state.lastWindow ?? null,
      last_reading_at: this.lastReadingAt,
    };
  }

  /**
   * What the predicted window adds to the bill (docs/architecture.md#peak-guard): the rise of the
   * capacity charge and, with an import price, the energy of the window above the billed demand at
   * that price (negative prices lower it). Zero in a window that does not count.
   */
  private marginal(at: number, seconds: number): { eur: number; price: number | null; estimated: boolean } {
    const q = this.quantities;
    const priced = this.priceOf(at);
    const price = priced?.price ?? null;
    const estimated = priced?.estimated ?? false;
    if (!q || this.notCounted !== undefined) return { eur: 0, price, estimated };
    const capacity = this.limits.marginal(this.months, at, q.predicted_kw);
    const excessKwh = (Math.max(0, q.predicted_kw - this.limits.billed(this.months, at)) * seconds) / 3600;
    return { eur: capacity + (price === null ? 0 : excessKwh * price), price, estimated };
  }

  /** A stage's budget now (budget.ts): watts and amperes, null while allowed_kw is unknown. */
  budget(stage: PeakStage): { budget_w: number | null; budget_a: number | null } {
    const q = this.quantities;
    const shed = this.state.shed.some((entry) => entry.id === stage.id);
    return stageBudget(stage, q?.allowed_kw ?? null, q?.p_now_kw ?? 0, shed, this.subMeterKw(stage));
  }

  monthRecords() {
    return this.months.list();
  }

  private overMargin(): boolean {
    const q = this.quantities;
    return (
      q !== null &&
      this.notCounted === undefined &&
      q.predicted_kw > this.effectiveLimit(this.lastReadingAt ?? 0) - this.settings.margin_kw
    );
  }

  /** A stage's own draw from its sub-meter, when it has one with a reading. */
  private subMeterKw(stage: PeakStage): number | undefined {
    return stage.meter === undefined ? undefined : this.lastMeters[stage.meter];
  }

  private persist(): void {
    this.state.tracker = this.tracker.snapshot();
    this.state.months = this.months.list();
  }
}

export type { PeakCall, PeakEvent };
