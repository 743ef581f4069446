// The export limiter's test rig (docs/architecture.md#export-limiter): a simulated inverter on a
// loopback Modbus TCP port, a simulated house (load and PV profiles) whose grid power reaches the
// limiter as meter readings at the meter's cadence, all on one virtual clock: each 100 ms step moves
// the clock, lets the inverter's output follow its limit, and waits for the limiter's Modbus
// transactions before time moves on.
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock, Timer } from '../../src/clock.js';
import { createAppContext, type AppContext } from '../../src/context.js';
import { registerConfigFormats } from '../../src/config-formats.js';
import { ExportLimiter, type LimiterWrite, type PeakForecast } from '../../src/export-limiter/limiter.js';
import { runOutput } from '../../src/output-runner.js';
import { createMeterInput } from '../../src/meter/meter-input.js';
import { buildTelegram } from '../../src/meter/simulator/telegram.js';
import type { PriceSignal } from '../../src/price-signal.js';
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
  /**
   * The grid power reaches the gateway as DSMR 5 telegrams (CRC-16) from a loopback TCP server,
   * read by the gateway's meter input from a `tcp://` source, instead of straight into its store.
   */
  dsmrOverTcp?: boolean;
  /** The rig's time step (ms, default STEP_MS): longer runs take coarser steps. */
  stepMs?: number;
  /** Further keys of the inverter's entry in services.export_limiter.inverters (pv_meter, wmax_w). */
  inverterSetting?: Record<string, unknown>;
  /** Runs before the limiter starts (further meters registered, the inverter's RTU end opened). */
  setup?: (ctx: AppContext, inverter: SimulatedInverter) => void | Promise<void>;
}

/** A loopback TCP server the meter input connects to: a P1 dongle sending telegrams. */
export class TelegramServer {
  private socket: Socket | undefined;
  private constructor(private readonly server: Server) {
    server.on('connection', (socket) => {
      this.socket?.destroy();
      this.socket = socket;
      socket.on('error', () => undefined);
    });
  }

  static async start(): Promise<TelegramServer> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new TelegramServer(server);
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  get connected(): boolean {
    return this.socket !== undefined && !this.socket.destroyed;
  }

  send(telegram: Buffer): void {
    this.socket?.write(telegram);
  }

  async close(): Promise<void> {
    this.socket?.destroy();
    this.server.close();
    await once(this.server, 'close');
  }
}

/** A DSMR 5 telegram for `gridW` at `now` (the whole power on L1). */
export function telegramFor(gridW: number, now: number, importKwh: number, exportKwh: number): Buffer {
  return buildTelegram(
    {
      phases: [
        { netKw: gridW / 1000, volts: 230, amps: Math.abs(gridW) / 230 },
        { netKw: 0, volts: 230, amps: 0 },
        { netKw: 0, volts: 230, amps: 0 },
      ],
      tariff: 2,
      importKwh: [0, importKwh],
      exportKwh: [0, exportKwh],
      gasM3: 0,
      gasCaptured: { m3: 0, at: now },
      powerFailures: { short: 0, long: 0 },
    },
    now,
  );
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
  /** Set when the readings come as DSMR telegrams over loopback TCP. */
  telegrams: TelegramServer | undefined;
  meterInput: Service | undefined;
  private importKwh = 0;
  private exportKwh = 0;
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
    const stepMs = this.options.stepMs ?? STEP_MS;
    for (let moved = 0; moved < ms; moved += stepMs) {
      const grid = this.gridW();
      if (grid < 0) this.exportWh += (-grid * stepMs) / 3_600_000;
      else this.importWh += (grid * stepMs) / 3_600_000;
      await this.clock.advance(stepMs);
      if (this.clock.now() - this.lastMeterAt >= this.meterEveryMs) {
        this.lastMeterAt = this.clock.now();
        if (!this.meterSilent && !this.killed) {
          if (this.telegrams) await this.sendTelegram(this.gridW());
          else this.feed(this.gridW());
        }
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

  /** Sends one telegram and waits (real time, at most 2 s) until the meter input has stored its reading. */
  private async sendTelegram(gridW: number): Promise<void> {
    const now = this.clock.now();
    this.importKwh += Math.max(0, gridW) / 3_600_000;
    this.exportKwh += Math.max(0, -gridW) / 3_600_000;
    this.telegrams!.send(telegramFor(gridW, now, this.importKwh, this.exportKwh));
    const deadline = Date.now() + 2000;
    while ((this.ctx.store.lastReading?.receivedAt ?? 0) < now) {
      if (Date.now() > deadline) throw new Error('the meter input did not store the telegram within 2 s');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
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
    await this.meterInput?.stop();
    await this.telegrams?.close();
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
      {
        id: 'pv1',
        source: inverter.source,
        profile: options.profile ?? 'sunspec',
        ...options.inverterSetting,
      },
    ]),
    ...options.env,
  };
  const telegrams = options.dsmrOverTcp ? await TelegramServer.start() : undefined;
  if (telegrams) env.METER_GATEWAY_METER_SOURCE = `tcp://127.0.0.1:${telegrams.port}`;
  const ctx = makeContext(killable, env, stateDir, options);
  await options.setup?.(ctx, inverter);
  let meterInput: Service | undefined;
  if (telegrams) {
    meterInput = runOutput(ctx, createMeterInput(ctx, silentLogger()));
    await meterInput.start();
    const deadline = Date.now() + 5000;
    while (!telegrams.connected) {
      if (Date.now() > deadline) throw new Error('the meter input did not connect to the telegram server');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  let limiter: ExportLimiter | undefined;
  let service: Service | undefined;
  if (!options.noLimiter) {
    limiter = new ExportLimiter(ctx, silentLogger(), options.peak);
    service = runOutput(ctx, limiter);
    await service.start();
    await limiter.idle();
  }
  const rig = new LimiterRig(
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
  rig.telegrams = telegrams;
  rig.meterInput = meterInput;
  return rig;
}

/**
 * A price signal whose every quarter imports at 0.25 and exports at a price the test switches
 * (negative: the limiter holds export at zero in price mode; positive: it hands the inverter back).
 * It lists no quarters ahead.
 */
export function switchableExportPrice(exportPrice: number): PriceSignal & { setExport(price: number): void } {
  let current = exportPrice;
  return {
    quarterAt: (time: number) => {
      const start = Math.floor(time / 900_000) * 900_000;
      return { start, end: start + 900_000, import: 0.25, export: current, estimated: false };
    },
    quarters: () => [],
    onChange: () => () => undefined,
    setExport(price) {
      current = price;
    },
  };
}
