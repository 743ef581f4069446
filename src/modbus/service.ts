import { createServer, type Server } from 'node:net';
import type { AppContext } from '../context.js';
import type { Service } from '../service.js';
import { RegisterFeed, type FeedSettings } from './register-feed.js';
import { ModbusSlave } from './slave.js';

export interface ModbusServiceOptions {
  /** Address to listen on; all interfaces when absent (inverters poll over the LAN). */
  host?: string;
  maxConnections?: number;
  idleTimeoutMs?: number;
}

/** Config paths that start, stop or move the listener (DESIGN §4 License: stopped under FREE). */
const LISTENER_PATHS = ['services.modbus.enable', 'services.modbus.port', 'license.type'];
/** Config paths that change what the registers hold. */
const PROFILE_PATHS = ['services.modbus.profile', 'services.modbus.direction', 'modbus.layout'];
const IMAGE_PATHS = ['meter.conv_factor', 'modbus.nominal_frequency'];

/**
 * The Modbus TCP service: serves services.modbus.profile (./profiles; whatwatt: the spec's layout)
 * from a register feed kept current per reading and meter status change, and runs the slave on
 * services.modbus.port while services.modbus.enable is on and the license is not FREE; moves or
 * stops it live when those settings change.
 */
export class ModbusService implements Service {
  readonly name = 'modbus';
  readonly required = false;
  readonly feed: RegisterFeed;
  readonly slave: ModbusSlave;
  private server: Server | undefined;
  private port: number | undefined;
  private reconciling: Promise<void> = Promise.resolve();
  private started = false;
  private readonly onConfigChange = (paths: readonly string[]): void => this.configChanged(paths);

  constructor(
    private readonly ctx: AppContext,
    private readonly options: ModbusServiceOptions = {},
  ) {
    this.feed = new RegisterFeed(ctx, 'modbus', (space) => (this.slave.space = space));
    this.slave = new ModbusSlave({
      space: this.feed.space,
      maxConnections: options.maxConnections,
      idleTimeoutMs: options.idleTimeoutMs,
    });
    this.report('stopped');
  }

  /** The whatwatt layout image (input registers 0..9998). */
  get image(): RegisterFeed['image'] {
    return this.feed.image;
  }

  /** The port the slave listens on, undefined while it does not. */
  get listeningPort(): number | undefined {
    return this.port;
  }

  async start(): Promise<void> {
    this.started = true;
    this.feed.configure(this.feedSettings());
    this.ctx.config.subscribe('modbus', 'change', this.onConfigChange);
    await this.reconcile();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.ctx.config.off('change', this.onConfigChange);
    await this.reconcile();
  }

  private feedSettings(): FeedSettings {
    const { profile, direction } = this.ctx.config.config.services.modbus;
    return { profile, direction };
  }

  private configChanged(paths: readonly string[]): void {
    if (paths.some((path) => PROFILE_PATHS.includes(path))) this.feed.configure(this.feedSettings());
    else if (paths.some((path) => IMAGE_PATHS.includes(path))) this.feed.rebuild();
    if (paths.some((path) => LISTENER_PATHS.includes(path))) void this.reconcile();
  }

  /** Brings the listener in line with the settings; calls run one after another. */
  private reconcile(): Promise<void> {
    this.reconciling = this.reconciling.then(() => this.applyListenerSettings());
    return this.reconciling;
  }

  private async applyListenerSettings(): Promise<void> {
    const { services, license } = this.ctx.config.config;
    const licensed = license.type !== 'FREE';
    const wanted = this.started && services.modbus.enable && licensed ? services.modbus.port : undefined;
    if (this.server && this.port === wanted) return;
    await this.closeServer();
    if (wanted === undefined) {
      if (!this.started) this.report('stopped');
      else if (!services.modbus.enable) this.report('disabled');
      else this.report('stopped', { reason: 'license FREE' });
      return;
    }
    try {
      await this.listen(wanted);
      this.feed.start(this.feedSettings());
      this.ctx.logger.info(`Modbus TCP slave listening on port ${wanted} (profile ${this.feed.profile})`);
      this.report('running');
    } catch (error) {
      const message = (error as Error).message;
      this.ctx.logger.error(`Modbus TCP slave cannot listen on port ${wanted}: ${message}`);
      this.report('error', { error: message });
    }
  }

  private async listen(port: number): Promise<void> {
    const server = createServer({ noDelay: true }, (socket) => this.slave.handle(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: this.options.host }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => this.ctx.logger.error(`Modbus TCP slave: ${error.message}`));
    this.server = server;
    this.port = port;
  }

  private async closeServer(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.port = undefined;
    this.feed.stop();
    this.slave.disconnectAll();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Service line for /api/v1/system; the counters are read live (getters), never copied per request. */
  private report(state: string, extra: { error?: string; reason?: string } = {}): void {
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

export function createModbusService(ctx: AppContext, options: ModbusServiceOptions = {}): ModbusService {
  return new ModbusService(ctx, options);
}
