import { createServer, type Server, type Socket } from 'node:net';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type { AppConfig } from '../config/types.js';
import type { Output, OutputView } from '../output.js';

/** services.meter_proxy and meter_proxy.port (0 picks a free port). */
interface ProxySettings {
  enabled: boolean;
  port: number;
}

/** Connections beyond this are refused (closed at once). */
const MAX_CLIENTS = 8;
/** A client that lets this much pile up unread is dropped, never waited for. */
const MAX_BUFFERED_BYTES = 256 * 1024;

/**
 * Meter proxy (services.meter_proxy, docs/architecture.md#services): a TCP server on meter_proxy.port that
 * passes every byte from the meter, unmodified, to every connected client, so Home Assistant's DSMR
 * integration or dsmr-reader can read the meter over the network (DSMR telegrams keep their CRC). Runs only
 * while enabled and the license is not FREE; follows setting changes live.
 */
export class MeterProxy implements Output<ProxySettings> {
  readonly name = 'meter_proxy';
  readonly watches = ['services.meter_proxy', 'meter_proxy'] as const;
  readonly license = 'PLUS';
  private server: Server | undefined;
  private listeningPort: number | undefined;
  private readonly clients = new Set<Socket>();
  private dropped = 0;
  private reconciling: Promise<void> = Promise.resolve();
  private readonly onRaw = (chunk: Buffer) => this.broadcast(chunk);

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
  ) {}

  select(config: AppConfig): ProxySettings {
    return { enabled: config.services.meter_proxy, port: config.meter_proxy.port };
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {
    this.reconciling = this.reconciling.catch(noop).then(() => this.close());
    await this.reconciling;
  }

  /** The bound port while running (meter_proxy.port 0 picks a free one). */
  get port(): number | undefined {
    return this.listeningPort;
  }

  /**
   * Brings the server in line with the settings: start, stop or move to another port. A port it
   * cannot listen on rejects (the runner shows and retries it: docs/architecture.md#output-contract);
   * the next reconcile runs after a rejected one all the same.
   */
  reconcile({ slice, blocked }: OutputView<ProxySettings>): Promise<void> {
    const wanted = slice.enabled && !blocked ? { port: slice.port } : undefined;
    this.reconciling = this.reconciling.catch(noop).then(async () => {
      if (this.server && (!wanted || (wanted.port !== 0 && wanted.port !== this.listeningPort)))
        await this.close();
      if (wanted && !this.server) {
        try {
          await this.listen(wanted.port);
        } catch (error) {
          const message = `cannot listen on port ${wanted.port}: ${(error as Error).message}`;
          this.report(`error`, message);
          throw new Error(message, { cause: error });
        }
      }
      this.report(this.server ? 'running' : 'stopped');
    });
    return this.reconciling;
  }

  private listen(port: number): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    server.maxConnections = MAX_CLIENTS;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.context.config.config.http.host, () => {
        server.off('error', reject);
        server.on('error', (error) => this.logger.error(`server error: ${error.message}`));
        this.server = server;
        const address = server.address();
        this.listeningPort = typeof address === 'object' && address ? address.port : port;
        this.context.store.subscribe('meter-proxy', 'raw', this.onRaw);
        this.logger.info(`raw meter data on tcp port ${this.listeningPort}`);
        resolve();
      });
    });
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    this.clients.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.clients.delete(socket));
    // The proxy is one-way: anything a client sends is read and discarded.
    socket.resume();
    this.report('running');
  }

  private broadcast(chunk: Buffer): void {
    for (const socket of this.clients) {
      if (socket.writableLength > MAX_BUFFERED_BYTES) {
        this.dropped += 1;
        this.logger.warn(`dropping slow client ${socket.remoteAddress}:${socket.remotePort}`);
        socket.destroy();
        continue;
      }
      socket.write(chunk);
    }
  }

  private async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.context.store.off('raw', this.onRaw);
    this.server = undefined;
    this.listeningPort = undefined;
    for (const socket of this.clients) socket.destroy();
    this.clients.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private report(state: string, error?: string): void {
    this.context.services.set('meter_proxy', {
      state,
      ...(this.listeningPort !== undefined ? { port: this.listeningPort } : {}),
      clients: this.clients.size,
      dropped: this.dropped,
      ...(error ? { error } : {}),
    });
  }
}

function noop(): void {}
