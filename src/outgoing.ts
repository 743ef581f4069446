import type { IncomingHttpHeaders } from 'node:http';
import type { Got, StreamOptions } from 'got';
import { systemClock, type Clock } from './clock.js';

/**
 * Bounds of every outgoing HTTP request the daemon makes (docs/architecture.md#hostile-input): a peer
 * chooses how much it answers, so at most this much of an answer body is read; the rest is not
 * read and the request is aborted. Answers the daemon uses are a status line and at most a small
 * JSON document (a remote gateway's report is about 2 kB).
 */
export const OUTGOING_BODY_LIMIT = 64 * 1024;
/** Longest event of an event stream (a remote gateway's live stream: about 1 kB per event). */
export const OUTGOING_EVENT_LIMIT = 64 * 1024;
/** A stream (Server-Sent Events) must answer with its headers within this time. */
export const OUTGOING_OPEN_TIMEOUT_MS = 10_000;

/** How often an outgoing request hit a bound; each component shows its own where it reports errors. */
export interface OutgoingCounters {
  /** Answers longer than the body limit: cut there, the request aborted. */
  answers_cut: number;
  /** Requests that did not complete within their timeout. */
  timeouts: number;
}

export function outgoingCounters(): OutgoingCounters {
  return { answers_cut: 0, timeouts: 0 };
}

interface Answer {
  statusCode: number;
  statusMessage?: string | undefined;
  headers: IncomingHttpHeaders;
}

export interface BoundedAnswer {
  statusCode: number;
  statusMessage: string | undefined;
  headers: IncomingHttpHeaders;
  /** At most `limit` bytes of the answer body. */
  body: Buffer;
  /** The answer was longer: the rest was not read and the request aborted. */
  cut: boolean;
}

/**
 * One request through got's stream interface, reading at most `limit` bytes of the answer body. got buffers nothing itself in this mode: every chunk
 * arrives here, and once the limit is reached the stream is destroyed, which aborts the request and
 * closes its socket. got's retries and redirects are off and HTTP errors are answers, not
 * exceptions; `options.timeout` bounds the exchange. Rejects with got's RequestError (TimeoutError
 * for a timeout) when there is no answer.
 */
export function boundedRequest(
  got: Got,
  url: URL | string,
  options: StreamOptions,
  limit: number = OUTGOING_BODY_LIMIT,
): Promise<BoundedAnswer> {
  return new Promise((resolve, reject) => {
    const stream = got.stream(url, {
      ...options,
      retry: { limit: 0 },
      followRedirect: false,
      throwHttpErrors: false,
    });
    // In stream mode got sends the request body that is written to the stream: a request without
    // one (a POST with no payload too) is ended here, or it would never go out.
    if (options.body === undefined && options.json === undefined && options.form === undefined) stream.end();
    const chunks: Buffer[] = [];
    let size = 0;
    let answer: Omit<BoundedAnswer, 'body' | 'cut'> | undefined;
    let settled = false;
    const finish = (cut: boolean): void => {
      if (settled || !answer) return;
      settled = true;
      stream.destroy();
      resolve({ ...answer, body: Buffer.concat(chunks, size), cut });
    };
    stream.on('response', (response: Answer) => {
      const { statusCode, statusMessage, headers } = response;
      answer = { statusCode, statusMessage, headers };
    });
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      const room = limit - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size = limit;
        finish(true);
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    stream.on('end', () => finish(false));
    stream.on('error', (error: Error) => {
      if (settled) return;
      settled = true;
      stream.destroy();
      reject(error);
    });
  });
}

/**
 * The fetch of an event stream reader (the eventsource package's FetchLike): of its options only
 * the signal is read here, the rest (headers, mode, cache, redirect) are passed on as they are.
 */
type StreamFetch = (url: string | URL, init: { signal?: AbortSignal | null }) => Promise<Response>;

export interface EventStreamBounds {
  /** Longest event (bytes between blank lines, RFC: WHATWG HTML §9.2.6 event stream format). */
  eventLimit?: number;
  /** The answer's headers must arrive within this time. */
  openTimeoutMs?: number;
  /** Called once when an event exceeded the limit; the stream then fails. */
  onEventTooLarge: () => void;
  /** The opening timer (docs/architecture.md#clock). */
  clock?: Clock;
}

/**
 * A fetch for an event stream (the eventsource package) bounded like every outgoing request
 * (docs/architecture.md#hostile-input): the answer must start within `openTimeoutMs`, and its body
 * fails as soon as one event grows beyond `eventLimit` bytes, so a peer cannot make the parser
 * buffer an endless line. Silence after the start is the reader's watchdog's business.
 */
export function boundedEventStreamFetch(fetch: StreamFetch, bounds: EventStreamBounds): StreamFetch {
  const limit = bounds.eventLimit ?? OUTGOING_EVENT_LIMIT;
  const openTimeoutMs = bounds.openTimeoutMs ?? OUTGOING_OPEN_TIMEOUT_MS;
  const clock = bounds.clock ?? systemClock;
  return async (url, init) => {
    const opening = new AbortController();
    const timer = clock.setTimeout(
      () => opening.abort(new Error(`no answer within ${openTimeoutMs} ms`)),
      openTimeoutMs,
    );
    const signal = init.signal ? AbortSignal.any([init.signal, opening.signal]) : opening.signal;
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal });
    } finally {
      clock.clearTimeout(timer);
    }
    if (response.status !== 200 || !response.body) return response;
    const body = response.body.pipeThrough(eventSizeBound(limit, bounds.onEventTooLarge));
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Passes event stream bytes on while no event is longer than `limit`: an event ends at a blank
 * line, and a line ends at CRLF, LF or CR (WHATWG HTML §9.2.6).
 */
function eventSizeBound(limit: number, onTooLarge: () => void): TransformStream<Uint8Array, Uint8Array> {
  let eventBytes = 0;
  let lineBytes = 0;
  let afterCr = false;
  return new TransformStream({
    transform(chunk, controller) {
      for (const byte of chunk) {
        if (byte === LF && afterCr) {
          afterCr = false;
          continue;
        }
        afterCr = byte === CR;
        if (byte === CR || byte === LF) {
          if (lineBytes === 0) eventBytes = 0;
          lineBytes = 0;
          continue;
        }
        lineBytes += 1;
        if (++eventBytes > limit) {
          onTooLarge();
          controller.error(new Error(`event stream: an event longer than ${limit} bytes`));
          return;
        }
      }
      controller.enqueue(chunk);
    },
  });
}
