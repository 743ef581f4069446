import { EventEmitter } from 'node:events';
import type { Timer } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { ExportLimiterDecision, LimiterState } from '../contracts/export-limiter.js';
import type { Logger } from '../log.js';
import type { DeclaredOutput, MeterLookup, MeterRef, OutputView, StatusPort } from '../output.js';
import { meterView } from '../reading/meter-view.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';
import type { Pending } from './control-law.js';
import { decide, type PeakForecast } from './decision.js';
import { Inverter } from './inverter.js';
import { InverterIo } from './inverter-io.js';
import {
  siteState,
  type Decision,
  type ExportLimiterFacts,
  type LimiterEvents,
  type LimiterStatus,
} from './limiter-status.js';
import { regulate } from './regulation.js';
import { LimiterStateFile } from './state-file.js';

export type { PeakForecast } from './decision.js';
export { RETRY_MIN_MS } from './inverter-io.js';
export type { Decision, LimiterMode, LimiterState, LimiterStatus, LimiterWrite } from './limiter-status.js';

export const EXPORT_LIMITER_SERVICE = 'export_limiter';

export interface LimiterSlice {
  settings: AppConfig['services']['export_limiter'];
  /** The grid meter the loop is closed on. */
  meter: MeterRef;
  /** The meters the inverters' pv_meter name, sorted by id. */
  pvMeters: MeterRef[];
}

/** The control step runs on every reading of the grid meter and at least this often (staleness, refresh). */
const TICK_MS = 1000;

/**
 * Grid power in W from a reading (import positive, the meter view's one rule of
 * src/reading/meter-view.ts), or null when the reading has no finite active power.
 */
export function gridPowerW(reading: Reading): number | null {
  const watts = meterView(reading).total.w;
  return watts !== null && Number.isFinite(watts) ? watts : null;
}

/**
 * The export limiter (docs/architecture.md#export-limiter): one control loop per site, closed on
 * the grid meter, writing the inverters' active power limit through their profiles.
 *
 * - new limit = P_inverter_reported + P_grid − target_w, clamped to [0, installer limit]: one jump
 *   to where the grid power reaches the target, not a creep on the last command;
 * - one command per effect: after a write no further write until the inverter reports the new
 *   output and a meter reading taken EFFECT_MARGIN_MS after that arrives, or EFFECT_TIMEOUT_MS;
 *   no write while |P_grid − target_w| ≤ deadband_w, nor a raise that a non-binding limit would
 *   not feel;
 * - the limit is written again every refresh_s so the inverter's revert timer (revert_s) fires
 *   only when the gateway is gone;
 * - a grid reading older than stale_after_s: safe_pct written once, then nothing until readings
 *   come back;
 * - an installer's limit present at the first contact is never exceeded, and `free` restores it;
 *   a limit the gateway did not set is never cleared.
 *
 * This class holds the loop (readings, staleness, contact, decision) and its output contract; the
 * writes of a step are in regulation.ts, the control law in control-law.ts, the price mode in
 * decision.ts, the inverter write path in inverter-io.ts.
 */
