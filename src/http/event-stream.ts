import type { ServerResponse } from 'node:http';
import { responseSink, type SlowConsumerGuard } from '../slow-consumer.js';
import { HttpError } from './errors.js';
import { SSE_HEADERS } from './respond.js';
import type { ApiRequest } from './router.js';

/** Sends one Server-Sent Event (`event: <name>`, `data: <JSON>`) to the stream's client. */
export type SendEvent = (event: string, data: unknown) => void;

/** A Server-Sent Events endpoint of one domain object (the peak guard, the export limiter). */
export interface EventStreamOptions {
  /** How a refusal names the stream: `at most 16 <what> stream clients`. */
  what: string;
  /** Clients at the most; one more is answered 503. */
  maxClients: number;
  /** Drops a client that does not read (docs/architecture.md#hostile-input). */
  slow: SlowConsumerGuard;
  /** Sends the current state, subscribes `send` to the object's events; returns the unsubscribe. */
  subscribe(send: SendEvent): () => void;
}

/**
 * The handler of an event stream: a 503 past `maxClients`, the SSE headers, the object's events as
 * they come, and every listener removed when the client goes or the server shuts down. A client
 * that does not read is dropped, never buffered for.
 */
export function eventStream(
  options: EventStreamOptions,
): (request: ApiRequest, response: ServerResponse) => void {
  const clients = new Set<ServerResponse>();
  return (request, response) => {
    if (clients.size >= options.maxClients)
      throw new HttpError(
        503,
        'service_unavailable',
        `at most ${options.maxClients} ${options.what} stream clients`,
      );
    const sink = responseSink(response);
    const send: SendEvent = (event, data) => {
      if (!response.writableEnded && !response.destroyed)
        options.slow.write(sink, `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    response.writeHead(200, [...SSE_HEADERS]);
    clients.add(response);
    const unsubscribe = options.subscribe(send);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      clients.delete(response);
      if (!response.writableEnded) response.end();
    };
    request.raw.on('close', close);
    request.shutdown?.addEventListener('abort', close, { once: true });
  };
}
