import type { PeakGuard } from '../peak/peak-guard.js';
import type { ExportLimiter } from '../export-limiter/limiter.js';
import { createServer, type Server } from 'node:net';
import type { AppContext } from '../context.js';
import type { AppConfig } from '../config/types.js';
import {
  sameSlice,
  type DeclaredOutput,
  type MeterLookup,
  type OutputStatus,
  type OutputView,
} from '../output.js';
import type { ProfileName } from '../modbus-protocol/profiles/catalogue.js';
import { RegisterFeed, type FeedSettings } from './register-feed.js';
import { SlaveOutput } from './slave-output.js';
import { ModbusSlave } from './slave.js';
import { UnitFeeds, type UnitRefs } from './unit-feeds.js';

export interface ModbusServiceOptions {
  /** Address to listen on instead of modbus_tcp.host (tests bind to loopback). */
  host?: string;
  maxConnections?: number;
  idleTimeoutMs?: number;
  /** The running peak guard, for layouts with `peak.*` ids (docs/architecture.md#peak-guard-outputs). */
  peak?: PeakGuard;
  /** The export limiter, for layouts with `limiter.*` ids (docs/architecture.md#export-limiter). */
  limiter?: ExportLimiter;
}

/** The settings the TCP slave runs on: listener, register profile, and what the image is built from. */
export interface ModbusSlice {
  enable: boolean;
  port: number;
  profile: AppConfig['services']['modbus']['profile'];
  direction: AppConfig['services']['modbus']['direction'];
  layout: AppConfig['modbus']['layout'];
  convFactor: number;
  /** The frequency served while the meter sends none (modbus.nominal_frequency). */
  nominalFrequency: number;
  /** Unit id -> the meter services.modbus.units names, resolved by the runner. */
  units: UnitRefs;
}

/** The TCP slave's counters, read from the slave while it serves. */
export interface ModbusCounters {
  connections: number;
  requests: number;
  exceptions: number;
}

/** The facts of the `modbus` status line: the port it listens on (mDNS announces it) and its counters. */
export type ModbusFacts = ModbusCounters & {
  port: number;
  profile: ProfileName;
};

export type ModbusStatus = OutputStatus<ModbusFacts>;

/**
 * The Modbus TCP service: serves services.modbus.profile (src/modbus-protocol/profiles; whatwatt:
 * the device's layout) from a register feed kept current per reading and meter status change, and
 * runs the slave on services.modbus.port while services.modbus.enable is on and the license is not
 * FREE; moves or stops it live when those settings change.
 */
export class ModbusService
  extends SlaveOutput<ModbusCounters>
  implements DeclaredOutput<ModbusSlice, ModbusFacts>
{
  readonly name = 'modbus';
  readonly watches = [
    'services.modbus',
    'modbus.layout',
    'modbus.nominal_frequency',
    'meter.conv_factor',
  ] as const;
  readonly feed: RegisterFeed;
  readonly slave: ModbusSlave;
  private server: Server | undefined;
  private port: number | undefined;
  private readonly units: UnitFeeds;

  constructor(
    ctx: AppContext,
    private readonly options: ModbusServiceOptions = {},
  ) {
    super(ctx);
    this.feed = new RegisterFeed(ctx, 'modbus', (space) => (this.slave.space = space), {
      peak: options.peak,
      limiter: options.limiter,
    });
    this.slave = new ModbusSlave({
      space: this.feed.space,
      maxConnections: options.maxConnections,
      idleTimeoutMs: options.idleTimeoutMs,
      clock: ctx.clock,
    });
    this.units = new UnitFeeds(ctx, this.slave, () => this.feed.space, {
      peak: options.peak,
      limiter: options.limiter,
    });
  }

  /** The whatwatt layout image (input registers 0..9998). */
  get image(): RegisterFeed['image'] {
    return this.feed.image;
  }

  /** The port the slave listens on, undefined while it does not. */
  get listeningPort(): number | undefined {
    return this.port;
  }

  select(config: AppConfig, meters: MeterLookup): ModbusSlice {
    const { enable, port, profile, direction } = config.services.modbus;
    const units = Object.entries(config.services.modbus.units).map(([unit, id]) => [unit, meters.ref(id)]);
    return {
      enable,
      port,
      profile,
      direction,
      layout: config.modbus.layout,
      convFactor: config.meter.conv_factor,
      nominalFrequency: config.modbus.nominal_frequency,
      units: Object.fromEntries(units) as UnitRefs,
    };
  }

  enabled(slice: ModbusSlice): boolean {
    return slice.enable;
  }

  /**
   * A new profile, direction or layout rebuilds the register space, a new conversion factor only
   * the image; enable, port or the license verdict start, stop or move the listener; a new unit
   * map, or a restarted meter it names, rebuilds the unit feeds. Rejects when the slave should
   * listen and cannot (the runner shows and retries it: docs/architecture.md#output-contract).
   */
  async apply(
    next: OutputView<ModbusSlice>,
    previous: OutputView<ModbusSlice> | undefined,
  ): Promise<ModbusFacts> {
    const now = next.slice;
    const was = previous?.slice;
    const settings: FeedSettings = { profile: now.profile, direction: now.direction };
    const spaceChanged =
      !was || was.profile !== now.profile || was.direction !== now.direction || !sameLayout(was, now);
    if (spaceChanged) this.feed.configure(settings);
    else if (was.convFactor !== now.convFactor || was.nominalFrequency !== now.nominalFrequency)
      this.feed.rebuild();
    const wanted = now.enable && !next.blocked ? now.port : undefined;
    const moved = this.port !== wanted;
    if (this.server && moved) await this.close();
    if (wanted !== undefined && !this.server) {
      try {
        await this.listen(wanted);
      } catch (error) {
        throw new Error(`cannot listen on port ${wanted}: ${(error as Error).message}`, { cause: error });
      }
      this.feed.start(settings);
      const where = `${this.listenHost() ?? 'every interface'} port ${wanted}`;
      this.ctx.logger.info(`Modbus TCP slave listening on ${where} (profile ${this.feed.profile})`);
      this.startCounters();
    }
    if (this.server && (moved || spaceChanged || !sameSlice(was?.units, now.units)))
      this.units.configure(now.units, settings);
    return { port: this.port ?? now.port, profile: this.feed.profile, ...this.counterFacts() };
  }

  protected counterFacts(): ModbusCounters {
    const slave = this.slave;
    return { connections: slave.connections, requests: slave.requests, exceptions: slave.exceptions };
  }

  private async listen(port: number): Promise<void> {
    const server = createServer({ noDelay: true }, (socket) => this.slave.handle(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: this.listenHost() }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => this.ctx.logger.error(`Modbus TCP slave: ${error.message}`));
    this.server = server;
    this.port = port;
  }

  /** modbus_tcp.host; empty: every interface (inverters poll over the LAN), IPv6 and IPv4. */
  private listenHost(): string | undefined {
    const host = this.options.host ?? this.ctx.config.config.modbus_tcp.host;
    return host === '' ? undefined : host;
  }

  protected async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.port = undefined;
    this.feed.stop();
    this.units.configure({}, undefined);
    this.slave.disconnectAll();
    this.stopCounters();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function sameLayout(a: ModbusSlice, b: ModbusSlice): boolean {
  return a.layout === b.layout || JSON.stringify(a.layout) === JSON.stringify(b.layout);
}

export function createModbusService(ctx: AppContext, options: ModbusServiceOptions = {}): ModbusService {
  return new ModbusService(ctx, options);
}
