import { createServer, type Server } from 'node:net';
import type { AppConfig } from '../config/types.js';
import type { AppContext } from '../context.js';
import type { Service } from '../service.js';
import { RegisterImage } from './encoder.js';
import { DEFAULT_LAYOUT, type CompactLayout } from './layout.js';
import { describeIssues, validateLayout } from './layout-validate.js';
import type { ValueSource } from './register-ids.js';
import { ModbusSlave } from './slave.js';

export interface ModbusServiceOptions {
  /** Address to listen on; all interfaces when absent (inverters poll over the LAN). */
  host?: string;
  maxConnections?: number;
  idleTimeoutMs?: number;
}

/** Config paths that start, stop or move the listener (DESIGN §4 License: stopped under FREE). */
const LISTENER_PATHS = ['services.modbus.enable', 'services.modbus.port', 'license.type'];
/** Config paths whose value is part of the register image. */
const IMAGE_PATHS = ['meter.conv_factor', 'modbus.layout'];

/** The layout the slave serves: the stored custom one, or the spec's default when none is set. */
export function effectiveLayout(config: AppConfig): { layout: CompactLayout; problem?: string } {
  if (config.modbus.layout === null) return { layout: DEFAULT_LAYOUT };
  const result = validateLayout(config.modbus.layout);
  if (result.ok) return { layout: result.layout };
  return { layout: DEFAULT_LAYOUT, problem: describeIssues(result.issues) };
}

/**
 * The Modbus TCP service: keeps the register image current (rebuilt per reading and per meter
 * status change, the system clock registers once a second) and runs the slave on
 * services.modbus.port while services.modbus.enable is on and the license is not FREE; moves or
 * stops it live when those settings change.
 */
export class ModbusService implements Service {
  readonly name = 'modbus';
  readonly required = false;
  readonly image = new RegisterImage();
  readonly slave: ModbusSlave;
  private server: Server | undefined;
  private port: number | undefined;
  private reconciling: Promise<void> = Promise.resolve();
  private clock: NodeJS.Timeout | undefined;
  private started = false;
  private readonly rebuild = (): void => this.image.rebuild(this.source());
  private readonly onConfigChange = (paths: readonly string[]): void => this.configChanged(paths);

  constructor(
    private readonly ctx: AppContext,
    private readonly options: ModbusServiceOptions = {},
  ) {
    this.slave = new ModbusSlave({
      registers: this.image.bytes,
      maxConnections: options.maxConnections,
      idleTimeoutMs: options.idleTimeoutMs,
    });
    this.report('stopped');
  }

  /** The port the slave listens on, undefined while it does not. */
  get listeningPort(): number | undefined {
    return this.port;
  }

  async start(): Promise<void> {
    this.started = true;
    this.installLayout();
    this.ctx.store.subscribe('modbus', 'reading', this.rebuild);
    this.ctx.store.subscribe('modbus', 'meter', this.rebuild);
    this.ctx.config.subscribe('modbus', 'change', this.onConfigChange);
    await this.reconcile();
  }

  async stop(): Promise<void> {
    this.started = false;
    this.ctx.store.off('reading', this.rebuild);
    this.ctx.store.off('meter', this.rebuild);
    this.ctx.config.off('change', this.onConfigChange);
    this.stopClock();
    await this.reconcile();
  }

  private configChanged(paths: readonly string[]): void {
    if (paths.includes('modbus.layout')) this.installLayout();
    else if (paths.some((path) => IMAGE_PATHS.includes(path))) this.rebuild();
    if (paths.some((path) => LISTENER_PATHS.includes(path))) void this.reconcile();
  }

  private installLayout(): void {
    const { layout, problem } = effectiveLayout(this.ctx.config.config);
    if (problem)
      this.ctx.logger.error(`stored Modbus layout is invalid (${problem}); serving the default layout`);
    this.image.setLayout(layout);
    this.rebuild();
    this.stopClock();
    if (this.image.hasClock) this.scheduleClock();
  }

  private source(): ValueSource {
    const { store, system, config } = this.ctx;
    return {
      reading: store.latest,
      identity: store.meter.identity,
      system,
      convFactor: config.config.meter.conv_factor,
      now: this.ctx.now(),
    };
  }

  /** sys.timestamp / sys.date_time: rewritten just after each full second. */
  private scheduleClock(): void {
    this.clock = setTimeout(
      () => {
        this.image.refreshClock(this.source());
        this.scheduleClock();
      },
      1005 - (this.ctx.now() % 1000),
    );
    this.clock.unref();
  }

  private stopClock(): void {
    if (this.clock) clearTimeout(this.clock);
    this.clock = undefined;
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
      this.ctx.logger.info(`Modbus TCP slave listening on port ${wanted}`);
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
    this.slave.disconnectAll();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Service line for /api/v1/system; the counters are read live (getters), never copied per request. */
  private report(state: string, extra: { error?: string; reason?: string } = {}): void {
    const slave = this.slave;
    this.ctx.services.set('modbus', {
      state,
      port: this.port ?? this.ctx.config.config.services.modbus.port,
      ...extra,
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
