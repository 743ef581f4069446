import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { AppConfig } from '../config/types.js';

/** Methods that change nothing (RFC 9110 §9.2.1): a cross-site navigation to them is harmless. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function bare(hostname: string): string {
  const lower = hostname.toLowerCase().replace(/\.$/, '');
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.startsWith('::ffff:') && unbracketed.includes('.') ? unbracketed.slice(7) : unbracketed;
}

/**
 * Whether `hostname` names this device: its host name or `<host name>.local` (mDNS), localhost,
 * the address the request arrived at, or an address of one of its interfaces.
 */
function isOwnHostname(hostname: string, request: IncomingMessage, config: AppConfig): boolean {
  const name = bare(hostname);
  const hostName = bare(config.system.host_name);
  if (name === 'localhost' || (hostName !== '' && (name === hostName || name === `${hostName}.local`)))
    return true;
  if (request.socket.localAddress && name === bare(request.socket.localAddress)) return true;
  return Object.values(networkInterfaces()).some((addresses) =>
    (addresses ?? []).some((address) => bare(address.address) === name),
  );
}

/**
 * Why a browser request comes from a foreign page, or undefined when it does not
 * (docs/architecture.md#cross-site-requests). The Origin (RFC 6454) must name this device: one of
 * its own host names or addresses, or, behind Home Assistant's ingress proxy (X-Ingress-Path), the
 * host the browser talked to (X-Forwarded-Host). A page cannot forge those headers: a cross-site
 * request carrying them needs a CORS preflight, and the preflight itself is refused here. Requests
 * without Origin (curl, apps) pass, except an unsafe method that the browser marks cross-site
 * (Sec-Fetch-Site), as a form post from a page with a hidden origin can be.
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
  return isOwnHostname(url.hostname, request, config)
    ? undefined
    : `foreign origin ${url.origin.slice(0, 100)}`;
}
