import type { ServerResponse } from 'node:http';
import type { Clock, Timer } from '../clock.js';
import type { ConfigStore } from '../config/config-store.js';
import { responseSink, type SlowConsumerGuard } from '../slow-consumer.js';
import { HttpError } from './errors.js';
import { SSE_HEADERS } from './respond.js';
import type { ApiRequest } from './router.js';

/** Sends one Server-Sent Event (`event: <name>`, `data: <JSON>`) to the stream's client. */
export type SendEvent = (event: string, data: unknown) => void;

/** Writes bytes already in SSE wire form (an event serialised once for every client, a comment). */
export type WriteRaw = (bytes: Buffer | string) => void;

/**
 * An SSE comment line (WHATWG HTML, "server-sent events": a line starting with a colon is
 * ignored): keeps a quiet stream's connection from being closed as idle by proxies.
 */
export const KEEP_ALIVE_COMMENT = Buffer.from(': keep-alive\n\n');

/** A Server-Sent Events endpoint of one domain object (the peak guard, the export limiter). */
export interface EventStreamOptions {
  /** How a refusal names the stream: `at most 16 <what> stream clients`. */
  what: string;
  /** Clients at the most, or the setting that holds it; one more is answered 503. */
  maxClients: number | (() => number);
  /** Drops a client that does not read (docs/architecture.md#hostile-input). */
  slow: SlowConsumerGuard;
  /** Whose `system.protection` ends the streams opened without credentials when switched on. */
  config: ConfigStore;
  /** Sends the current state, subscribes `send` to the object's events; returns the unsubscribe. */
  subscribe(send: SendEvent, write: WriteRaw, request: ApiRequest): () => void;
  /** A keep-alive comment to every client every `everyMs`: one timer, running while there are clients. */
  keepAlive?: { clock: Clock; everyMs: number };
}

/**
 * The handler of an event stream: a 503 past `maxClients`, the SSE headers, the object's events as
 * they come, and every listener removed when the client goes or the server shuts down. A client
 * that does not read is dropped, never buffered for. As the live stream's (src/http/routes/live.ts),
 * a stream opened while protection was off ends when protection is switched on: it must not go on
 * delivering to a client that never gave credentials.
 */
export function eventStream(
  options: EventStreamOptions,
): (request: ApiRequest, response: ServerResponse) => void {
  const clients = new Map<ServerResponse, WriteRaw>();
  let keepAliveTimer: Timer | undefined;
  const keepAlive = options.keepAlive;
  const join = (response: ServerResponse, write: WriteRaw) => {
    clients.set(response, write);
    if (keepAlive && !keepAliveTimer) {
      keepAliveTimer = keepAlive.clock.setInterval(() => {
        for (const writeTo of clients.values()) writeTo(KEEP_ALIVE_COMMENT);
      }, keepAlive.everyMs);
      keepAliveTimer.unref();
    }
  };
  const leave = (response: ServerResponse) => {
    clients.delete(response);
    if (keepAlive && keepAliveTimer && clients.size === 0) {
      keepAlive.clock.clearInterval(keepAliveTimer);
      keepAliveTimer = undefined;
    }
  };
  return (request, response) => {
    const max = typeof options.maxClients === 'number' ? options.maxClients : options.maxClients();
    if (clients.size >= max)
      throw new HttpError(503, 'service_unavailable', `at most ${max} ${options.what} stream clients`);
    const sink = responseSink(response);
    const write: WriteRaw = (bytes) => {
      if (!response.writableEnded && !response.destroyed) options.slow.write(sink, bytes);
    };
    const send: SendEvent = (event, data) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    response.writeHead(200, [...SSE_HEADERS]);
    join(response, write);
    const unsubscribe = options.subscribe(send, write, request);
    const withoutCredentials = !options.config.config.system.protection;
    const onSettings = (paths: readonly string[]) => {
      if (paths.includes('system.protection') && options.config.config.system.protection) close();
    };
    if (withoutCredentials) options.config.subscribe(`${options.what} stream`, 'change', onSettings);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      if (withoutCredentials) options.config.unsubscribe('change', onSettings);
      leave(response);
      if (!response.writableEnded) response.end();
    };
    request.raw.on('close', close);
    request.shutdown?.addEventListener('abort', close, { once: true });
  };
}
