import type { IncomingMessage } from 'node:http';
import { systemClock, type Clock } from '../clock.js';
import { HttpError } from './errors.js';
import { JsonDepthGauge, MAX_JSON_DEPTH } from './json-depth.js';

/**
 * JSON body limit of the whatwatt Go API (MQTT settings: at most 8 kB), used for every JSON route by default.
 */
export const DEFAULT_JSON_LIMIT = 8 * 1024;

export interface JsonBodyOptions {
  maxBytes: number;
  /** The whole body must arrive within this time (slow-body attacks on JSON routes). */
  timeoutMs: number;
  /** The body's timer (docs/architecture.md#clock). */
  clock?: Clock;
}

/** Media type of a Content-Type header without parameters, lower case (RFC 9110 §8.3.1). */
function mediaTypeOf(header: string | undefined): { type: string; charset: string | undefined } {
  if (!header) return { type: '', charset: undefined };
  const [type = '', ...parameters] = header.split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset') charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return { type: type.trim().toLowerCase(), charset };
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A request body that exceeds the limit: the rest is not read, so the connection must close. */
function tooLarge(limit: number): HttpError {
  return new HttpError(
    413,
    'payload_too_large',
    `request body exceeds ${limit} bytes`,
    { limit },
    { Connection: 'close' },
  );
}

/** A body nested too deep: refused as it arrives, the rest is not read, so the connection must close. */
function tooDeep(): HttpError {
  return new HttpError(
    400,
    'bad_request',
    `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    { max_depth: MAX_JSON_DEPTH },
    { Connection: 'close' },
  );
}

function checkContentType(request: IncomingMessage): void {
  const { type, charset } = mediaTypeOf(request.headers['content-type']);
  if (type === 'application/json' && (charset === undefined || charset === 'utf-8')) return;
  if (type === '' && !hasBody(request))
    throw new HttpError(400, 'bad_request', 'a JSON request body is required');
  throw new HttpError(415, 'unsupported_media_type', 'request body must be application/json (UTF-8)', {
    content_type: request.headers['content-type'] ?? null,
  });
}

/**
 * The body's bytes with the same bounds as a JSON body (size, time, nesting), for routes that parse
 * the body themselves (the Shelly personality's JSON-RPC frames).
 */
export function readBoundedBody(request: IncomingMessage, options: JsonBodyOptions): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > options.maxBytes) return Promise.reject(tooLarge(options.maxBytes));
  return collect(request, options);
}

function collect(request: IncomingMessage, options: JsonBodyOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const clock = options.clock ?? systemClock;
    const chunks: Buffer[] = [];
    const gauge = new JsonDepthGauge();
    let size = 0;
    const finish = (error?: HttpError): void => {
      clock.clearTimeout(timer);
      request.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onError);
      if (error) {
        request.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      // Depth first: a chunk both too deep and over the limit is refused for its nesting.
      if (gauge.exceeded(chunk)) finish(tooDeep());
      else if (size > options.maxBytes) finish(tooLarge(options.maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish();
    const onError = (): void => finish(new HttpError(400, 'bad_request', 'request body was not completed'));
    const timer = clock.setTimeout(
      () =>
        finish(
          new HttpError(
            408,
            'request_timeout',
            `request body not received within ${options.timeoutMs} ms`,
            {},
            {
              Connection: 'close',
            },
          ),
        ),
      options.timeoutMs,
    );
    request.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onError);
  });
}

/**
 * Reads and parses a JSON request body: 415 for another media type, 413 over the limit (checked
 * against Content-Length before reading and while reading chunked bodies), 408 when it does not
 * arrive in time, 400 for invalid UTF-8, malformed JSON or nesting deeper than MAX_JSON_DEPTH.
 */
export async function readJsonBody(request: IncomingMessage, options: JsonBodyOptions): Promise<unknown> {
  checkContentType(request);
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > options.maxBytes) throw tooLarge(options.maxBytes);
  const bytes = await collect(request, options);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new HttpError(400, 'bad_request', 'request body is not valid UTF-8');
  }
  if (text.trim() === '') throw new HttpError(400, 'bad_request', 'a JSON request body is required');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, 'bad_request', `malformed JSON: ${(error as Error).message}`);
  }
}
