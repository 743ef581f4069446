import { createServer, type Server, type Socket } from 'node:net';
import type { AppContext } from '../context.js';
import type { Logger } from '../log.js';
import type { AppConfig } from '../config/types.js';
import type { DeclaredOutput, OutputStatus, OutputView, StatusPort } from '../output.js';

/** services.meter_proxy and meter_proxy.port (0 picks a free port). */
export interface ProxySlice {
  enabled: boolean;
  port: number;
}

/** The facts of the `meter_proxy` status line: the bound port while it listens, its clients. */
export interface MeterProxyFacts {
  port: number;
  clients: number;
  /** Clients dropped for not reading (their unread data passed MAX_BUFFERED_BYTES). */
  dropped: number;
}

export type MeterProxyStatus = OutputStatus<MeterProxyFacts>;

/** Connections beyond this are refused (closed at once). */
const MAX_CLIENTS = 8;
/** A client that lets this much pile up unread is dropped, never waited for. */
const MAX_BUFFERED_BYTES = 256 * 1024;

/**
 * Meter proxy (services.meter_proxy, docs/architecture.md#services): a TCP server on meter_proxy.port that
 * passes every byte from the meter, unmodified, to every connected client, so Home Assistant's DSMR
 * integration or dsmr-reader can read the meter over the network (DSMR telegrams keep their CRC). Runs only
 * while enabled and the license is not FREE; follows setting changes live. It has no meter setting: it
 * passes on the primary meter's bytes (docs/architecture.md#several-meters).
 */
export class MeterProxy implements DeclaredOutput<ProxySlice, MeterProxyFacts> {
  readonly name = 'meter_proxy';
  readonly watches = ['services.meter_proxy', 'meter_proxy'] as const;
  readonly license = 'PLUS';
  private server: Server | undefined;
  private listeningPort: number | undefined;
  private readonly clients = new Set<Socket>();
  private dropped = 0;
  private status: StatusPort<MeterProxyFacts> | undefined;
  private readonly onRaw = (chunk: Buffer) => this.broadcast(chunk);

  constructor(
    private readonly context: AppContext,
    private readonly logger: Logger,
  ) {}

  select(config: AppConfig): ProxySlice {
    return { enabled: config.services.meter_proxy, port: config.meter_proxy.port };
  }

  enabled(slice: ProxySlice): boolean {
    return slice.enabled;
  }

  async start(status: StatusPort<MeterProxyFacts>): Promise<void> {
    this.status = status;
  }

  async stop(): Promise<void> {
    await this.close();
  }

  /** The bound port while running (meter_proxy.port 0 picks a free one). */
  get port(): number | undefined {
    return this.listeningPort;
  }

  /**
   * Brings the server in line with the settings: start, stop or move to another port. A port it
   * cannot listen on rejects (the runner shows and retries it: docs/architecture.md#output-contract).
   */
  async apply({ slice, blocked }: OutputView<ProxySlice>): Promise<MeterProxyFacts | void> {
    const wanted = slice.enabled && !blocked ? { port: slice.port } : undefined;
    if (this.server && (!wanted || (wanted.port !== 0 && wanted.port !== this.listeningPort)))
      await this.close();
    if (wanted && !this.server) {
      try {
        await this.listen(wanted.port);
      } catch (error) {
        throw new Error(`cannot listen on port ${wanted.port}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
    this.status?.facts({ clients: this.clients.size, dropped: this.dropped });
    // Off: no port fact (nothing listens); the counters stay as live facts.
    return this.listeningPort === undefined
      ? undefined
      : { port: this.listeningPort, clients: this.clients.size, dropped: this.dropped };
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
    socket.on('close', () => {
      this.clients.delete(socket);
      this.status?.facts({ clients: this.clients.size });
    });
    // The proxy is one-way: anything a client sends is read and discarded.
    socket.resume();
    this.status?.facts({ clients: this.clients.size });
  }

  private broadcast(chunk: Buffer): void {
    for (const socket of this.clients) {
      if (socket.writableLength > MAX_BUFFERED_BYTES) {
        this.dropped += 1;
        this.status?.facts({ dropped: this.dropped });
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
}
