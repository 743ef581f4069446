import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
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
import { dataOf, deviceInfo, errorBody, staleDataOf, systemOf } from '../../device/homewizard/api-v1.js';
import { checkDsmrCrc } from '../../meter/dsmr/crc16-arc.js';
import { DsmrFramer } from '../../meter/dsmr/framer.js';
import type { Reading } from '../../reading/reading.js';
import type { ReadingStore } from '../../reading/store.js';
import type { RouteDoc, Router } from '../router.js';
import { SmoothedFeed } from '../../device/smoothing.js';

/**
 * The last valid raw DSMR telegram of one store, framed from its raw events by the DSMR framer. HomeWizard
 * (api-documentation docs/v1/telegram.mdx): "the most recent, valid telegram"; "the checksum is
 * validated when present, telegrams with an invalid checksum are rejected"; served unprocessed.
 */
class TelegramKeeper {
  private readonly framer = new DsmrFramer();
  last: Buffer | undefined;
  /** A meter that sent a valid CRC is held to CRCs (DSMR 4/5), as the decoder holds it. */
  private crcSeen = false;
  private readonly onRaw = (chunk: Buffer) => {
    for (const event of this.framer.push(chunk)) {
      if (!('frame' in event)) continue;
      const crc = checkDsmrCrc(event.frame).kind;
      if (crc === 'match') this.crcSeen = true;
      if (crc === 'match' || (crc === 'absent' && !this.crcSeen)) this.last = event.frame;
    }
  };

  constructor(readonly store: ReadingStore) {
    store.on('raw', this.onRaw);
  }

  close(): void {
    this.store.off('raw', this.onRaw);
  }
}

function send(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  head: boolean,
): void {
  response.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  response.end(head ? undefined : body);
}

function sendJson(response: ServerResponse, status: number, value: unknown, head: boolean): void {
  send(response, status, JSON.stringify(value), 'application/json', head);
}

const HW_DOC = 'HomeWizard P1 personality (services.emulate.homewizard); off: 404 like an unknown path';

/** HomeWizard's own error body (`{"error": {"id", "description"}}`), as its 404 carries it. */
const HW_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['id', 'description'],
      properties: { id: { type: 'integer' }, description: { type: 'string' } },
    },
  },
};

/** The answers of a HomeWizard route: the personality's content, or 404 while it is off. */
function hwResponses(contentType: string): NonNullable<RouteDoc['responses']> {
  const content = { type: contentType === 'application/json' ? 'object' : 'string' };
  return {
    200: { description: 'the HomeWizard answer', contentType, schema: content },
    404: { description: 'personality off, or no such data (HomeWizard error body)', schema: HW_ERROR },
  };
}

/** The personality's answers, shared by the API's port and the personality's own port. */
export interface HomewizardAnswers {
  /** Whether the personality is on and its meter exists. */
  on(): boolean;
  api(): string | undefined;
  data(): string | undefined;
  telegram(): Buffer | undefined;
}

/**
 * The answers over the store the personality serves, which its output sets (`serve`): the store of
 * the configured meter while the personality is on and that meter runs, else none (404), never
 * another meter's (docs/architecture.md#output-contract).
 */
export interface ServedAnswers extends HomewizardAnswers {
  serve(store: ReadingStore | undefined): void;
}

export function homewizardAnswers(ctx: AppContext): ServedAnswers {
  const settings = () => ctx.config.config.services.emulate.homewizard;
  let served: ReadingStore | undefined;
  let keeper: TelegramKeeper | undefined;
  // The answer is serialised once per reading (and Wi-Fi name), not per request: a consumer polling
  // many times a second costs a string lookup (docs/architecture.md#homewizard-personality).
  let cached: { reading: Reading | undefined; ssid: string; text: string } | undefined;
  // Power smoothed once per reading when services.emulate.homewizard.smoothing asks for it.
  const feed = new SmoothedFeed(
    () => served,
    () => settings().smoothing,
  );
  const telegram = (): Buffer | undefined =>
    served && served.meter.protocol === 'DSMR' && served.latest ? keeper?.last : undefined;
  const dataText = (): string => {
    const reading = feed.latest();
    const sta = ctx.config.config.wifi.sta;
    const ssid = sta.enable ? sta.name : '';
    if (!cached || cached.reading !== reading || cached.ssid !== ssid) {
      const body = reading ? dataOf(reading, { ssid }, telegram()) : staleDataOf({ ssid });
      cached = { reading, ssid, text: JSON.stringify(body) };
    }
    return cached.text;
  };
  return {
    serve(store) {
      if (store === served) return;
      keeper?.close();
      keeper = store ? new TelegramKeeper(store) : undefined;
      served = store;
      cached = undefined;
      // The feed follows the new store from now on, so an average covers the readings from here.
      feed.latest();
    },
    on: () => served !== undefined,
    api: () => (served ? JSON.stringify(deviceInfo(ctx.system.id, ctx.system.firmware)) : undefined),
    data: () => (served ? dataText() : undefined),
    telegram,
  };
}

