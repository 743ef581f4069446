import type { PeakGuard } from '../peak/peak-guard.js';
import type { ExportLimiter } from '../export-limiter/limiter.js';
import { createServer, type Server } from 'node:net';
import type { AppContext } from '../context.js';
import type { AppConfig } from '../config/types.js';
import type { Output, OutputView } from '../output.js';
import { RegisterFeed, type FeedSettings } from './register-feed.js';
import { SlaveOutput, type SlaveStatusDetail } from './slave-output.js';
import { ModbusSlave } from './slave.js';
import { UnitFeeds } from './unit-feeds.js';

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
interface ModbusSettings {
  enable: boolean;
  port: number;
  profile: AppConfig['services']['modbus']['profile'];
  direction: AppConfig['services']['modbus']['direction'];
  layout: AppConfig['modbus']['layout'];
  convFactor: number;
  /** The frequency served while the meter sends none (modbus.nominal_frequency). */
  nominalFrequency: number;
  /** Unit id -> meter id (services.modbus.units). */
  units: Record<string, string>;
}

/**
 * The Modbus TCP service: serves services.modbus.profile (src/modbus-protocol/profiles; whatwatt:
 * the device's layout) from a register feed kept current per reading and meter status change, and
 * runs the slave on services.modbus.port while services.modbus.enable is on and the license is not
 * FREE; moves or stops it live when those settings change.
 */
export class ModbusService extends SlaveOutput<ModbusSettings> implements Output<ModbusSettings> {
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
    this.report('stopped');
  }

  private readonly units: UnitFeeds;

  /** The whatwatt layout image (input registers 0..9998). */
  get image(): RegisterFeed['image'] {
    return this.feed.image;
  }

  /** The port the slave listens on, undefined while it does not. */
  get listeningPort(): number | undefined {
    return this.port;
  }

  select(config: AppConfig): ModbusSettings {
    const { enable, port, profile, direction } = config.services.modbus;
    return {
      enable,
      port,
      profile,
      direction,
      layout: config.modbus.layout,
      convFactor: config.meter.conv_factor,
      nominalFrequency: config.modbus.nominal_frequency,
      units: config.services.modbus.units,
    };
  }

  /**
   * A new profile, direction or layout rebuilds the register space, a new conversion factor only
   * the image; enable, port or the license verdict start, stop or move the listener.
   */
  reconcile(view: OutputView<ModbusSettings>): Promise<void> {
    const before = this.view;
    const now = view.slice;
    this.view = view;
    const was = before?.slice;
    if (!was || was.profile !== now.profile || was.direction !== now.direction || !sameLayout(was, now))
      this.feed.configure(this.feedSettings());
    else if (was.convFactor !== now.convFactor || was.nominalFrequency !== now.nominalFrequency)
      this.feed.rebuild();
    const unitsChanged = JSON.stringify(was?.units) !== JSON.stringify(now.units);
    if (this.server && (unitsChanged || was?.profile !== now.profile || was.direction !== now.direction))
      this.units.configure(now.units, this.feedSettings());
    if (was && was.enable === now.enable && was.port === now.port && before.blocked === view.blocked)
      return this.settled();
    return this.apply();
  }

  private feedSettings(): FeedSettings {
    const { profile, direction } = this.view!.slice;
    return { profile, direction };
  }

  /** Starts, stops or moves the listener. */
  protected async applySettings(): Promise<void> {
    const { slice, blocked } = this.view ?? { slice: undefined };
    const wanted = this.started && slice?.enable && !blocked ? slice.port : undefined;
    if (this.server && this.port === wanted) return;
    await this.closeServer();
    if (wanted === undefined) {
      this.reportIdle(slice?.enable);
      return;
    }
    try {
      await this.listen(wanted);
      this.feed.start(this.feedSettings());
      this.units.configure(slice!.units, this.feedSettings());
      const where = `${this.listenHost() ?? 'every interface'} port ${wanted}`;
      this.ctx.logger.info(`Modbus TCP slave listening on ${where} (profile ${this.feed.profile})`);
      this.report('running');
    } catch (error) {
      const message = `cannot listen on port ${wanted}: ${(error as Error).message}`;
      this.report('error', { error: message });
      // The runner logs it, shows it under this output's name and retries (docs/architecture.md#output-contract).
      throw new Error(message, { cause: error });
    }
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

  private async closeServer(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.port = undefined;
    this.feed.stop();
    this.units.configure(this.view?.slice.units ?? {}, undefined);
    this.slave.disconnectAll();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Service line for /api/v1/system; the counters are read live (getters), never copied per request. */
  protected report(state: string, extra: SlaveStatusDetail = {}): void {
    const slave = this.slave;
    const feed = this.feed;
    this.ctx.services.set('modbus', {
      state,
      port: this.port ?? this.ctx.config.config.services.modbus.port,
      ...extra,
      get profile() {
        return feed.profile;
      },
      get connections() {
        return slave.connections;
      },
      get requests() {
        return slave.requests;
      },
      get exceptions() {
        return slave.exceptions;
      },
    });
  }
}

function sameLayout(a: ModbusSettings, b: ModbusSettings): boolean {
  return a.layout === b.layout || JSON.stringify(a.layout) === JSON.stringify(b.layout);
}

export function createModbusService(ctx: AppContext, options: ModbusServiceOptions = {}): ModbusService {
  return new ModbusService(ctx, options);
}
