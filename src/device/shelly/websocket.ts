import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../../log.js';
import type { ShellyRpc } from './rpc.js';

/**
 * JSON-RPC over a WebSocket at `/rpc`, the transport of shellies-ng, aioshelly (Home Assistant) and
 * the Shelly app (docs/architecture.md#shelly-pro-3em): each text frame is one request frame, each
 * answer one response frame. `ws` (loaded on the first upgrade, the feature is optional) takes the
 * HTTP server's upgrade event; the server itself keeps no such sockets.
 *
 * Bounds: a frame over `maxPayload` closes the connection (close code 1009, RFC 6455 §7.4.1); a
 * client whose unread answers pile up beyond `maxBufferedBytes` is dropped, never waited for; at
 * most `maxClients` connections, further upgrades get 503.
 */

export interface ShellyWsOptions {
  maxPayload: number;
  maxBufferedBytes: number;
  maxClients: number;
}

export const SHELLY_WS_DEFAULTS: ShellyWsOptions = {
  maxPayload: 4096,
  maxBufferedBytes: 64 * 1024,
  maxClients: 32,
};

function refuse(socket: Duplex, status: string): void {
  if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  else socket.destroy();
}

export class ShellyWebSocket {
  private server: WebSocketServer | undefined;
  private loading: Promise<WebSocketServer> | undefined;
  /** Clients dropped for not reading their answers (tests and the service state read it). */
  dropped = 0;

  constructor(
    private readonly rpc: ShellyRpc,
    private readonly enabled: () => boolean,
    private readonly logger: Logger,
    private readonly options: ShellyWsOptions = SHELLY_WS_DEFAULTS,
  ) {}

  /** Whether the upgrade is ours: `/rpc` (any query) while the personality is on. */
  handles(request: IncomingMessage): boolean {
    const url = request.url ?? '';
    const path = url.split('?', 1)[0];
    return path === '/rpc' && this.enabled();
  }

  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    void this.load().then(
      (server) => {
        if (socket.destroyed) return;
        if (server.clients.size >= this.options.maxClients) return refuse(socket, '503 Service Unavailable');
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
    client.on('error', () => client.terminate());
    client.on('message', (data, isBinary) => {
      // Frames already parsed still arrive after a terminate: a dropped client gets nothing more.
      if (isBinary || client.readyState !== client.OPEN) return;
      if (client.bufferedAmount > this.options.maxBufferedBytes) {
        this.dropped++;
        this.logger.warn('shelly: websocket client dropped: it does not read its answers');
        client.terminate();
        return;
      }
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as Buffer).toString('utf8');
      client.send(this.rpc.frame(text));
    });
  }
}