/**
 * The HomeWizard P1 personality on the device's HTTP server (docs/architecture.md#homewizard-personality):
 * `GET /api`, `/api/v1/data`, `/api/v1/telegram` and `PUT /api/v1/identify`. None of these paths is
 * a whatwatt Go path. Off: 404. The local API v1 has no authentication, so these routes stay open
 * while system.protection is on and the personality is enabled (consumers such as evcc or Home
 * Assistant send no credentials). `/api/v1/system` here is the whatwatt Go's (protected);
 * the P1's `/api/v1/system` is served on the personality's own port (`HomewizardServer`).
 */
export function registerHomewizardRoutes(router: Router, ctx: AppContext, answers: HomewizardAnswers): void {
  const open = (config: typeof ctx.config.config) => config.services.emulate.homewizard.enable;
  const notFound = (response: ServerResponse, head: boolean) =>
    sendJson(response, 404, errorBody(404, 'Not found'), head);

  /** A GET (and HEAD) route of the personality: 200 with what `body` gives, 404 when it gives nothing. */
  const serve = (
    path: string,
    summary: string,
    contentType: string,
    body: () => string | Buffer | undefined,
  ) =>
    router.add(
      'GET',
      path,
      (request, response) => {
        const head = request.method === 'HEAD';
        const text = body();
        if (text === undefined) return notFound(response, head);
        send(response, 200, text, contentType, head);
      },
      { open, doc: { summary, responses: hwResponses(contentType) } },
    );
  serve('/api', `Device information (${HW_DOC})`, 'application/json', answers.api);
  serve('/api/v1/data', `Recent measurement (${HW_DOC})`, 'application/json', answers.data);
  serve(
    '/api/v1/telegram',
    `Last raw DSMR telegram (${HW_DOC}); 404 when the meter is not DSMR`,
    'text/plain',
    answers.telegram,
  );
  router.add(
    'PUT',
    '/api/v1/identify',
    (_request, response) => {
      if (!answers.on()) return notFound(response, false);
      sendJson(response, 200, IDENTIFIED, false);
    },
    {
      open,
      doc: {
        summary: `Identify: a P1 meter blinks its LED; the gateway has none and answers ok (${HW_DOC})`,
        responses: hwResponses('application/json'),
      },
    },
  );
}

/** `PUT /api/v1/identify` (HomeWizard api-documentation docs/v1/identify.mdx). */
const IDENTIFIED = { identify: 'ok' };

/** A body of a PUT on the personality's own port is at most this long; it is read and ignored. */
const OWN_PORT_BODY_LIMIT = 4096;

/**
 * The paths of a P1 meter's local API v1 on the personality's own port, as Home Assistant's
 * HomeWizard integration (python-homewizard-energy `HomeWizardEnergyV1`) calls them: `GET /api`,
 * `/api/v1/data`, `/api/v1/telegram`, `/api/v1/system` (`{"cloud_enabled": false}`; a PUT answers
 * the same and changes nothing), `/api/v1/state` 404 (a P1 has none), `PUT /api/v1/identify`.
 * Everything else is HomeWizard's 404. No credentials: the P1's API v1 has none.
 */
export function answerOwnPort(
  answers: HomewizardAnswers,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const path = (request.url ?? '').split('?', 1)[0];
  const method = request.method ?? 'GET';
  const head = method === 'HEAD';
  const notFound = () => sendJson(response, 404, errorBody(404, 'Not found'), head);
  if (!answers.on()) return notFound();
  if (method === 'GET' || head) {
    const body =
      path === '/api'
        ? answers.api()
        : path === '/api/v1/data'
          ? answers.data()
          : path === '/api/v1/system'
            ? JSON.stringify(systemOf())
            : undefined;
    if (body !== undefined) return send(response, 200, body, 'application/json', head);
    const telegram = path === '/api/v1/telegram' ? answers.telegram() : undefined;
    if (telegram !== undefined) return send(response, 200, telegram, 'text/plain', head);
    return notFound();
  }
  if (method === 'PUT' && path === '/api/v1/identify') return sendJson(response, 200, IDENTIFIED, false);
  if (method === 'PUT' && path === '/api/v1/system') return sendJson(response, 200, systemOf(), false);
  if (method === 'PUT') return notFound();
  sendJson(response, 405, errorBody(405, 'Method not allowed'), false);
}

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
