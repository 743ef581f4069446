import { type Timer } from '../../clock.js';
import type { ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/types.js';
import type { AppContext } from '../../context.js';
import type { DeclaredOutput, MeterLookup, OutputStatus, OutputView, StatusPort } from '../../output.js';
import type { MeterHandle } from '../../reading/meter-registry.js';
import { buildLivePayload } from '../../reading/live.js';
import type { Reading } from '../../reading/reading.js';
import type { ReadingStore } from '../../reading/store.js';
import { ERROR_REF } from '../api-schemas.js';
import { KEEP_ALIVE_COMMENT } from '../event-stream.js';
import { HttpError } from '../errors.js';
import { SSE_HEADERS } from '../respond.js';
import type { ApiRequest, Router } from '../router.js';
import { DEFAULT_STREAM_BUFFER, responseSink, SlowConsumerGuard } from '../../slow-consumer.js';

export interface LiveHubOptions {
  /**
   * SSE comment interval (docs/architecture.md#live-payload: every 15 s) so proxies and clients see a live
   * connection.
   */
  keepAliveMs?: number;
  /** A client with more than this many bytes not yet taken by its socket is dropped, never waited for. */
  maxBufferedBytes?: number;
  /** The store the hub streams; the primary's (context store) when absent (docs/architecture.md#several-meters). */
  store?: ReadingStore;
}

interface LiveClient {
  response: ServerResponse;
  /** Opened while protection was off: ended when protection is switched on. */
  withoutCredentials: boolean;
  onShutdown: () => void;
  shutdown: AbortSignal | undefined;
}

/** What the live streams follow: protection, and the meters whose streams are open. */
export interface LiveSlice {
  protection: boolean;
  /** Every registered meter: a further meter's streams end when it is removed or restarted. */
  meters: readonly MeterHandle[];
}

/** The status facts of the live streams (docs/architecture.md#output-contract). */
export type LiveFacts = {
  /** Open streams, of every meter. */
  clients?: number;
};
export type LiveStatus = OutputStatus<LiveFacts>;

/**
 * The live stream hub of GET /api/v1/live (docs/architecture.md#live-payload): one `event: live` with
 * the flat payload per reading, serialised once and written to every client; the latest reading
 * at once on connect; a comment every keepAliveMs. Up to http.live_max_clients clients, then 503.
 * The hub listens to the store and runs its timer only while it has clients, and a client that
 * closes is removed with all its listeners. Switching protection on ends the streams that were
 * opened without credentials: the primary's hub is an output watching `system.protection` and the
 * meter registry, run by the daemon with `runOutput` (docs/architecture.md#output-contract). It
 * also holds the hubs of the further meters (`/api/v1/meters/{id}/live`), made on first use and
 * ended when their meter is removed or restarted.
 */
export class LiveHub implements DeclaredOutput<LiveSlice, LiveFacts> {
  readonly name = 'live';
  readonly watches = ['system.protection'] as const;
  private readonly clients = new Set<LiveClient>();
  /** The further meters' hubs by meter id, each with the store it streams. */
  private readonly further = new Map<string, LiveHub>();
  private status: StatusPort<LiveFacts> | undefined;
  /** The primary's hub, which reports the clients of all (a further meter's hub has one). */
  private readonly owner: LiveHub | undefined;
  private keepAliveTimer: Timer | undefined;
  private lastReading: Reading | undefined;
  private lastEvent: Buffer | undefined;
  /** The keep-alive comment's period (the page stream's too). */
  readonly keepAliveMs: number;
  private readonly slow: SlowConsumerGuard;
  private readonly onReading = (reading: Reading): void => this.broadcast(this.eventOf(reading));

  constructor(
    private readonly ctx: AppContext,
    options: LiveHubOptions & { owner?: LiveHub } = {},
  ) {
    this.keepAliveMs = options.keepAliveMs ?? 15_000;
    this.slow = new SlowConsumerGuard(
      'live',
      options.maxBufferedBytes ?? DEFAULT_STREAM_BUFFER,
      ctx.refusals,
    );
    this.store = options.store ?? ctx.store;
    this.owner = options.owner;
    this.options = options;
  }

  private readonly store: ReadingStore;
  private readonly options: LiveHubOptions & { owner?: LiveHub };

  async start(status: StatusPort<LiveFacts>): Promise<void> {
    this.status = status;
  }

  /** The streams end with their requests (the server's shutdown signal), not here. */
  async stop(): Promise<void> {
    this.status = undefined;
  }

  select(config: AppConfig, meters: MeterLookup): LiveSlice {
    return { protection: config.system.protection, meters: meters.all() };
  }

  /**
   * Protection switched on: a stream opened without credentials must not go on delivering. A
   * further meter removed or restarted (a new store): its streams end, a new hub serves the next.
   */
  apply({ slice }: OutputView<LiveSlice>): LiveFacts {
    for (const [id, hub] of this.further) {
      if (slice.meters.some((meter) => meter.id === id && meter.store === hub.store)) continue;
      this.further.delete(id);
      hub.closeAll();
    }
    if (slice.protection) for (const hub of [this, ...this.further.values()]) hub.endWithoutCredentials();
    return { clients: this.allClients() };
  }

  /** The hub of `meter`'s stream: this one for the primary, else the further meter's own. */
  hubOf(meter: MeterHandle): LiveHub {
    if (meter.kind === 'primary') return this;
    const known = this.further.get(meter.id);
    if (known?.store === meter.store) return known;
    known?.closeAll();
    const hub = new LiveHub(this.ctx, { ...this.options, store: meter.store, owner: this });
    this.further.set(meter.id, hub);
    return hub;
  }

  private endWithoutCredentials(): void {
    for (const client of [...this.clients]) if (client.withoutCredentials) client.response.end();
  }

  private allClients(): number {
    let count = this.clients.size;
    for (const hub of this.further.values()) count += hub.size;
    return count;
  }

  /** A stream opened or ended: the clients fact of the primary's hub. */
  private clientsChanged(): void {
    const root = this.owner ?? this;
    root.status?.facts({ clients: root.allClients() });
  }

  /** Clients dropped because they did not keep up. */
  get dropped(): number {
    return this.slow.dropped;
  }

  get size(): number {
    return this.clients.size;
  }

  /** SSE wire form of a reading: `event: live` and one line of JSON (WHATWG HTML §9.2.6). */
  eventOf(reading: Reading): Buffer {
    if (reading !== this.lastReading || !this.lastEvent) {
      const payload = JSON.stringify(buildLivePayload(reading, this.ctx.system.bootTime));
      this.lastEvent = Buffer.from(`event: live\ndata: ${payload}\n\n`);
      this.lastReading = reading;
    }
    return this.lastEvent;
  }

  connect(request: ApiRequest, response: ServerResponse): void {
    if (request.method === 'HEAD') {
      response.writeHead(200, [...SSE_HEADERS]);
      response.end();
      return;
    }
    const max = this.ctx.config.config.http.live_max_clients;
    if (this.clients.size >= max) {
      throw new HttpError(503, 'service_unavailable', `live stream has its maximum of ${max} clients`, {
        max_clients: max,
      });
    }
    // The client may have gone while the request waited (auth delay): nothing to register.
    if (response.destroyed || request.raw.socket.destroyed) return;
    request.raw.socket.setNoDelay(true);
    request.raw.socket.setKeepAlive(true, 30_000);
    response.writeHead(200, [...SSE_HEADERS]);
    const client: LiveClient = {
      response,
      withoutCredentials: !this.ctx.config.config.system.protection,
      shutdown: request.shutdown,
      onShutdown: () => response.end(),
    };
    this.add(client);
    const latest = this.store.latest;
    if (latest) this.write(client, this.eventOf(latest));
    else response.flushHeaders();
  }

  /** Ends every stream (server stop). */
  closeAll(): void {
    for (const client of [...this.clients]) client.response.end();
  }

  private add(client: LiveClient): void {
    if (this.clients.size === 0) {
      this.store.subscribe('live', 'reading', this.onReading);
      this.keepAliveTimer = this.ctx.clock.setInterval(
        () => this.broadcast(KEEP_ALIVE_COMMENT),
        this.keepAliveMs,
      );
      this.keepAliveTimer.unref();
    }
    this.clients.add(client);
    client.shutdown?.addEventListener('abort', client.onShutdown, { once: true });
    client.response.once('close', () => this.remove(client));
    this.clientsChanged();
  }

  private remove(client: LiveClient): void {
    if (!this.clients.delete(client)) return;
    client.shutdown?.removeEventListener('abort', client.onShutdown);
    if (this.clients.size === 0) {
      this.store.off('reading', this.onReading);
      this.ctx.clock.clearInterval(this.keepAliveTimer);
      this.keepAliveTimer = undefined;
    }
    this.clientsChanged();
  }

  private broadcast(bytes: Buffer): void {
    for (const client of this.clients) this.write(client, bytes);
  }

  private write(client: LiveClient, bytes: Buffer): void {
    if (!this.slow.write(responseSink(client.response), bytes)) this.remove(client);
  }
}

/** GET /api/v1/live. */
export function registerLiveRoutes(router: Router, ctx: AppContext, options: LiveHubOptions = {}): LiveHub {
  const hub = new LiveHub(ctx, options);
  router.add('GET', '/api/v1/live', (request, response) => hub.connect(request, response), {
    doc: {
      summary: 'Live measurements (Server-Sent Events, `event: live`)',
      responses: {
        200: { description: 'event stream', contentType: 'text/event-stream', schema: { type: 'string' } },
        503: { description: 'too many live clients (service_unavailable)', schema: ERROR_REF },
      },
    },
  });
  return hub;
}
