import { createReadStream, type Stats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { COMMON_HEADERS } from './respond.js';

/** One byte range of a representation of `size` bytes, inclusive ends (RFC 9110 §14.1.2). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The Range header (RFC 9110 §14.2) of a `size`-byte file: undefined means the whole file (no
 * header, another unit, several ranges, or a malformed one: a server may ignore them), 'unsatisfiable'
 * a well-formed range that lies past the end (416).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== '' && Number(match[2]) < start) return undefined;
  return start >= size ? 'unsatisfiable' : { start, end };
}

/** text/csv for the CSV logs, bytes for anything else. */
export function contentTypeOf(path: string): string {
  return extname(path).toLowerCase() === '.csv' ? 'text/csv; charset=utf-8' : 'application/octet-stream';
}

/** A filename parameter for Content-Disposition (RFC 6266): ASCII fallback plus the UTF-8 form. */
function dispositionOf(path: string): string {
  const name = basename(path);
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Sends a file as its raw bytes: Content-Length, Last-Modified, Accept-Ranges and one Range. */
export async function sendFile(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  stats: Stats,
): Promise<void> {
  const headers = [
    'Content-Type',
    contentTypeOf(path),
    'Last-Modified',
    stats.mtime.toUTCString(),
    'Accept-Ranges',
    'bytes',
    'Content-Disposition',
    dispositionOf(path),
    ...COMMON_HEADERS,
  ];
  const range = parseRange(request.headers.range, stats.size);
  if (range === 'unsatisfiable') {
    response.writeHead(416, [...headers, 'Content-Range', `bytes */${stats.size}`, 'Content-Length', '0']);
    response.end();
    return;
  }
  const { start, end } = range ?? { start: 0, end: stats.size - 1 };
  const length = Math.max(0, end - start + 1);
  headers.push('Content-Length', String(length));
  if (range) headers.push('Content-Range', `bytes ${start}-${end}/${stats.size}`);
  response.writeHead(range ? 206 : 200, headers);
  if (request.method === 'HEAD' || length === 0) {
    response.end();
    return;
  }
  try {
    await pipeline(createReadStream(path, { start, end }), response);
  } catch (error) {
    // A client that goes away mid-download is no failure of the daemon.
    if (!response.destroyed) throw error;
  }
}
