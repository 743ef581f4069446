/**
 * The HomeWizard personality's output (docs/architecture.md#homewizard-personality): which meter's
 * store its answers serve, and its own HTTP port (`services.emulate.homewizard.port`) with its
 * status facts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type {
  DeclaredOutput,
  MeterLookup,
  MeterRef,
  OutputStatus,
  OutputView,
  StatusPort,
} from '../../output.js';
import { errorBody } from '../../device/homewizard/api-v1.js';
import type { ServedAnswers } from './homewizard-answers.js';
import { answerOwnPort, sendJson } from './homewizard.js';

/** A body of a PUT on the personality's own port is at most this long; it is read and ignored. */
const OWN_PORT_BODY_LIMIT = 4096;

interface HomewizardSlice {
  enable: boolean;
  /** services.emulate.homewizard.port; 0: no port of its own (the API's port serves it). */
  port: number;
  host: string;
  /** services.emulate.homewizard.meter. */
  meter: MeterRef;
}

/** The facts of the `homewizard` status line (docs/architecture.md#output-contract). */
export type HomewizardFacts = {
  /** The personality's own port and host while it has one (mDNS announces `_hwenergy._tcp` there). */
  host?: string;
  port?: number;
  meter: string;
  /** Whether the configured meter runs; while it does not, every answer is HomeWizard's 404. */
  meter_running: boolean;
};

export type HomewizardStatus = OutputStatus<HomewizardFacts>;

/**
 * The HomeWizard personality (docs/architecture.md#homewizard-personality): the answers of its
 * routes on the API's port, served from the store of its configured meter, and its own HTTP port,
 * `services.emulate.homewizard.port`, where `/api/v1/system` is the P1's, open, while the API's
 * port keeps the whatwatt Go's, protected. Bounded: headers within 10 s, a body of at most 4 kB
 * (413 beyond), idle connections closed after 5 s; a handler error answers 500.
 */
export class HomewizardServer implements DeclaredOutput<HomewizardSlice, HomewizardFacts> {
  readonly name = 'homewizard';
  readonly watches = ['services.emulate.homewizard', 'http.host'] as const;
  private server: Server | undefined;
  private bound: string | undefined;

  constructor(
    private readonly answers: ServedAnswers,
    private readonly logger: Logger,
  ) {}

  select(config: AppConfig, meters: MeterLookup): HomewizardSlice {
    const homewizard = config.services.emulate.homewizard;
    return {
      enable: homewizard.enable,
      port: homewizard.port,
      host: config.http.host,
      meter: meters.ref(homewizard.meter),
    };
  }

  enabled(slice: HomewizardSlice): boolean {
    return slice.enable;
  }

  async start(_status: StatusPort<HomewizardFacts>): Promise<void> {}

  async stop(): Promise<void> {
    this.answers.serve(undefined);
    await this.close();
  }

  /** The bound port, while listening. */
  address(): number | undefined {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }

  /**
   * Serves the configured meter's store (none while it is missing or the personality is off) and
   * listens on the own port `next` names; rejects with the listen error (EADDRINUSE), and then
   * has no own port open.
   */
  async apply({ slice }: OutputView<HomewizardSlice>): Promise<HomewizardFacts | undefined> {
    this.answers.serve(slice.enable ? slice.meter.handle?.store : undefined);
    const key = slice.enable && slice.port > 0 ? `${slice.host}:${slice.port}` : undefined;
    if (key !== this.bound) {
      await this.close();
      if (key !== undefined) await this.listen(slice.host, slice.port, key);
    }
    if (!slice.enable) return undefined;
    const meter = { meter: slice.meter.id, meter_running: slice.meter.handle !== undefined };
    const port = this.address();
    return port === undefined ? meter : { host: slice.host, port, ...meter };
  }

  private async listen(host: string, port: number, key: string): Promise<void> {
    const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (request, response) =>
      this.handle(request, response),
    );
    server.keepAliveTimeout = 5000;
    server.on('clientError', (_error, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (error) => this.logger.warn(`homewizard: port: ${error.message}`));
    this.server = server;
    this.bound = key;
    this.logger.info(`homewizard: listening on ${host}:${this.address()}`);
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > OWN_PORT_BODY_LIMIT && !refused) {
        refused = true;
        sendJson(response, 413, errorBody(413, 'Request entity too large'), false);
        request.destroy();
      }
    });
    request.on('error', () => request.destroy());
    request.on('end', () => {
      if (refused) return;
      try {
        answerOwnPort(this.answers, request, response);
      } catch (error) {
        this.logger.warn(`homewizard: port: ${(error as Error).message}`);
        if (!response.headersSent) sendJson(response, 500, errorBody(500, 'Internal error'), false);
      }
    });
  }

  private async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.bound = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
