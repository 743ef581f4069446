import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Clock, Timer } from '../../clock.js';
import type { Logger } from '../../log.js';
import { worthLogging, type Refusals } from '../../refusals.js';
import { SlowConsumerGuard, webSocketSink } from '../../slow-consumer.js';
import type { ShellyRpc } from './rpc.js';
import type { EmStatus } from './em-status.js';

/**
 * JSON-RPC over a WebSocket at `/rpc`, the transport of shellies-ng, aioshelly (Home Assistant) and
 * the Shelly app (docs/architecture.md#shelly-pro-3em): each text frame is one request frame, each
 * answer one response frame. `ws` (loaded on the first upgrade, the feature is optional) takes the
 * HTTP server's upgrade event; the server itself keeps no such sockets.
 *
 * Pushes, as a Gen2 device sends them (Gen2 "RPC Protocol" and "Notifications" pages): a client
 * that has sent a request with a `src` receives, on each new reading of the served meter, one
 * notification frame `{"src": <device id>, "dst": <its src>, "method": "NotifyStatus", "params":
 * {"ts": <s>, "em:0": {"id": 0, <changed fields>}, "emdata:0": {...}}}` holding the fields that
 * changed since the previous reading. Home Assistant's client (aioshelly `RpcDevice`) merges these
 * into the status it fetched at set-up; it replaces the whole status on `NotifyFullStatus`, sent
 * here when the meter goes stale or comes back (a delta cannot take the `errors` key away). The
 * frames are built once per reading for every client; only `dst` differs.
 *
 * Bounds: a frame over `maxPayload` closes the connection (close code 1009, RFC 6455 §7.4.1); a
 * client whose unread answers pile up beyond `maxBufferedBytes` is dropped, never waited for; at
 * most `maxClients` connections and `maxPerAddress` from one address, further upgrades get 503; a
 * connection that sends neither a frame nor a ping for `idleMs` is closed (1001 going away,
 * RFC 6455 §7.4.1), so idle connections cannot hold every slot. Home Assistant's aioshelly sends
 * a WebSocket ping well within that time. The HTTP server applies the API's origin rule to the upgrade
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

/**
 * What the upgrade path needs beside the RPC: the refusal counts and the clock. The origin rule is
 * the HTTP server's, applied to every upgrade before it reaches this taker (src/http/server.ts).
 */
export interface ShellyWsGuard {
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
  /** Notification frames sent (tests and the bench read it). */
  notified = 0;
  /** Clients that sent a request with a `src`, and that src: they receive the pushes. */
  private readonly subscribers = new Map<WebSocket, string>();
  private unsubscribe: (() => void) | undefined;
  /** The EM and EMData status of the previous push, the base of the next delta. */
  private previous: { em: EmStatus; emData: EmStatus } | undefined;

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
    this.subscribers.clear();
    this.stopPushes();
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

  private subscribe(client: WebSocket, src: string): void {
    if (this.subscribers.get(client) === src) return;
    this.subscribers.set(client, src);
    if (this.unsubscribe) return;
    this.previous = this.rpc.measured();
    this.unsubscribe = this.rpc.onChange(() => this.push());
  }

  private stopPushes(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.previous = undefined;
  }

  private push(): void {
    const previous = this.previous;
    const current = this.rpc.measured();
    if (!previous || this.subscribers.size === 0) return;
    if (current.em === previous.em && current.emData === previous.emData) return;
    this.previous = current;
    const ts = this.rpc.timestamp();
    let method = 'NotifyStatus';
    let params: Record<string, unknown>;
    if ('errors' in current.em !== 'errors' in previous.em) {
      method = 'NotifyFullStatus';
      params = { ts, ...this.rpc.status() };
    } else {
      params = { ts };
      const em = delta(previous.em, current.em);
      const emData = delta(previous.emData, current.emData);
      if (em) params['em:0'] = em;
      if (emData) params['emdata:0'] = emData;
      if (!em && !emData) return;
    }
    const head = `{"src":${JSON.stringify(this.rpc.deviceId())},"dst":`;
    const tail = `,"method":"${method}","params":${JSON.stringify(params)}}`;
    for (const [client, dst] of this.subscribers) {
      if (client.readyState !== client.OPEN) continue;
      if (this.send(client, head + JSON.stringify(dst) + tail)) this.notified++;
    }
  }

  /** Sends a frame, or drops a client whose unread frames are over the bound (never waited for). */
  private send(client: WebSocket, frame: string): boolean {
    if (this.slow.write(webSocketSink(client), frame)) return true;
    if (this.slow.dropped === 1)
      this.logger.warn('shelly: websocket client dropped: it does not read its answers');
    this.forget(client);
    return false;
  }

  private forget(client: WebSocket): void {
    this.subscribers.delete(client);
    if (this.subscribers.size === 0) this.stopPushes();
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
    client.on('close', () => {
      clock.clearTimeout(idle);
      this.forget(client);
    });
    client.on('ping', () => idle.refresh());
    client.on('error', () => client.terminate());
    client.on('message', (data, isBinary) => {
      // Frames already parsed still arrive after a terminate: a dropped client gets nothing more.
      if (isBinary || client.readyState !== client.OPEN) return;
      idle.refresh();
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as Buffer).toString('utf8');
      const answer = this.rpc.frame(text, (src) => this.subscribe(client, src));
      this.send(client, answer);
    });
  }
}

/** The fields of `next` that differ from `before`, with the component id; undefined when none. */
function delta(before: EmStatus, next: EmStatus): Record<string, unknown> | undefined {
  const changed: Record<string, unknown> = {};
  let any = false;
  for (const [key, value] of Object.entries(next)) {
    if (key === 'id') continue;
    const old = before[key];
    const same =
      value === old || (typeof value === 'object' && JSON.stringify(value) === JSON.stringify(old));
    if (same) continue;
    changed[key] = value;
    any = true;
  }
  return any ? { id: 0, ...changed } : undefined;
}
