// The export limiter's test rig (docs/architecture.md#export-limiter): a simulated inverter on a
// loopback Modbus TCP port, a simulated house (load and PV profiles) whose grid power reaches the
// limiter as meter readings at the meter's cadence, all on one virtual clock: each 100 ms step moves
// the clock, lets the inverter's output follow its limit, and waits for the limiter's Modbus
// transactions before time moves on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock, Timer } from '../../src/clock.js';
import { createAppContext, type AppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/daemon.js';
import { ExportLimiter, type LimiterWrite, type PeakForecast } from '../../src/export-limiter/limiter.js';
import { runOutput } from '../../src/output.js';
import type { PriceSignal } from '../../src/prices/price-signal.js';
import { valuesOf } from '../../src/reading/reading.js';
import type { Service } from '../../src/service.js';
import { silentLogger } from '../helpers/log-lines.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import {
  startSimulatedInverter,
  type SimulatedInverter,
  type SimulatedInverterOptions,
} from '../helpers/simulated-inverter.js';

registerConfigFormats();

export const STEP_MS = 100;

export interface RigOptions {
  start?: number;
  /** House load (W) at a time. */
  load?: (time: number) => number;
  inverter?: Omit<SimulatedInverterOptions, 'clock'>;
  /** Meter cadence (DSMR 5: 1 s, DSMR 4: 10 s). */
  meterEveryMs?: number;
  /** METER_GATEWAY_SERVICES_EXPORT_LIMITER_* values beside enabled and inverters. */
  env?: Record<string, string>;
  profile?: string;
  prices?: PriceSignal;
  peak?: () => PeakForecast | undefined;
  /** Start no limiter (the naive controller case drives the inverter itself). */
  noLimiter?: boolean;
}

/** A clock whose timers stop firing once `kill` is called: the limiter "process" dies at once. */
class KillableClock implements Clock {
  alive = true;
  constructor(private readonly base: Clock) {}
  now = () => this.base.now();
  setTimeout = (callback: () => void, delayMs: number): Timer =>
    this.base.setTimeout(() => this.alive && callback(), delayMs);
  clearTimeout = (timer: Timer | undefined) => this.base.clearTimeout(timer);
  setInterval = (callback: () => void, intervalMs: number): Timer =>
    this.base.setInterval(() => this.alive && callback(), intervalMs);
  clearInterval = (timer: Timer | undefined) => this.base.clearInterval(timer);
}

export class LimiterRig {
  readonly writes: LimiterWrite[] = [];
  /** Export energy (Wh) and import energy (Wh) integrated over the 100 ms steps. */
  exportWh = 0;
  importWh = 0;
  meterSilent = false;
  private lastMeterAt: number;
  private killed = false;

  constructor(
    readonly clock: VirtualClock,
    private readonly killable: KillableClock,
    public ctx: AppContext,
    readonly inverter: SimulatedInverter,
    public limiter: ExportLimiter | undefined,
    private service: Service | undefined,
    private readonly stateDir: string,
    private readonly env: Record<string, string>,
    private readonly options: RigOptions,
    public load: (time: number) => number,
    readonly meterEveryMs: number,
  ) {
    this.lastMeterAt = clock.now();
    limiter?.on('write', (write) => this.writes.push(write));
  }

  /** Grid power now (W, import positive): the house load less the inverter's output. */
  gridW(): number {
    return this.load(this.clock.now()) - this.inverter.outputW();
  }

  /** Moves the clock by `ms` in 100 ms steps, feeding a reading at the meter's cadence. */
  async run(ms: number, each?: () => void): Promise<void> {
    for (let moved = 0; moved < ms; moved += STEP_MS) {
      const grid = this.gridW();
      if (grid < 0) this.exportWh += (-grid * STEP_MS) / 3_600_000;
      else this.importWh += (grid * STEP_MS) / 3_600_000;
      await this.clock.advance(STEP_MS);
      if (this.clock.now() - this.lastMeterAt >= this.meterEveryMs) {
        this.lastMeterAt = this.clock.now();
        if (!this.meterSilent && !this.killed) this.feed(this.gridW());
      }
      await this.limiter?.idle();
      each?.();
    }
  }

  /** One meter reading of `gridW` now (as a DSMR meter sends it: import and export power in kW). */
  feed(gridW: number): void {
    this.ctx.store.ingest({
      receivedAt: this.clock.now(),
      protocol: 'DSMR',
      identity: {},
      values: valuesOf({
        '1.7.0': [Math.max(0, gridW) / 1000, 'kW'],
        '2.7.0': [Math.max(0, -gridW) / 1000, 'kW'],
      }),
      mbus: [],
    });
  }

  /** Writes the limiter made in [from, to). */
  writesBetween(from: number, to: number, kinds?: LimiterWrite['kind'][]): LimiterWrite[] {
    return this.writes.filter(
      (write) => write.at >= from && write.at < to && (!kinds || kinds.includes(write.kind)),
    );
  }

  /** The limiter dies without a word (as killed by a signal it cannot catch): its timers stop, no reading reaches it, nothing is restored. */
  kill(): void {
    this.killed = true;
    this.killable.alive = false;
  }

  /** A new limiter on the same state folder and settings after a kill (the daemon restarted). */
  async restart(): Promise<void> {
    const dead = this.ctx;
    this.ctx = makeContext(this.clock, this.env, this.stateDir, this.options);
    dead.store.close();
    this.killed = false;
    this.limiter = new ExportLimiter(this.ctx, silentLogger(), this.options.peak);
    this.limiter.on('write', (write) => this.writes.push(write));
    this.service = runOutput(this.ctx, this.limiter);
    await this.service.start();
    await this.limiter.idle();
  }

  async close(): Promise<void> {
    if (!this.killed) await this.service?.stop();
    else await this.limiter?.idle();
    await this.inverter.close();
    this.ctx.store.close();
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}

function makeContext(
  clock: Clock,
  env: Record<string, string>,
  stateDir: string,
  options: RigOptions,
): AppContext {
  return createAppContext({
    env,
    stateDir,
    clock,
    staleAfterMs: 3_600_000,
    logger: silentLogger(),
    prices: options.prices,
    system: { id: 'B827EB12A4F0', model: 'WW_Go_1.2', firmware: '2.1.7', bootId: 'boot' },
  });
}

export async function startRig(options: RigOptions = {}): Promise<LimiterRig> {
  const clock = new VirtualClock(options.start ?? Date.UTC(2026, 5, 15, 8, 0, 0));
  const killable = new KillableClock(clock);
  const inverter = await startSimulatedInverter({ clock, ...options.inverter });
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-limiter-'));
  const env: Record<string, string> = {
    METER_GATEWAY_SERVICES_EXPORT_LIMITER_ENABLED: options.noLimiter ? 'false' : 'true',
    METER_GATEWAY_SERVICES_EXPORT_LIMITER_INVERTERS: JSON.stringify([
      { id: 'pv1', source: inverter.source, profile: options.profile ?? 'sunspec' },
    ]),
    ...options.env,
  };
  const ctx = makeContext(killable, env, stateDir, options);
  let limiter: ExportLimiter | undefined;
  let service: Service | undefined;
  if (!options.noLimiter) {
    limiter = new ExportLimiter(ctx, silentLogger(), options.peak);
    service = runOutput(ctx, limiter);
    await service.start();
    await limiter.idle();
  }
  return new LimiterRig(
    clock,
    killable,
    ctx,
    inverter,
    limiter,
    service,
    stateDir,
    env,
    options,
    options.load ?? (() => 800),
    options.meterEveryMs ?? 1000,
  );
}
