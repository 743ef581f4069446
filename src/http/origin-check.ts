import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { AppConfig } from '../config/types.js';

/** Methods that change nothing (RFC 9110 §9.2.1): a cross-site navigation to them is harmless. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Default ports of the schemes an Origin may have (RFC 9110 §4.2.1, §4.2.2). */
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

function bare(hostname: string): string {
  const lower = hostname.toLowerCase().replace(/\.$/, '');
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.startsWith('::ffff:') && unbracketed.includes('.') ? unbracketed.slice(7) : unbracketed;
}

/** `localhost`, a `.localhost` name (RFC 6761 §6.3) or a loopback address (127.0.0.0/8, ::1). */
function isLoopback(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1';
}

/**
 * Whether `hostname` names this device: its host name or `<host name>.local` (mDNS), the address
 * the request arrived at, or an address of one of its interfaces. A loopback name is the device
 * only when the daemon listens on loopback alone: otherwise any program on the same machine (a
 * development server on localhost:3000) could serve the page.
 */
function isOwnHostname(hostname: string, request: IncomingMessage, config: AppConfig): boolean {
  const name = bare(hostname);
  if (isLoopback(name) && !isLoopback(bare(config.http.host))) return false;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const hostName = bare(config.system.host_name);
  if (hostName !== '' && (name === hostName || name === `${hostName}.local`)) return true;
  if (request.socket.localAddress && name === bare(request.socket.localAddress)) return true;
  return Object.values(networkInterfaces()).some((addresses) =>
    (addresses ?? []).some((address) => bare(address.address) === name),
  );
}

/** The port of an authority (`host`, `host:port`, `[v6]:port`), or undefined when it has none. */
function portOf(authority: string): number | undefined {
  const match = /:(\d{1,5})$/.exec(authority);
  if (!match || (authority.startsWith('[') && !authority.includes(']:'))) return undefined;
  return Number(match[1]);
}

/**
 * The scheme and port the request came in on, as the browser addressed it: the scheme is http
 * (the daemon serves no TLS) unless a TLS-terminating proxy says `X-Forwarded-Proto: https`; the
 * port is the Host header's (RFC 9110 §7.2), its scheme's default without one, and the socket's
 * port when the request has no Host header.
 */
function arrival(request: IncomingMessage): { protocol: string; port: number | undefined } {
  const forwarded = request.headers['x-forwarded-proto'];
  const proto = typeof forwarded === 'string' ? forwarded.split(',')[0]!.trim().toLowerCase() : 'http';
  const protocol = `${proto}:`;
  const host = request.headers.host;
  if (host === undefined) return { protocol, port: request.socket.localPort };
  return { protocol, port: portOf(host.trim()) ?? DEFAULT_PORTS[protocol] };
}

/**
 * Why a browser request comes from a foreign page, or undefined when it does not
 * (docs/architecture.md#cross-site-requests). The Origin (RFC 6454) must be this device as the
 * request reached it: the same scheme and port, and a host that is one of the device's own names
 * or addresses; or, behind Home Assistant's ingress proxy (X-Ingress-Path), the host the browser
 * talked to (X-Forwarded-Host). A page cannot forge those headers: a cross-site request carrying
 * them needs a CORS preflight, and the preflight itself is refused here. Requests without Origin
 * (curl, apps) pass, except an unsafe method that the browser marks cross-site (Sec-Fetch-Site),
 * as a form post from a page with a hidden origin can be.
 */
export function foreignOriginReason(request: IncomingMessage, config: AppConfig): string | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) {
    const site = request.headers['sec-fetch-site'];
    if (site === 'cross-site' && !SAFE_METHODS.has(request.method ?? 'GET'))
      return 'cross-site request without Origin';
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `opaque origin ${origin.slice(0, 100)}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `origin ${url.protocol} scheme`;
  const forwardedHost = request.headers['x-forwarded-host'];
  if (typeof request.headers['x-ingress-path'] === 'string' && typeof forwardedHost === 'string') {
    if (forwardedHost.split(',')[0]!.trim().toLowerCase() === url.host) return undefined;
  }
  const foreign = `foreign origin ${url.origin.slice(0, 100)}`;
  const came = arrival(request);
  const originPort = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  if (url.protocol !== came.protocol || originPort !== came.port) return foreign;
  return isOwnHostname(url.hostname, request, config) ? undefined : foreign;
}
