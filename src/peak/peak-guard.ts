/**
 * The peak guard as an output (docs/architecture.md#peak-guard): its slice and the shapes around it
 * are in guard-slice.ts, the import price its engine weighs in import-price.ts.
 */
import { type Timer } from '../clock.js';
import { EventEmitter } from 'node:events';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import {
  sameSlice,
  type DeclaredOutput,
  type MeterLookup,
  type OutputView,
  type StatusPort,
} from '../output.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';
import { PeakEngine, windowSeconds } from './engine.js';
import type { PeakEvent, PeakSettings, PeakSnapshot, PeakStep } from './engine-types.js';
import { PeakStateFile } from './state-file.js';
import { MonthPeaks, type MonthRecord } from './months.js';
import { topN } from './tariff-model.js';
import { peakView, type MonthEntry } from './view.js';
import type { ExportLimiterDecision } from '../contracts/export-limiter.js';
import type { PeakView } from '../contracts/peak.js';
import { MeterDemand } from './meter-demand.js';
import { seedFromHistory, type MinuteSource } from './rebuild.js';
import {
  importOf,
  selectPeakSlice,
  settingsOf,
  type PeakActions,
  type PeakGuardFacts,
  type PeakSlice,
} from './guard-slice.js';
import { importPriceAt } from './import-price.js';

export const PEAK_SERVICE = 'peak_guard';
const LOCK_OWNER = 'peak guard';

/**
 * The peak guard as an output (docs/architecture.md#peak-guard): feeds the guarded meter's
 * readings and the clock to the engine, persists its state before each call, runs the stages'
 * shed and restore actions, locks the triggers of the shed stages' `locks`, and tells the API
 * (snapshot, `update` and `event` events).
 */
