import type { ServerResponse } from 'node:http';
import { COMMON_HEADERS } from './respond.js';

/**
 * A CSV file as a download (200): text/csv with its header line announced (`header=present`, RFC
 * 4180 §3) and saved under `fileName` (Content-Disposition attachment, RFC 6266 §4).
 */
export function sendCsvDownload(response: ServerResponse, fileName: string, csv: string): void {
  const body = Buffer.from(csv);
  response.writeHead(200, [
    'Content-Type',
    'text/csv; charset=utf-8; header=present',
    'Content-Disposition',
    `attachment; filename="${fileName}"`,
    'Content-Length',
    String(body.length),
    ...COMMON_HEADERS,
  ]);
  response.end(body);
}
