import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type AuthScheme = 'none' | 'basic' | 'digest-sha256' | 'digest-md5';

/**
 * A peer gateway for the remote transport: GET /api/v1/live streams `event: live` messages,
 * GET /api/v1/report shows the meter object, both behind Basic or Digest (RFC 7616, qop=auth)
 * with a password and any user name. The Digest check here is written from the RFC independently
 * of the client code under test.
 */
export class SseGateway {
  readonly streams = new Set<ServerResponse>();
  readonly authorizations: string[] = [];
  private readonly server: Server;
  private readonly nonce = randomBytes(16).toString('hex');
  private timer: NodeJS.Timeout | undefined;
  port = 0;

  constructor(
    private readonly scheme: AuthScheme,
    private readonly password: string,
    private readonly payload: Record<string, unknown>,
    private readonly report: Record<string, unknown> | undefined,
  ) {
    this.server = createServer((request, response) => this.handle(request, response));
  }

  async listen(port = 0): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.timer = setInterval(() => this.broadcast(), 200);
  }

  /** Ends every open live stream (the peer restarting). */
  dropStreams(): void {
    for (const stream of this.streams) stream.destroy();
    this.streams.clear();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.dropStreams();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private broadcast(): void {
    for (const stream of this.streams) stream.write(`event: live\ndata: ${JSON.stringify(this.payload)}\n\n`);
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    if (!this.authorized(request)) {
      response.writeHead(401, { 'WWW-Authenticate': this.challenges() }).end();
      return;
    }
    if (request.url === '/api/v1/report' && this.report) {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(this.report));
    } else if (request.url === '/api/v1/live') {
      response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      response.write(': hello\n\n');
      this.streams.add(response);
      response.on('close', () => this.streams.delete(response));
    } else {
      response.writeHead(404).end();
    }
  }

  private challenges(): string[] {
    if (this.scheme === 'basic') return ['Basic realm="gateway"'];
    const algorithm = this.scheme === 'digest-sha256' ? 'SHA-256' : 'MD5';
    return [`Digest realm="gateway", qop="auth", algorithm=${algorithm}, nonce="${this.nonce}", opaque="op"`];
  }

  private authorized(request: IncomingMessage): boolean {
    if (this.scheme === 'none') return true;
    const header = request.headers.authorization ?? '';
    if (header) this.authorizations.push(header);
    if (this.scheme === 'basic') {
      const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString();
      return header.startsWith('Basic ') && decoded.slice(decoded.indexOf(':') + 1) === this.password;
    }
    if (!header.startsWith('Digest ')) return false;
    const params = Object.fromEntries(
      [...header.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)].map((m) => [m[1], m[2] ?? m[3]]),
    );
    const hashName = this.scheme === 'digest-sha256' ? 'sha256' : 'md5';
    const h = (text: string): string => createHash(hashName).update(text).digest('hex');
    const ha1 = h(`${params.username}:gateway:${this.password}`);
    const ha2 = h(`${request.method}:${params.uri}`);
    const expected = h(`${ha1}:${this.nonce}:${params.nc}:${params.cnonce}:${params.qop}:${ha2}`);
    return (
      params.uri === request.url &&
      params.nonce === this.nonce &&
      params.opaque === 'op' &&
      params.response === expected
    );
  }
}