export class PeakGuard
  extends EventEmitter<{ update: [PeakSnapshot]; event: [PeakEvent] }>
  implements DeclaredOutput<PeakSlice, PeakGuardFacts>
{
  readonly name = PEAK_SERVICE;
  readonly watches = ['services.peak_guard', 'meter.timeout'] as const;
  private engine: PeakEngine | undefined;
  private slice: PeakSlice | undefined;
  private store: ReadingStore | undefined;
  private timer: Timer | undefined;
  private readonly file: PeakStateFile;
  private started = false;
  private port: StatusPort<PeakGuardFacts> | undefined;
  /** The first reading after a (re)start: the window may need its running value rebuilt. */
  private rebuild: 'check' | 'pending' | 'done' = 'check';
  /** The meter's own demand registers (Belgian P1), beside the computed values. */
  readonly meterDemand = new MeterDemand();
  /**
   * The export limiter's decision, shown beside the window in the view (its `pv_off` yields to this
   * guard's forecast, docs/architecture.md#export-limiter); undefined while the limiter is off.
   */
  exportLimiter: () => ExportLimiterDecision | undefined = () => undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Logger,
    private readonly actions: PeakActions,
    /** The history's minutes of a meter, to rebuild the running value after a restart. */
    private readonly minutes?: MinuteSource,
  ) {
    super();
    this.setMaxListeners(0);
    this.file = new PeakStateFile(ctx.config.stateDirectory.dir, () => ctx.now());
  }

  select(config: AppConfig, meters: MeterLookup): PeakSlice {
    return selectPeakSlice(config, meters);
  }

  enabled(slice: PeakSlice): boolean {
    return slice.enabled;
  }

  /**
   * A new slice: a change of the meter handles alone (a meter added, removed or restarted with new
   * settings) moves the guard onto the new store; any other change builds the engine again from its
   * persisted state.
   */
  apply(next: OutputView<PeakSlice>, previous: OutputView<PeakSlice> | undefined): PeakGuardFacts {
    const before = this.slice;
    this.slice = next.slice;
    if (!this.started) return { meter: next.slice.meter.id };
    if (this.engine && previous && sameSlice(settingsOf(previous.slice), settingsOf(next.slice))) {
      this.follow();
      return { meter: next.slice.meter.id };
    }
    this.watch(undefined);
    const persisted = this.engine?.persisted() ?? this.loadState();
    this.engine = new PeakEngine(next.slice.settings, next.slice.timeoutS * 1000, persisted);
    this.engine.setPrice((at) => importPriceAt(this.ctx.config.config, this.ctx.prices, at));
    this.rebuild = 'check';
    // A stage removed from the settings while shed is restored now, newest first, once.
    const removed = this.engine.restoreRemoved(this.ctx.now(), before?.settings.stages ?? []);
    if (removed.calls.length > 0 || removed.events.length > 0) this.step(removed);
    if (!next.slice.enabled) {
      // Disabling the guard restores everything, newest first.
      if (this.engine.persisted().shed.length > 0) this.step(this.engine.restoreAll(this.ctx.now()));
      this.engine = undefined;
      this.actions.lock(LOCK_OWNER, new Set());
      this.port?.trouble(undefined);
      return { meter: next.slice.meter.id };
    }
    this.applyLocks();
    this.follow();
    return { meter: next.slice.meter.id };
  }

  /**
   * Watches the configured meter's current store, the handle the runner resolved: a meter that is
   * not registered is a state (stale, and the status line's error), never a fallback to another
   * meter (docs/architecture.md#output-contract).
   */
  private follow(): void {
    const meter = this.slice?.meter;
    const handle = meter?.handle;
    if (this.store !== handle?.store) this.watch(handle?.store);
    this.engine?.setMeterMissing(handle === undefined);
    if (!this.engine) return;
    this.port?.trouble(handle ? undefined : `meter "${meter?.id ?? 'main'}" is not registered`);
    if (!handle) this.emit('update', this.engine.snapshot(this.ctx.now()));
  }

  /** The state file, validated (state-file.ts); an invalid one is set aside, logged and counted. */
  private loadState() {
    const loaded = this.file.load();
    if (loaded.rejected) {
      this.stateRejections += 1;
      this.log.warn(
        `peak guard: state file ${this.file.path} is invalid (${loaded.rejected}); moved to ${loaded.movedTo ?? '(not moved)'}, starting from empty`,
      );
    }
    return loaded.state;
  }

  async start(status: StatusPort<PeakGuardFacts>): Promise<void> {
    this.started = true;
    this.port = status;
    this.ctx.config.stateDirectory.ensure();
    this.timer = this.ctx.clock.setInterval(() => this.tick(), 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.port = undefined;
    this.watch(undefined);
    if (this.timer) this.ctx.clock.clearInterval(this.timer);
    this.timer = undefined;
    if (this.engine) this.file.save(this.engine.persisted());
    this.engine = undefined;
  }

  /** The guard's view for the API; `off` while disabled. */
  snapshot(): PeakSnapshot | { state: 'off' } {
    return this.engine ? this.engine.snapshot(this.ctx.now()) : { state: 'off' };
  }

  /** Month records (peaks and top windows) of the engine or, while off, of the state file. */
  months(): MonthRecord[] {
    return this.engine?.monthRecords() ?? this.file.load().state?.months ?? [];
  }

  /** The months with the value each is billed at and its source (GET /api/v1/peak/history). */
  monthEntries(): MonthEntry[] {
    if (this.engine) return this.engine.monthSources();
    const settings = this.slice?.settings;
    const peaks = new MonthPeaks(this.months(), { n: settings ? topN(settings) : 1, days: false });
    return peaks
      .list()
      .map((record) => ({ record, source: peaks.sourceOf(record), kw: peaks.valueOf(record) }));
  }

  /** The window length in seconds of the settings in force. */
  get windowSeconds(): number {
    return this.slice ? windowSeconds(this.slice.settings) : 900;
  }

  /** GET /api/v1/peak and the stream's `peak` event: the snapshot with the meter's registers. */
  view(snapshot: PeakSnapshot | { state: 'off' } = this.snapshot()): PeakView {
    const config = this.ctx.config.config;
    const view = peakView(
      snapshot,
      config.services.peak_guard.model,
      this.meterDemand.view(),
      config.services.costs.currency,
    );
    const limiter = this.exportLimiter();
    return limiter ? { ...view, export_limiter: limiter } : view;
  }

  /** State files found invalid and set aside since the start. */
  stateRejections = 0;

  get settings(): PeakSettings | undefined {
    return this.slice?.settings;
  }

  /** The guarded meter's id; an empty setting is the primary. */
  get meterId(): string {
    return this.slice?.meter.id ?? 'main';
  }

  /** Whether the guard runs (its engine exists); `enabled(slice)` is what its settings ask. */
  get guarding(): boolean {
    return this.engine !== undefined;
  }

  tick(): void {
    if (this.engine) this.step(this.engine.tick(this.ctx.now()));
  }

  private watch(store: ReadingStore | undefined): void {
    if (this.store) this.store.off('reading', this.onReading);
    this.store = store;
    if (store) store.subscribe(PEAK_SERVICE, 'reading', this.onReading);
  }

  private readonly onReading = (reading: Reading): void => {
    const engine = this.engine;
    const measured = importOf(reading);
    if (!engine || !measured) return;
    const meters: Record<string, number> = {};
    for (const meter of this.slice?.stageMeters ?? []) {
      const kw = meter.handle?.store.latest?.values.get('1.7.0')?.value;
      if (kw !== undefined) meters[meter.id] = kw;
    }
    const at = this.ctx.now();
    if (this.rebuild !== 'done') {
      if (this.rebuild === 'check') this.rebuildWindow(engine, at, measured.kwh);
      if (this.rebuild === 'pending') return;
    }
    const lastAverage = this.meterDemand.update(reading);
    if (reading.demand || reading.values.has('1.6.0'))
      engine.meterMonths(
        this.meterDemand
          .months()
          .map((month) => ({ month: month.month, kw: month.kw, at: Date.parse(month.at) })),
      );
    const step = engine.reading({ at, importKwh: measured.kwh, importKw: measured.kw, meters });
    const closed = step.closed;
    if (closed) this.meterDemand.compare(closed.kw, lastAverage);
    this.step(step);
  };

  /**
   * The state file is the first source of the window's counter at its start; without it for the
   * current window, the running value is rebuilt from the history's closed minutes
   * (rebuild.ts). Readings wait while the history answers.
   */
  private rebuildWindow(engine: PeakEngine, at: number, kwh: number): void {
    const meter = this.meterId;
    if (!this.minutes || !engine.needsWindow(at)) {
      this.rebuild = 'done';
      return;
    }
    this.rebuild = 'pending';
    void seedFromHistory(
      engine,
      this.minutes,
      meter,
      at,
      kwh,
      this.log,
      () => this.engine === engine,
    ).finally(() => {
      if (this.engine === engine) this.rebuild = 'done';
    });
  }

  /** State first (atomically), then the calls: a crash between them never repeats a call. */
  private step(step: PeakStep): void {
    if (this.engine) this.file.save(this.engine.persisted());
    for (const call of step.calls) {
      const result = this.actions.call(call.action, `peak guard ${call.kind} ${call.stage}`);
      if (!result.ok)
        this.log.warn(
          `peak guard: ${call.kind} ${call.stage}: action ${call.action} not started: ${result.reason}`,
        );
    }
    for (const event of step.events) {
      if (event.type !== 'warning')
        this.log.info(`peak guard: ${event.type}${event.stage ? ` ${event.stage}` : ''}`);
      this.emit('event', event);
    }
    if (step.calls.length > 0) this.applyLocks();
    if (this.engine) this.emit('update', this.engine.snapshot(this.ctx.now()));
  }

  private applyLocks(): void {
    const shed = new Set(this.engine?.snapshot(this.ctx.now()).shed.map((stage) => stage.id) ?? []);
    const stages = this.slice?.settings.stages ?? [];
    const locked = new Set(stages.filter((stage) => shed.has(stage.id)).flatMap((stage) => stage.locks));
    this.actions.lock(LOCK_OWNER, locked);
  }
}
