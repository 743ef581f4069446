import { EventEmitter } from 'node:events';
import type { Timer } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { ExportLimiterDecision, LimiterDecision, LimiterState } from '../contracts/export-limiter.js';
import type { Logger } from '../log.js';
import type {
  DeclaredOutput,
  MeterLookup,
  MeterRef,
  OutputStatus,
  OutputView,
  StatusPort,
} from '../output.js';
import { meterView } from '../reading/meter-view.js';
import type { Reading } from '../reading/reading.js';
import type { ReadingStore } from '../reading/store.js';
import type { InverterSetting } from './config-formats.js';
import { createLink, LinkError, parseInverterSource, type RegisterLink } from './modbus-link.js';
import { createDriver, type InverterDriver, type InverterFacts } from './profiles.js';
import type { RegisterWrite } from './sunspec.js';
import { LimiterStateFile } from './state-file.js';

export const EXPORT_LIMITER_SERVICE = 'export_limiter';

export type LimiterMode = AppConfig['services']['export_limiter']['mode'];
export type { LimiterState } from '../contracts/export-limiter.js';
/** What the loop does this quarter (docs/architecture.md#export-limiter). */
export type Decision = LimiterDecision;

export interface LimiterSlice {
  settings: AppConfig['services']['export_limiter'];
  /** The grid meter the loop is closed on. */
  meter: MeterRef;
  /** The meters the inverters' pv_meter name, sorted by id. */
  pvMeters: MeterRef[];
}

/** The status facts of the export limiter (services.export_limiter): the loop's state and decision. */
export type ExportLimiterFacts = { control: LimiterState; decision: Decision; reason: string };
export type ExportLimiterStatus = OutputStatus<ExportLimiterFacts>;

/** The peak guard's forecast for the running window, as the limiter reads it. */
export interface PeakForecast {
  predictedKw: number | null;
  limitKw: number | null;
}

/** After a write, the meter reading that judges it must be taken this long after the inverter showed the effect. */
export const EFFECT_MARGIN_MS = 1000;
/** A write whose effect never shows is given up after this long (inverter dead times reach 25 s). */
export const EFFECT_TIMEOUT_MS = 30_000;
/** An unreachable inverter is tried again no sooner than this (SolarEdge: one client, no faster than 5 s). */
export const RETRY_MIN_MS = 5000;
const RETRY_MAX_MS = 60_000;
/** The control step runs on every reading of the grid meter and at least this often (staleness, refresh). */
const TICK_MS = 1000;
const HOUR_MS = 3_600_000;

export interface InverterStatus {
  id: string;
  profile: string;
  state: 'unknown' | 'ok' | 'inverter_lost' | 'busy' | 'pv_meter_missing';
  model: number | null;
  wmax_w: number | null;
  installer_limit_pct: number | null;
  reported_w: number | null;
  commanded_pct: number | null;
  commanded_w: number | null;
  last_write: string | null;
  writes_per_hour: number;
  writes: number;
  refreshes: number;
  failures: number;
  error: string | null;
}

export interface LimiterStatus {
  enabled: boolean;
  mode: LimiterMode;
  decision: Decision;
  reason: string;
  state: LimiterState;
  target_w: number;
  grid_w: number | null;
  grid_at: string | null;
  /** The limits the gateway holds, summed over the inverters (W); null while it holds none. */
  limit_w: number | null;
  inverters: InverterStatus[];
}

/** One limit write as the event stream and the tests see it. */
export interface LimiterWrite {
  inverter: string;
  at: number;
  percent: number | null;
  kind: 'limit' | 'refresh' | 'safe' | 'restore' | 'cancel';
  block: RegisterWrite;
}

export interface LimiterEvents {
  status: [LimiterStatus];
  write: [LimiterWrite];
  event: [{ at: number; type: string; message: string }];
}

interface Pending {
  at: number;
  fromW: number;
  commandedW: number;
  /** When the inverter first reported the commanded output. */
  reachedAt?: number;
}

