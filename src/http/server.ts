import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo, Socket } from 'node:net';
import { setMaxListeners } from 'node:events';
import type { AppContext } from '../context.js';
import type { Service } from '../service.js';
import { Authenticator } from './auth.js';
import type { ThrottleOptions } from './auth-throttle.js';
import { createRequestHandler } from './dispatch.js';
import { HttpError } from './errors.js';
import { originRefusal } from './origin-check.js';
import { rawErrorResponse } from './respond.js';
import type { Router } from './router.js';

export interface HttpServerOptions {
  /** Complete request headers must arrive within this time (slowloris). Default 10 s. */
  headersTimeoutMs?: number;
  /** The whole request, body included, must arrive within this time (uploads too). Default 300 s. */
  requestTimeoutMs?: number;
  /** A JSON body must arrive within this time. Default 10 s. */
  bodyTimeoutMs?: number;
  /** How often Node checks the two timeouts above. Default 1 s. */
  timeoutCheckIntervalMs?: number;
  /** Idle keep-alive connections close after this time. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Digest nonce lifetime; older nonces answer stale=true. Default 5 min. */
  nonceLifetimeMs?: number;
  throttle?: ThrottleOptions;
  /** On stop, requests still running after this time have their connections closed. Default 2 s. */
  shutdownGraceMs?: number;
  /** Takes HTTP upgrades (the Shelly personality's WebSocket); others are refused with 404. */
  upgrades?: UpgradeHandler;
}

/** A taker of HTTP upgrade requests (RFC 9110 §7.8) on the API's port. */
export interface UpgradeHandler {
  handles(request: IncomingMessage): boolean;
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Ends every upgraded connection (the server's close does not track them). */
  close(): void;
}

export type HttpService = Service & {
  address(): { host: string; port: number } | undefined;
};

/** Errors Node's HTTP parser reports before a request exists (malformed request, timeouts). */
function clientErrorFor(error: NodeJS.ErrnoException): HttpError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new HttpError(408, 'request_timeout', 'request not received in time');
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new HttpError(431, 'headers_too_large', 'request headers too large');
  return new HttpError(400, 'bad_request', 'malformed HTTP request');
}

function configureServer(server: Server, options: HttpServerOptions): void {
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = options.requestTimeoutMs ?? 300_000;
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  // Bounded number of open sockets: far above any real client population, below fd limits.
  server.maxConnections = 8192;
}

/**
 * An error of Node's HTTP parser on a socket, answered as Node's own default for 'clientError' does:
 * an error response only while no response is in flight on the socket, or none of it has been
 * written; otherwise the peer would get a corrupted stream, and the socket is destroyed instead.
 * node:http keeps the socket's current response in `_httpMessage` (set on assignment, cleared when
 * it finishes); its built-in handler reads the same field.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  const midResponse = inFlight != null && inFlight.headersSent && !inFlight.writableEnded;
  if (socket.writable && !midResponse) socket.end(rawErrorResponse(clientErrorFor(error)));
  else socket.destroy();
}

/**
 * The server's 'upgrade' listener: the taker's own upgrades go to it, any other is refused as an
 * unknown path (404). A browser opens a WebSocket to any origin without CORS: the origin check
 * applies as to a write (docs/architecture.md#cross-site-requests).
 */
function upgradeTaker(
  ctx: AppContext,
  upgrades: UpgradeHandler,
): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (request, socket, head) => {
    const foreign = originRefusal(request, ctx.config.config) !== undefined;
    if (foreign) ctx.refusals.add('websocket_foreign_origin');
    if (!foreign && upgrades.handles(request)) upgrades.upgrade(request, socket, head);
    else socket.end(rawErrorResponse(new HttpError(404, 'not_found', 'not found')));
  };
}

/** Resolves once the server listens on host:port; rejects with the error that kept it from it. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError).once('listening', onListening).listen(port, host);
  });
}

/**
 * The HTTP API server on node:http. Listens on http.host / http.port (port 0: any free
 * port, for tests); routing, auth and error bodies come from dispatch.ts.
 */
export function createHttpService(
  ctx: AppContext,
  router: Router,
  options: HttpServerOptions = {},
): HttpService {
  const shutdown = new AbortController();
  // Every open live stream watches the shutdown signal; there can be many.
  setMaxListeners(0, shutdown.signal);
  const auth = new Authenticator({
    now: ctx.now,
    nonceLifetimeMs: options.nonceLifetimeMs ?? 5 * 60_000,
    ...(options.throttle ? { throttle: options.throttle } : {}),
  });
  let listening: { host: string; port: number } | undefined;
  // Requests whose answer could not be written (connection closed instead); in the http service state.
  let answerFailures = 0;
  const report = (): void => {
    if (listening)
      ctx.services.set('http', { state: 'running', ...listening, answer_failures: answerFailures });
  };
  const handler = createRequestHandler(ctx, router, auth, shutdown.signal, {
    bodyTimeoutMs: options.bodyTimeoutMs ?? 10_000,
    onAnswerFailure: () => {
      answerFailures++;
      report();
    },
  });
  const server = createServer(
    { connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 1_000 },
    handler,
  );
  configureServer(server, options);
  server.on('clientError', answerClientError);
  // Without a taker Node answers an upgrade request as a plain request.
  const upgrades = options.upgrades;
  if (upgrades) server.on('upgrade', upgradeTaker(ctx, upgrades));

  return {
    name: 'http',
    required: true,
    address: () => listening,
    async start(): Promise<void> {
      const { host, port } = ctx.config.config.http;
      await listen(server, port, host);
      server.on('error', (error) => ctx.logger.error(`http: server error: ${error.message}`));
      const address = server.address() as AddressInfo;
      listening = { host: address.address, port: address.port };
      report();
      ctx.logger.info(`http: listening on ${listening.host}:${listening.port}`);
    },
    async stop(): Promise<void> {
      if (!server.listening) return;
      shutdown.abort();
      options.upgrades?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = ctx.clock.setTimeout(
        () => server.closeAllConnections(),
        options.shutdownGraceMs ?? 2_000,
      );
      await closed;
      ctx.clock.clearTimeout(grace);
      listening = undefined;
      // Stopped with the daemon: no longer serving (mDNS withdraws what it announced for it).
      ctx.services.set('http', { state: 'disabled' });
    },
  };
}

export { registerCoreRoutes, type CoreRouteDeps, type CoreRoutes } from './routes/core.js';
