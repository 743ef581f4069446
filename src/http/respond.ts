import type { ServerResponse } from 'node:http';
import type { HttpError } from './errors.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Headers of every API response: readings and settings must never be cached, and
 * browsers must not sniff a JSON body into something executable. No Access-Control-* header is
 * ever sent, so a page from a foreign origin cannot read any response (Fetch standard, CORS check).
 */
export const COMMON_HEADERS: readonly string[] = [
  'Cache-Control',
  'no-store',
  'X-Content-Type-Options',
  'nosniff',
];

/** Headers of a server-sent event stream (the live and peak streams). */
export const SSE_HEADERS: readonly string[] = [
  'Content-Type',
  'text/event-stream; charset=utf-8',
  ...COMMON_HEADERS,
  'Connection',
  'keep-alive',
  // Reverse proxies (nginx) must pass events through at once.
  'X-Accel-Buffering',
  'no',
];

/** Flat header list (`writeHead(status, [name, value, ...])`) of a JSON body of `length` bytes. */
export function jsonHeaders(length: number): string[] {
  return ['Content-Type', JSON_CONTENT_TYPE, 'Content-Length', String(length), ...COMMON_HEADERS];
}

/**
 * Sends serialised JSON. A body served many times (the report) is best passed as its UTF-8 bytes:
 * a string is joined to the header block and encoded again on every response, three passes over
 * its characters, where bytes go out as a second iovec of the same writev.
 */
export function sendJsonText(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  headers?: string[],
): void {
  response.writeHead(status, headers ?? jsonHeaders(Buffer.byteLength(body)));
  response.end(body);
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  sendJsonText(response, status, JSON.stringify(value));
}

/** 204 No Content (as the whatwatt Go answers reboot, restore, DELETE of a configuration). */
export function sendNoContent(response: ServerResponse): void {
  response.writeHead(204, [...COMMON_HEADERS]);
  response.end();
}

/**
 * The error body (docs/architecture.md#errors) with the error's status and extra headers (Allow,
 * WWW-Authenticate ...).
 */
export function sendError(response: ServerResponse, error: HttpError): void {
  for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
  sendJson(response, error.status, error.body());
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * A complete HTTP/1.1 error response as raw bytes, for errors that Node's parser reports before a
 * request object exists (`clientError`: malformed request line, header overflow, header timeout).
 * The connection is closed after it (RFC 9112 §9.6).
 */
export function rawErrorResponse(error: HttpError): string {
  const body = JSON.stringify(error.body());
  return (
    `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Error'}\r\n` +
    `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`
  );
}
