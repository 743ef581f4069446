import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Clock, Timer } from '../../clock.js';
import type { Logger } from '../../log.js';
import { worthLogging, type Refusals } from '../../refusals.js';
import { SlowConsumerGuard, webSocketSink } from '../../slow-consumer.js';
import type { ShellyRpc } from './rpc.js';

/**
 * JSON-RPC over a WebSocket at `/rpc`, the transport of shellies-ng, aioshelly (Home Assistant) and
 * the Shelly app (docs/architecture.md#shelly-pro-3em): each text frame is one request frame, each
 * answer one response frame. `ws` (loaded on the first upgrade, the feature is optional) takes the
 * HTTP server's upgrade event; the server itself keeps no such sockets.
 *
 * Bounds: a frame over `maxPayload` closes the connection (close code 1009, RFC 6455 §7.4.1); a
 * client whose unread answers pile up beyond `maxBufferedBytes` is dropped, never waited for; at
 * most `maxClients` connections and `maxPerAddress` from one address, further upgrades get 503; a
 * connection that sends neither a frame nor a ping for `idleMs` is closed (1001 going away,
 * RFC 6455 §7.4.1), so idle connections cannot hold every slot. Home Assistant's aioshelly sends
 * a WebSocket ping well within that time. The upgrade passes the API's origin rule
 * (docs/architecture.md#cross-site-requests): a browser does not apply CORS to WebSockets, so
 * without it any web page could read the meter through a visitor's browser.
 */

export interface ShellyWsOptions {
  maxPayload: number;
  maxBufferedBytes: number;
  maxClients: number;
  maxPerAddress: number;
  idleMs: number;
}

export const SHELLY_WS_DEFAULTS: ShellyWsOptions = {
  maxPayload: 4096,
  maxBufferedBytes: 64 * 1024,
  maxClients: 32,
  maxPerAddress: 4,
  idleMs: 90_000,
};

/** What the upgrade path needs beside the RPC: the origin rule, the refusal counts and the clock. */
export interface ShellyWsGuard {
  /** Why the request comes from a foreign page (the HTTP API's origin rule), or undefined. */
  foreignOrigin: (request: IncomingMessage) => string | undefined;
  refusals: Refusals;
  clock: Clock;
}

function refuse(socket: Duplex, status: string): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  else socket.destroy();
}

export class ShellyWebSocket {
  private server: WebSocketServer | undefined;
  private loading: Promise<WebSocketServer> | undefined;
  private readonly slow: SlowConsumerGuard;
  /** Open connections and upgrades under way, by remote address. */
  private readonly perAddress = new Map<string, number>();

  constructor(
    private readonly rpc: ShellyRpc,
    private readonly enabled: () => boolean,
    private readonly logger: Logger,
    private readonly guard: ShellyWsGuard,
    private readonly options: ShellyWsOptions = SHELLY_WS_DEFAULTS,
  ) {
    this.slow = new SlowConsumerGuard('shelly_ws', options.maxBufferedBytes, guard.refusals);
  }

  /** Clients dropped for not reading their answers (tests and the service state read it). */
  get dropped(): number {
    return this.slow.dropped;
  }

  private refuse(socket: Duplex, reason: string, status: string): void {
    const count = this.guard.refusals.add(reason);
    if (worthLogging(count))
      this.logger.warn(`shelly: websocket upgrade refused (${reason}, ${count} so far)`);
    refuse(socket, status);
  }

  /** Whether the upgrade is ours: `/rpc` (any query) while the personality is on. */
  handles(request: IncomingMessage): boolean {
    const url = request.url ?? '';
    const path = url.split('?', 1)[0];
    return path === '/rpc' && this.enabled();
  }

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    if (this.guard.foreignOrigin(request) !== undefined)
      return this.refuse(socket, 'websocket_foreign_origin', '403 Forbidden');
    const address = request.socket.remoteAddress ?? '';
    if ((this.perAddress.get(address) ?? 0) >= this.options.maxPerAddress)
      return this.refuse(socket, 'websocket_address_cap', '503 Service Unavailable');
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.perAddress.set(address, left);
      else this.perAddress.delete(address);
    };
    socket.once('close', release);
    void this.load().then(
      (server) => {
        if (socket.destroyed) return release();
        if (server.clients.size >= this.options.maxClients)
          return this.refuse(socket, 'websocket_client_cap', '503 Service Unavailable');
        server.handleUpgrade(request, socket, head, (client) => this.serve(client));
      },
      (error: Error) => {
        this.logger.error(`shelly: websocket unavailable: ${error.message}`);
        refuse(socket, '500 Internal Server Error');
      },
    );
  }

  /** Closes every client (server stop). */
  close(): void {
    for (const client of this.server?.clients ?? []) client.terminate();
  }

  get clients(): number {
    return this.server?.clients.size ?? 0;
  }

  private load(): Promise<WebSocketServer> {
    this.loading ??= import('ws').then(({ WebSocketServer }) => {
      this.server = new WebSocketServer({ noServer: true, maxPayload: this.options.maxPayload });
      return this.server;
    });
    return this.loading;
  }

  private serve(client: WebSocket): void {
    const { clock } = this.guard;
    const idle: Timer = clock.setTimeout(() => {
      this.guard.refusals.add('websocket_idle');
      client.close(1001, 'idle');
      // A client that does not answer the close handshake is cut after a grace.
      clock.setTimeout(() => client.terminate(), 5_000).unref();
    }, this.options.idleMs);
    idle.unref();
    client.on('close', () => clock.clearTimeout(idle));
    client.on('ping', () => idle.refresh());
    client.on('error', () => client.terminate());
    client.on('message', (data, isBinary) => {
      // Frames already parsed still arrive after a terminate: a dropped client gets nothing more.
      if (isBinary || client.readyState !== client.OPEN) return;
      idle.refresh();
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as Buffer).toString('utf8');
      const answer = this.rpc.frame(text);
      if (!this.slow.write(webSocketSink(client), answer) && this.slow.dropped === 1)
        this.logger.warn('shelly: websocket client dropped: it does not read its answers');
    });
  }
}
