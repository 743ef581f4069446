/**
 * The peak guard's stage ladder (docs/architecture.md#peak-guard, "State machine"): which stage is
 * shed next, when a shed stage proved ineffective, and when the newest shed stage is restored. It
 * keeps its entries in the engine's persisted state (src/peak/engine.ts owns the window, the month
 * values and the snapshot); pure: the time comes in with each call, the calls and events go out.
 */
import type { PeakPersisted, PeakSettings, PeakStep, ShedStage } from './engine-types.js';
import type { PowerMean, WindowQuantities } from './quantities.js';
import type { PeakStage } from './stages.js';

/** What the ladder reads from the engine at a step. */
export interface LadderView {
  /** The current window's quantities (null before the first reading). */
  quantities(): WindowQuantities | null;
  /** The import of the last reading, kW. */
  lastImportKw(): number | undefined;
  /** A stage's own draw from its sub-meter, when it has one with a reading. */
  subMeterKw(stage: PeakStage): number | undefined;
  /** The end of the current window (ms). */
  windowEnd(): number;
  /** The limit of the window that starts at `at`: Infinity when that window does not count. */
  limitOfWindow(at: number): number;
}

export class StageLadder {
  /** Since when the newest shed stage could come back (restore after hold_s). */
  private holdSince: number | undefined;

  constructor(
    private readonly settings: PeakSettings,
    /** The engine's persisted state: `shed`, `restoredAt`, `shedAt`, `ineffective`, `lastStepAt`, `unavoidableWindow`. */
    private readonly state: PeakPersisted,
    /** The import samples since a shed (its relief check). */
    private readonly power: PowerMean,
    private readonly view: LadderView,
  ) {}

  /** Stale data or a missing meter: a restore under way starts its hold_s again later. */
  releaseHold(): void {
    this.holdSince = undefined;
  }

  /** A stage of the settings by its id. */
  stage(id: string): PeakStage | undefined {
    return this.settings.stages.find((stage) => stage.id === id);
  }

  /**
   * The power a stage's relief is measured against at its shed: its sub-meter, else the import of
   * the last reading (a 30 s mean would still hold the power before a load step just taken).
   */
  private reliefBefore(stage: PeakStage): number {
    return this.view.subMeterKw(stage) ?? this.view.lastImportKw() ?? this.view.quantities()?.p_now_kw ?? 0;
  }

  /**
   * step_delay_s after a shed, the power it is judged on: the stage's sub-meter, else the mean
   * import since the shed went out, so no reading from before the shed counts.
   */
  private reliefAfter(stage: PeakStage, since: number, at: number): number {
    return (
      this.view.subMeterKw(stage) ?? this.power.meanSince(since, at) ?? this.view.quantities()?.p_now_kw ?? 0
    );
  }

  /** A stage that relieved less than half its relief_kw within step_delay_s is ineffective. */
  checkRelief(at: number, out: PeakStep): void {
    for (const shed of this.state.shed) {
      const stage = this.stage(shed.id);
      if (shed.checked || !stage || at - shed.since < this.settings.step_delay_s * 1000) continue;
      shed.checked = true;
      if (shed.beforeKw - this.reliefAfter(stage, shed.since, at) < stage.relief_kw / 2) {
        this.state.ineffective.push(stage.id);
        out.events.push({ type: 'ineffective', at, stage: stage.id });
      }
    }
  }

  /** Sheds the next stage (arm_after_s, step_delay_s, min_on_s); nothing left: one `unavoidable` per window. */
  escalate(at: number, windowStart: number, out: PeakStep): void {
    this.holdSince = undefined;
    const { arm_after_s: arm, step_delay_s: delay } = this.settings;
    if (at - windowStart < arm * 1000) return;
    if (this.state.lastStepAt !== undefined && at - this.state.lastStepAt < delay * 1000) return;
    const shedIds = new Set(this.state.shed.map((shed) => shed.id));
    const next = this.settings.stages.find((stage) => !shedIds.has(stage.id));
    if (!next) {
      if (this.state.unavoidableWindow === windowStart) return;
      this.state.unavoidableWindow = windowStart;
      out.events.push({ type: 'unavoidable', at, kw: this.view.quantities()?.predicted_kw });
      return;
    }
    const restored = this.state.restoredAt[next.id];
    if (restored !== undefined && at - restored < next.min_on_s * 1000) return;
    const shed: ShedStage = {
      id: next.id,
      since: at,
      beforeKw: this.reliefBefore(next),
      checked: false,
      restore: next.restore,
    };
    this.state.shed.push(shed);
    (this.state.shedAt ??= {})[next.id] = at;
    this.state.lastStepAt = at;
    out.calls.push({ kind: 'shed', stage: next.id, action: next.shed, at });
    out.events.push({ type: 'shed', at, stage: next.id });
  }

  /** Restores the newest shed stage when the window with it back stays L − hysteresis below for hold_s. */
  considerRestore(at: number, q: WindowQuantities, limit: number, out: PeakStep): void {
    const newest = this.state.shed.at(-1);
    const stage = newest && this.stage(newest.id);
    if (!newest || !stage) {
      this.holdSince = undefined;
      return;
    }
    const W = q.elapsed_s + q.remaining_s;
    const back = q.running_kw + ((q.p_now_kw + stage.relief_kw) * q.remaining_s) / W;
    if (back > limit - this.settings.hysteresis_kw) {
      this.holdSince = undefined;
      return;
    }
    // The stage runs on into the next window: the load it brings back must also fit a whole
    // window there (p_now + relief ≤ L − hysteresis), or it is shed again arm_after_s into it, a
    // cycle every window. This covers the last hold_s + arm_after_s of a window, where it matters
    // most, and any earlier restore under a steady load too.
    const { hold_s: hold, hysteresis_kw: hysteresis } = this.settings;
    const nextLimit = this.view.limitOfWindow(this.view.windowEnd());
    if (q.p_now_kw + stage.relief_kw > nextLimit - hysteresis) {
      this.holdSince = undefined;
      return;
    }
    this.holdSince ??= at;
    if (at - this.holdSince < hold * 1000) return;
    if (at - newest.since < stage.min_off_s * 1000) return;
    this.restoreNewest(at, out);
    this.holdSince = undefined;
  }

  /** Restores every shed stage, newest first. */
  restoreAll(at: number, out: PeakStep): void {
    while (this.state.shed.length > 0) this.restoreNewest(at, out);
  }

  /**
   * Restores the shed stages the settings no longer list, newest first, each once (its restore
   * action as it was when shed); the others stay shed.
   */
  restoreRemoved(at: number, previous: readonly PeakStage[], out: PeakStep): void {
    const kept: ShedStage[] = [];
    for (const shed of [...this.state.shed].reverse()) {
      if (this.stage(shed.id)) {
        kept.unshift(shed);
        continue;
      }
      const action = shed.restore ?? previous.find((stage) => stage.id === shed.id)?.restore;
      this.state.restoredAt[shed.id] = at;
      if (action !== undefined) out.calls.push({ kind: 'restore', stage: shed.id, action, at });
      out.events.push({ type: 'restore', at, stage: shed.id });
    }
    this.state.shed = kept;
  }

  private restoreNewest(at: number, out: PeakStep): void {
    const shed = this.state.shed.pop();
    if (!shed) return;
    const action = this.stage(shed.id)?.restore ?? shed.restore;
    this.state.restoredAt[shed.id] = at;
    if (action !== undefined) out.calls.push({ kind: 'restore', stage: shed.id, action, at });
    out.events.push({ type: 'restore', at, stage: shed.id });
  }
}