export class ExportLimiter
  extends EventEmitter<LimiterEvents>
  implements DeclaredOutput<LimiterSlice, ExportLimiterFacts>
{
  readonly name = EXPORT_LIMITER_SERVICE;
  readonly watches = ['services.export_limiter'] as const;

  private settings: LimiterSlice['settings'] | undefined;
  private inverters: Inverter[] = [];
  private store: ReadingStore | undefined;
  /** The grid meter and the pv_meter meters as the runner resolved them. */
  private grid: MeterRef | undefined;
  private pvMeters = new Map<string, MeterRef>();
  private port: StatusPort<ExportLimiterFacts> | undefined;
  private ticker: Timer | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private lastReadingAt = 0;
  private gridW: number | null = null;
  private gridAt: number | null = null;
  private pending: Pending | undefined;
  private staleHeld = false;
  private decision: Decision = 'off';
  private reason = 'disabled';
  private state: LimiterState = 'idle';
  private readonly onReading = () => this.kick();
  private memory: LimiterStateFile | undefined;
  private readonly io: InverterIo;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Logger,
    /** The peak guard's forecast of the running window, when a guard runs. */
    private readonly peakForecast: () => PeakForecast | undefined = () => undefined,
  ) {
    super();
    this.setMaxListeners(0);
    this.io = new InverterIo(
      log,
      () => ctx.clock.now(),
      {
        write: (write) => this.emit('write', write),
        event: (at, type, message) => this.event(at, type, message),
      },
      () => this.settings!.safe_pct,
      () => this.memory,
    );
  }

  async start(status: StatusPort<ExportLimiterFacts>): Promise<void> {
    this.port = status;
  }

  /** A stop (the daemon ends): every inverter the gateway limits gets safe_pct, as if the gateway were gone. */
  async stop(): Promise<void> {
    await this.shutdown('safe');
    this.port = undefined;
  }

  select(config: AppConfig, meters: MeterLookup): LimiterSlice {
    const settings = config.services.export_limiter;
    const pv = [...new Set(settings.inverters.flatMap((inverter) => inverter.pv_meter ?? []))].sort();
    return {
      settings,
      meter: meters.ref(settings.meter || 'main'),
      pvMeters: pv.map((id) => meters.ref(id)),
    };
  }

  enabled(slice: LimiterSlice): boolean {
    return slice.settings.enabled;
  }

  /** The loop's state and decision are live facts (each control step may change them). */
  async apply(view: OutputView<LimiterSlice>): Promise<void> {
    const next = view.slice.settings;
    const previous = this.settings;
    this.grid = view.slice.meter;
    this.pvMeters = new Map(view.slice.pvMeters.map((meter) => [meter.id, meter]));
    // Target, mode, deadband, timings: taken up by the running loop, the inverters keep their limit.
    if (
      previous?.enabled &&
      next.enabled &&
      previous.meter === next.meter &&
      JSON.stringify(previous.inverters) === JSON.stringify(next.inverters)
    ) {
      // Also a meter restarted with new settings: the loop goes on, on the new store.
      this.settings = next;
      this.watchGrid();
      this.kick();
      return;
    }
    // Disabled or other inverters: the inverters are handed back.
    await this.shutdown('release');
    this.settings = next;
    this.reason = 'disabled';
    this.decision = 'off';
    this.state = 'idle';
    if (!this.settings.enabled) {
      this.port?.trouble(undefined);
      this.publish();
      return;
    }
    this.ctx.config.stateDirectory.ensure();
    this.memory ??= new LimiterStateFile(this.ctx.config.stateDirectory.dir, {
      now: this.ctx.now,
      onProblem: (problem) => {
        this.ctx.refusals.add('state_file_corrupt');
        this.log.warn(
          `state file ${problem.path} was corrupt (${problem.reason}); moved to ${problem.movedTo}`,
        );
      },
    });
    this.inverters = this.settings.inverters.map((setting) => new Inverter(setting, this.ctx));
    this.watchGrid();
    this.ticker = this.ctx.clock.setInterval(() => this.kick(), TICK_MS);
    this.ticker.unref();
    this.kick();
    this.publish();
  }

  /**
   * Closes the loop on the grid meter's current store (docs/architecture.md#output-contract): a
   * meter that is not registered gives no reading (the loop goes stale and holds safe_pct) and is
   * the status line's trouble, never a fallback to the primary meter.
   */
  private watchGrid(): void {
    const store = this.grid?.handle?.store;
    if (store !== this.store) {
      this.store?.off('reading', this.onReading);
      this.store = store;
      store?.on('reading', this.onReading);
    }
    const id = this.grid?.id ?? 'main';
    this.port?.trouble(store ? undefined : `meter "${id}" is not registered`);
  }

  /** The status as GET /api/v1/export-limiter shows it. */
  status(): LimiterStatus {
    const now = this.ctx.clock.now();
    const settings = this.settings ?? this.ctx.config.config.services.export_limiter;
    const inverters = this.inverters.map((inverter) => inverter.status(now));
    const held = inverters.filter((inverter) => inverter.commanded_w !== null);
    return {
      enabled: settings.enabled,
      mode: settings.mode,
      decision: this.decision,
      reason: this.reason,
      state: this.state,
      target_w: settings.target_w,
      grid_w: this.gridW === null ? null : Math.round(this.gridW),
      grid_at: this.gridAt === null ? null : new Date(this.gridAt).toISOString(),
      limit_w: held.length === 0 ? null : held.reduce((sum, inverter) => sum + inverter.commanded_w!, 0),
      inverters,
    };
  }

  /** The decision as GET /api/v1/peak shows it; undefined while the limiter is disabled. */
  decisionView(): ExportLimiterDecision | undefined {
    const settings = this.settings ?? this.ctx.config.config.services.export_limiter;
    if (!settings.enabled) return undefined;
    return { mode: settings.mode, decision: this.decision, reason: this.reason, state: this.state };
  }

  /** Resolves when no control step runs or waits (tests move a virtual clock between steps). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.step();
      } catch (error) {
        this.log.warn(`export limiter step failed: ${(error as Error).message}`);
      }
    } while (this.again && this.settings?.enabled);
  }

  private async shutdown(handBack: 'safe' | 'release'): Promise<void> {
    this.store?.off('reading', this.onReading);
    this.store = undefined;
    this.ctx.clock.clearInterval(this.ticker);
    this.ticker = undefined;
    await this.idle();
    const settings = this.settings;
    const now = this.ctx.clock.now();
    if (settings?.enabled)
      for (const inverter of this.inverters) {
        if (handBack === 'release') await this.io.release(inverter);
        // A setpoint device keeps target_w: it holds it on its own grid meter without the gateway.
        else if (inverter.holdsSetpoint) continue;
        else if (inverter.commandedPct !== null && inverter.facts)
          await this.io.command(inverter, settings.safe_pct, 0, 'safe', now);
      }
    this.settings = undefined;
    for (const inverter of this.inverters) await inverter.link.close();
    this.inverters = [];
    this.pending = undefined;
    this.staleHeld = false;
    this.startedAt = undefined;
    this.gridW = null;
    this.gridAt = null;
    this.lastReadingAt = 0;
  }

  /** One control step (see the class comment). */
  private async step(): Promise<void> {
    const settings = this.settings;
    if (!settings?.enabled) return;
    const now = this.ctx.clock.now();
    const reading = this.store?.lastReading;
    const fresh = reading !== undefined && reading.receivedAt > this.lastReadingAt;
    if (fresh) {
      this.lastReadingAt = reading.receivedAt;
      const grid = gridPowerW(reading);
      if (grid !== null) {
        this.gridW = grid;
        this.gridAt = reading.receivedAt;
      }
    }
    const ready = await this.contact(now);
    this.decide(settings, now);

    // Stale meter: safe_pct once, then hold (no refresh: the inverter keeps it, revert time 0).
    const age = this.gridAt === null ? Number.POSITIVE_INFINITY : now - this.gridAt;
    const startedAt = this.startedAt ?? now;
    this.startedAt = startedAt;
    if (
      this.decision !== 'off' &&
      age > settings.stale_after_s * 1000 &&
      now - startedAt >= settings.stale_after_s * 1000
    ) {
      if (!this.staleHeld) {
        this.staleHeld = true;
        this.pending = undefined;
        for (const inverter of this.inverters) inverter.safeWritten = false;
        this.event(
          now,
          'stale',
          `no grid reading for ${settings.stale_after_s} s: inverters to safe_pct ${settings.safe_pct} %`,
        );
      }
      // Once per inverter; one that did not answer gets it when it answers again.
      for (const inverter of ready) {
        // A setpoint device closes its loop on its own grid meter: the gateway's meter going stale
        // does not change what it holds (docs/architecture.md#export-limiter).
        if (inverter.safeWritten || inverter.holdsSetpoint) continue;
        await this.io.command(inverter, settings.safe_pct, 0, 'safe', now);
        inverter.safeWritten = !inverter.writeFailing;
      }
      this.state = 'stale';
      this.publish();
      return;
    }
    if (this.gridAt === null) {
      this.publish();
      return;
    }
    if (this.staleHeld && fresh) {
      this.staleHeld = false;
      this.event(now, 'meter_back', 'grid readings again');
    }
    if (this.staleHeld) {
      this.state = 'stale';
      this.publish();
      return;
    }
    if (ready.length > 0 && fresh)
      this.pending = await regulate(
        this.io,
        { settings, decision: this.decision, gridW: this.gridW!, gridAt: this.gridAt, pending: this.pending },
        ready,
        now,
      );
    this.state = siteState(this.inverters, ready, this.decision);
    this.publish();
  }

  private startedAt: number | undefined;

  /** Probes inverters not yet known, reads the output of the known ones; answers those that answered. */
  private async contact(now: number): Promise<Inverter[]> {
    const ready: Inverter[] = [];
    for (const inverter of this.inverters) {
      if (now < inverter.retryAt) continue;
      try {
        if (!inverter.facts) await this.io.probe(inverter, now);
        else inverter.reportedW = await inverter.driver.readOutput();
        if (inverter.setting.pv_meter !== undefined) {
          const measured = this.pvMeterW(inverter.setting.pv_meter, now);
          if (typeof measured === 'string') {
            this.io.pvMeterMissing(inverter, measured, now);
            continue;
          }
          inverter.reportedW = measured;
        }
        inverter.reportedAt = this.ctx.clock.now();
        if (!inverter.writeFailing) {
          if (inverter.state !== 'ok') inverter.error = null;
          inverter.state = 'ok';
          inverter.consecutiveFailures = 0;
        }
        ready.push(inverter);
      } catch (error) {
        this.io.failed(inverter, error, now);
      }
    }
    return ready;
  }

  /**
   * The present output of an inverter with `pv_meter` (docs/architecture.md#export-limiter): the
   * magnitude of that meter's active power (a PV meter may be wired either way round), from the
   * handle the runner resolved (an edited meter is a new handle); why not (a string) when the meter
   * is not configured or has no reading for stale_after_s. Never the primary meter instead.
   */
  private pvMeterW(id: string, now: number): number | string {
    const meter = this.pvMeters.get(id)?.handle;
    if (!meter) return `pv_meter "${id}" is not a configured meter`;
    const reading = meter.store.lastReading;
    const staleMs = (this.settings?.stale_after_s ?? 30) * 1000;
    if (!reading || now - reading.receivedAt > staleMs)
      return `pv_meter "${id}" has no reading for ${staleMs / 1000} s`;
    const watts = gridPowerW(reading);
    if (watts === null) return `pv_meter "${id}" reports no active power`;
    return Math.abs(watts);
  }

  /** What the loop does now: the mode, the price of the quarter and the peak guard's forecast. */
  private decide(settings: LimiterSlice['settings'], now: number): void {
    const { decision, reason } = decide(settings, this.ctx.prices.quarterAt(now), this.peakForecast);
    this.set(decision, reason);
  }

  private set(decision: Decision, reason: string): void {
    if (decision !== this.decision) {
      this.event(this.ctx.clock.now(), 'decision', reason);
      this.pending = undefined;
    }
    this.decision = decision;
    this.reason = reason;
  }

  private event(at: number, type: string, message: string): void {
    this.emit('event', { at, type, message });
  }

  private publish(): void {
    const status = this.status();
    this.port?.facts({ control: status.state, decision: status.decision, reason: status.reason });
    this.emit('status', status);
  }
}
