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
 * The names this device answers to: its host name and `<host name>.local` (mDNS), localhost, the
 * address the request arrived at, and every address of its interfaces.
 */
function ownHostnames(request: IncomingMessage, config: AppConfig): Set<string> {
  const names = new Set(['localhost']);
  const hostName = bare(config.system.host_name);
  if (hostName !== '') names.add(hostName).add(`${hostName}.local`);
  if (request.socket.localAddress) names.add(bare(request.socket.localAddress));
  for (const addresses of Object.values(networkInterfaces()))
    for (const address of addresses ?? []) names.add(bare(address.address));
  return names;
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
  return ownHostnames(request, config).has(bare(url.hostname))
    ? undefined
    : `foreign origin ${url.origin.slice(0, 100)}`;
}