class Inverter {
  readonly link: RegisterLink;
  readonly driver: InverterDriver;
  facts: InverterFacts | undefined;
  state: InverterStatus['state'] = 'unknown';
  reportedW: number | null = null;
  reportedAt = 0;
  /** The limit the gateway holds (%), null while the gateway holds none. */
  commandedPct: number | null = null;
  /** `setpoint` devices: the grid setpoint the gateway holds (W), null while it holds none. */
  commandedW: number | null = null;
  lastWriteAt: number | null = null;
  readonly writeTimes: number[] = [];
  writes = 0;
  refreshes = 0;
  failures = 0;
  consecutiveFailures = 0;
  retryAt = 0;
  error: string | null = null;
  /** The last write failed: the inverter answers reads but not writes, so it is not under control. */
  writeFailing = false;
  /** safe_pct went out during the current stale spell. */
  safeWritten = false;

  constructor(
    readonly setting: InverterSetting,
    ctx: AppContext,
  ) {
    this.link = createLink(parseInverterSource(setting.source)!, ctx.clock);
    this.driver = createDriver(this.link, setting.profile);
  }

  /** A device that holds a grid setpoint itself (victron_ess) rather than taking a PV limit. */
  get holdsSetpoint(): boolean {
    return this.driver.control === 'setpoint';
  }

  /** The highest limit the gateway may command (%): the installer's, else 100. */
  get capPct(): number {
    return this.facts?.installerPct ?? 100;
  }

