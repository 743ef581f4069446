import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';

/** Plain node:http client (no agent, no added headers) so tests control every header and byte. */
export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** Repeated headers as separate values (WWW-Authenticate challenges). */
  distinct: NodeJS.Dict<string[]>;
  text: string;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface SendOptions {
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

export function send(
  baseUrl: string,
  method: string,
  path: string,
  options: SendOptions = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${baseUrl}${path}`,
      { method, headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            distinct: response.headersDistinct,
            text,
            json: () => JSON.parse(text),
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

export function sendJsonBody(
  baseUrl: string,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return send(baseUrl, method, path, {
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
}

/**
 * Writes raw bytes on a fresh TCP connection and collects everything the server sends until it
 * closes the connection. `halfClose` ends the client side after writing.
 */
export function rawExchange(port: number, bytes: string | Buffer, halfClose = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('connect', () => {
      socket.write(bytes);
      if (halfClose) socket.end();
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE')
        resolve(Buffer.concat(chunks).toString('utf8'));
      else reject(error);
    });
  });
}

/** Parameters of each challenge of a WWW-Authenticate header list (one challenge per value). */
export function challenges(
  values: string[] | undefined,
): Array<{ scheme: string; params: Map<string, string> }> {
  return (values ?? []).map((value) => {
    const space = value.indexOf(' ');
    const params = new Map<string, string>();
    for (const match of value
      .slice(space + 1)
      .matchAll(/([A-Za-z0-9_-]+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
      params.set(match[1]!.toLowerCase(), match[2] ?? match[3] ?? '');
    }
    return { scheme: value.slice(0, space), params };
  });
}

/** The same for a fetch() response, whose Headers join repeated challenges with ", ". */
export function splitJoinedChallenges(joined: string | null): string[] {
  return (joined ?? '').split(/,\s*(?=(?:Digest|Basic)\s)/).filter((part) => part !== '');
}

export interface DigestInput {
  algorithm: 'MD5' | 'MD5-sess' | 'SHA-256' | 'SHA-256-sess';
  realm: string;
  nonce: string;
  opaque?: string;
  method: string;
  uri: string;
  password: string;
  username?: string;
  nc?: number;
  cnonce?: string;
}

/** A client's Authorization header per RFC 7616 §3.4 (qop=auth), built independently of src/. */
export function digestHeader(input: DigestInput): string {
  const hash = input.algorithm.startsWith('SHA-256') ? 'sha256' : 'md5';
  const h = (text: string): string => createHash(hash).update(text).digest('hex');
  const username = input.username ?? '';
  const cnonce = input.cnonce ?? randomBytes(8).toString('hex');
  const nc = (input.nc ?? 1).toString(16).padStart(8, '0');
  let ha1 = h(`${username}:${input.realm}:${input.password}`);
  if (input.algorithm.endsWith('-sess')) ha1 = h(`${ha1}:${input.nonce}:${cnonce}`);
  const ha2 = h(`${input.method}:${input.uri}`);
  const response = h(`${ha1}:${input.nonce}:${nc}:${cnonce}:auth:${ha2}`);
  return (
    `Digest username="${username}", realm="${input.realm}", nonce="${input.nonce}", uri="${input.uri}", ` +
    `algorithm=${input.algorithm}, qop=auth, nc=${nc}, cnonce="${cnonce}", response="${response}"` +
    (input.opaque !== undefined ? `, opaque="${input.opaque}"` : '')
  );
}