  status(now: number): InverterStatus {
    while (this.writeTimes.length > 0 && this.writeTimes[0]! <= now - HOUR_MS) this.writeTimes.shift();
    const wmax = this.facts?.wmaxW ?? null;
    return {
      id: this.setting.id,
      profile: this.setting.profile,
      state: this.state,
      model: this.facts?.model ?? null,
      wmax_w: wmax,
      installer_limit_pct: this.facts?.installerPct ?? null,
      reported_w: this.reportedW,
      commanded_pct: this.commandedPct,
      commanded_w:
        this.driver.control === 'setpoint'
          ? this.commandedW
          : this.commandedPct === null || wmax === null
            ? null
            : Math.round((this.commandedPct * wmax) / 100),
      last_write: this.lastWriteAt === null ? null : new Date(this.lastWriteAt).toISOString(),
      writes_per_hour: this.writeTimes.length,
      writes: this.writes,
      refreshes: this.refreshes,
      failures: this.failures,
      error: this.error,
    };
  }
}

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

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Logger,
    /** The peak guard's forecast of the running window, when a guard runs. */
    private readonly peakForecast: () => PeakForecast | undefined = () => undefined,
  ) {
    super();
    this.setMaxListeners(0);
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
        if (handBack === 'release') await this.release(inverter);
        // A setpoint device keeps target_w: it holds it on its own grid meter without the gateway.
        else if (inverter.holdsSetpoint) continue;
        else if (inverter.commandedPct !== null && inverter.facts)
          await this.command(inverter, settings.safe_pct, 0, 'safe', now);
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
        await this.command(inverter, settings.safe_pct, 0, 'safe', now);
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
    if (ready.length > 0 && fresh) await this.control(settings, ready, now);
    else if (ready.length > 0 && !fresh) await this.refresh(settings, ready, now, false);
    this.state = this.siteState(ready);
    this.publish();
  }

  private startedAt: number | undefined;

  /** Probes inverters not yet known, reads the output of the known ones; answers those that answered. */
  private async contact(now: number): Promise<Inverter[]> {
    const ready: Inverter[] = [];
    for (const inverter of this.inverters) {
      if (now < inverter.retryAt) continue;
      try {
        if (!inverter.facts) {
          const facts = await inverter.driver.probe(inverter.setting.wmax_w);
          // A limit the gateway itself left behind (a restart, a kill) is not an installer's.
          const remembered = this.memory?.get(inverter.setting.id, inverter.setting.source);
          if (remembered) {
            // Another limit than the installer's: the one the gateway left, which it now holds again.
            if (facts.installerPct !== null && facts.installerPct !== remembered.installer_pct)
              inverter.commandedPct = facts.installerPct;
            facts.installerPct = remembered.installer_pct;
            if (facts.setpointW !== undefined && remembered.setpoint_w !== undefined) {
              if (facts.setpointW !== remembered.setpoint_w) inverter.commandedW = facts.setpointW;
              facts.setpointW = remembered.setpoint_w;
            }
          } else
            this.memory?.set(inverter.setting.id, {
              source: inverter.setting.source,
              installer_pct: facts.installerPct,
              ...(facts.setpointW === undefined ? {} : { setpoint_w: facts.setpointW }),
            });
          inverter.facts = facts;
          inverter.reportedW = inverter.facts.outputW;
          const installer = inverter.facts.installerPct;
          this.event(
            now,
            'inverter_found',
            `${inverter.setting.id}: ${inverter.facts.model === null ? inverter.setting.profile : `model ${inverter.facts.model}`}, WMax ${inverter.facts.wmaxW} W, output ${inverter.facts.outputW} W` +
              (inverter.facts.setpointW !== undefined
                ? `, grid setpoint ${inverter.facts.setpointW} W found`
                : installer === null
                  ? ', no limit set'
                  : `, installer limit ${installer} % kept as the ceiling`),
          );
        } else inverter.reportedW = await inverter.driver.readOutput();
        if (inverter.setting.pv_meter !== undefined) {
          const measured = this.pvMeterW(inverter.setting.pv_meter, now);
          if (typeof measured === 'string') {
            this.pvMeterMissing(inverter, measured, now);
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
        this.failed(inverter, error, now);
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

  /** An inverter whose pv_meter gives no output: not controlled (no write) until it does. */
  private pvMeterMissing(inverter: Inverter, reason: string, now: number): void {
    if (inverter.state !== 'pv_meter_missing' || inverter.error !== reason) {
      this.log.warn(`export limiter: inverter ${inverter.setting.id}: ${reason}`);
      this.event(now, 'pv_meter_missing', `${inverter.setting.id}: ${reason}`);
    }
    inverter.state = 'pv_meter_missing';
    inverter.error = reason;
    inverter.reportedW = null;
  }

  private failed(inverter: Inverter, error: unknown, now: number): void {
    const failure =
      error instanceof LinkError
        ? error
        : new LinkError('connection', String((error as Error)?.message ?? error));
    inverter.failures += 1;
    inverter.consecutiveFailures += 1;
    const wait = Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** Math.min(4, inverter.consecutiveFailures - 1));
    inverter.retryAt = now + wait;
    const state = failure.kind === 'busy' ? 'busy' : 'inverter_lost';
    if (inverter.state !== state || inverter.error !== failure.message) {
      this.log.warn(
        `export limiter: inverter ${inverter.setting.id}: ${failure.message}; next try in ${wait / 1000} s`,
      );
      this.event(now, state, `${inverter.setting.id}: ${failure.message}`);
    }
    inverter.state = state;
    inverter.error = failure.message;
  }

  /** What the loop does now: the mode, the price of the quarter and the peak guard's forecast. */
  private decide(settings: LimiterSlice['settings'], now: number): void {
    if (settings.mode === 'off') return this.set('off', 'mode off');
    if (settings.mode === 'zero_export') return this.set('zero_export', 'mode zero_export');
    const quarter = this.ctx.prices.quarterAt(now);
    if (!quarter || (quarter.import === null && quarter.export === null))
      // docs/architecture.md#export-limiter: an unknown price limits (at most the export revenue of
      // the quarter is lost) rather than risk exporting at a negative price.
      return this.set('zero_export', 'price unknown for this quarter: zero export');
    if (quarter.import !== null && quarter.import < 0) {
      const peak = this.peakForecast();
      if (peak && peak.predictedKw !== null && peak.limitKw !== null && peak.predictedKw > peak.limitKw)
        return this.set(
          'zero_export',
          `import price ${quarter.import} < 0 but PV off suppressed: the peak guard predicts ${peak.predictedKw} kW above ${peak.limitKw} kW`,
        );
      return this.set('pv_off', `import price ${quarter.import} < 0: PV off`);
    }
    if (quarter.export === null)
      return this.set('zero_export', 'export price unknown for this quarter: zero export');
    if (quarter.export < settings.export_threshold)
      return this.set(
        'zero_export',
        `export price ${quarter.export} < ${settings.export_threshold}: zero export`,
      );
    return this.set('free', `export price ${quarter.export} ≥ ${settings.export_threshold}: free`);
  }

  private set(decision: Decision, reason: string): void {
    if (decision !== this.decision) {
      this.event(this.ctx.clock.now(), 'decision', reason);
      this.pending = undefined;
    }
    this.decision = decision;
    this.reason = reason;
  }

  private async control(settings: LimiterSlice['settings'], all: Inverter[], now: number): Promise<void> {
    await this.holdSetpoints(
      settings,
      all.filter((inverter) => inverter.holdsSetpoint),
      now,
    );
    const ready = all.filter((inverter) => !inverter.holdsSetpoint);
    if (ready.length === 0) return;
    if (this.decision === 'off' || this.decision === 'free') {
      for (const inverter of ready) await this.release(inverter);
      return;
    }
    if (this.decision === 'pv_off') {
      for (const inverter of ready)
        if (inverter.commandedPct !== 0) await this.command(inverter, 0, settings.revert_s, 'limit', now);
      await this.refresh(settings, ready, now, true);
      return;
    }
    const grid = this.gridW!;
    const reportedTotal = ready.reduce((sum, inverter) => sum + (inverter.reportedW ?? 0), 0);
    if (this.pending && !this.effectSeen(this.pending, reportedTotal, settings, now)) return;
    this.pending = undefined;
    const error = grid - settings.target_w;
    if (Math.abs(error) <= settings.deadband_w) {
      await this.refresh(settings, ready, now, true);
      return;
    }
    const wmaxTotal = ready.reduce((sum, inverter) => sum + inverter.facts!.wmaxW, 0);
    let commandedTotal = 0;
    let wrote = false;
    for (const inverter of ready) {
      const wmax = inverter.facts!.wmaxW;
      const capW = (inverter.capPct / 100) * wmax;
      const share = (inverter.reportedW ?? 0) + (error * wmax) / wmaxTotal;
      const limitW = Math.min(capW, Math.max(0, share));
      const percent = Math.round((limitW / wmax) * 1000) / 10;
      commandedTotal += limitW;
      const heldW = inverter.commandedPct === null ? null : (inverter.commandedPct / 100) * wmax;
      // A raise the inverter would not feel: it is below its limit already (PV, not the limit, binds).
      if (error > 0 && (heldW === null || (inverter.reportedW ?? 0) < heldW - settings.deadband_w)) continue;
      if (heldW !== null && Math.abs(limitW - heldW) <= settings.deadband_w / ready.length) continue;
      if (heldW === null && limitW >= capW) continue;
      await this.command(inverter, percent, settings.revert_s, 'limit', now);
      wrote = true;
    }
    if (wrote) this.pending = { at: now, fromW: reportedTotal, commandedW: commandedTotal };
    else await this.refresh(settings, ready, now, true);
  }

  /**
   * Setpoint devices (victron_ess): in zero_export and pv_off the grid setpoint is target_w (the
   * device cannot be told to stop its PV through it), written when it differs and again every
   * refresh_s; off and free give back the setpoint found at the first contact.
   */
  private async holdSetpoints(
    settings: LimiterSlice['settings'],
    devices: Inverter[],
    now: number,
  ): Promise<void> {
    for (const device of devices) {
      if (this.decision === 'off' || this.decision === 'free') {
        await this.release(device);
        continue;
      }
      const due =
        device.commandedW !== settings.target_w ||
        device.lastWriteAt === null ||
        now - device.lastWriteAt >= settings.refresh_s * 1000;
      if (!due) continue;
      const kind = device.commandedW === settings.target_w ? 'refresh' : 'limit';
      await this.setpoint(device, settings.target_w, kind, now);
    }
  }

  private async setpoint(
    device: Inverter,
    watts: number,
    kind: LimiterWrite['kind'],
    now: number,
  ): Promise<void> {
    try {
      const block = await device.driver.writeSetpoint!(watts);
      device.commandedW = watts;
      this.recordWrite(device, kind, null, block, now);
      if (device.writeFailing) {
        device.writeFailing = false;
        device.state = 'ok';
        device.error = null;
        device.consecutiveFailures = 0;
      }
    } catch (error) {
      device.writeFailing = true;
      this.failed(device, error, now);
    }
  }

  /**
   * Whether a write's effect has shown: the inverter reports an output within deadband of the
   * command (for a raise, at least the command less the deadband, since PV may not reach it), and
   * this meter reading was taken EFFECT_MARGIN_MS after that report; or EFFECT_TIMEOUT_MS passed.
   */
  private effectSeen(
    pending: Pending,
    reportedW: number,
    settings: LimiterSlice['settings'],
    now: number,
  ): boolean {
    if (now - pending.at >= EFFECT_TIMEOUT_MS) return true;
    const reached =
      pending.commandedW <= pending.fromW
        ? reportedW <= pending.commandedW + settings.deadband_w
        : reportedW >= pending.commandedW - settings.deadband_w;
    if (!reached) return false;
    pending.reachedAt ??= now;
    return this.gridAt !== null && this.gridAt >= pending.reachedAt + EFFECT_MARGIN_MS;
  }

  /** Writes the held limit again when refresh_s has passed since the last write. */
  private async refresh(
    settings: LimiterSlice['settings'],
    ready: Inverter[],
    now: number,
    meterFresh: boolean,
  ): Promise<void> {
    if (!meterFresh || this.pending) return;
    for (const inverter of ready) {
      if (inverter.holdsSetpoint) continue;
      if (inverter.commandedPct === null || inverter.lastWriteAt === null) continue;
      if (now - inverter.lastWriteAt < settings.refresh_s * 1000) continue;
      await this.command(inverter, inverter.commandedPct, settings.revert_s, 'refresh', now);
    }
  }

  /** Hands the inverter back: the installer's limit restored, or the gateway's own limit cancelled. */
  private async release(inverter: Inverter): Promise<void> {
    if (!inverter.facts) return;
    if (inverter.holdsSetpoint) {
      const found = inverter.facts.setpointW;
      if (inverter.commandedW !== null && found !== undefined) {
        await this.setpoint(inverter, found, 'restore', this.ctx.clock.now());
        if (inverter.writeFailing) return;
      }
      inverter.commandedW = null;
      this.memory?.forget(inverter.setting.id);
      return;
    }
    if (inverter.commandedPct === null) {
      // Never limited by the gateway: what the inverter holds is its own; read it afresh next time.
      this.memory?.forget(inverter.setting.id);
      return;
    }
    const now = this.ctx.clock.now();
    const installer = inverter.facts.installerPct;
    try {
      const block =
        installer === null
          ? await inverter.driver.cancel()
          : await inverter.driver.writeLimit(installer, installer, 0);
      this.recordWrite(inverter, installer === null ? 'cancel' : 'restore', installer, block, now);
      inverter.commandedPct = null;
      this.memory?.forget(inverter.setting.id);
    } catch (error) {
      this.failed(inverter, error, now);
    }
  }

  private async command(
    inverter: Inverter,
    percent: number,
    revertS: number,
    kind: LimiterWrite['kind'],
    now: number,
  ): Promise<void> {
    const settings = this.settings!;
    // Never above the installer's limit, whatever asked for it (safe_pct included).
    const bounded = Math.min(inverter.capPct, Math.max(0, percent));
    const safe = Math.min(inverter.capPct, settings.safe_pct);
    try {
      const block = await inverter.driver.writeLimit(bounded, safe, revertS);
      inverter.commandedPct = bounded;
      this.recordWrite(inverter, kind, bounded, block, now);
      if (inverter.writeFailing) {
        inverter.writeFailing = false;
        inverter.state = 'ok';
        inverter.error = null;
        inverter.consecutiveFailures = 0;
      }
    } catch (error) {
      inverter.writeFailing = true;
      this.failed(inverter, error, now);
    }
  }

  private recordWrite(
    inverter: Inverter,
    kind: LimiterWrite['kind'],
    percent: number | null,
    block: RegisterWrite,
    now: number,
  ): void {
    inverter.lastWriteAt = now;
    inverter.writeTimes.push(now);
    if (inverter.writeTimes.length > 4000) inverter.writeTimes.shift();
    inverter.writes += 1;
    if (kind === 'refresh') inverter.refreshes += 1;
    this.emit('write', { inverter: inverter.setting.id, at: now, percent, kind, block });
  }

  private siteState(ready: Inverter[]): LimiterState {
    if (this.inverters.length === 0) return 'idle';
    if (this.inverters.some((inverter) => inverter.state === 'busy')) return 'busy';
    if (
      ready.length < this.inverters.length ||
      this.inverters.some(
        (inverter) => inverter.state === 'inverter_lost' || inverter.state === 'pv_meter_missing',
      )
    )
      return 'inverter_lost';
    if (this.decision === 'off') return 'idle';
    if (this.decision === 'free') return 'free';
    if (this.decision === 'pv_off') return 'pv_off';
    return this.inverters.some((inverter) => inverter.commandedPct !== null || inverter.commandedW !== null)
      ? 'limiting'
      : 'idle';
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
