import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { hostname as osHostname, networkInterfaces } from 'node:os';
import type { AppConfig } from '../config/types.js';
import { isIngressRequest } from './ingress-trust.js';

/** Methods that only read (RFC 9110 §9.2.1) and that a browser sends without a preflight. */
const READ_METHODS = new Set(['GET', 'HEAD']);

/** Default ports of the schemes an Origin may have (RFC 9110 §4.2.1, §4.2.2). */
const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * Name suffixes that no public DNS server answers, so that a page on the Internet cannot rebind
 * them to this device (docs/architecture.md#cross-site-requests): `.local` is multicast DNS on
 * the link only (RFC 6762 §3), `.localhost` is loopback (RFC 6761 §6.3), `.home.arpa` is the
 * home network's own zone (RFC 8375), `.internal` is reserved for private use (ICANN board
 * resolution 2024.07.29.06), and `.lan` and `.home` (the home routers' usual zones) are not
 * delegated in the root zone (`.home` is among the names ICANN will not delegate, name collision
 * report of 2014).
 */
const PRIVATE_SUFFIXES = ['.local', '.localhost', '.home.arpa', '.internal', '.lan', '.home'];

/** The setting that lists further names of the device, and its environment variable. */
export const ALLOWED_HOSTS_SETTING = 'http.allowed_hosts';
export const ALLOWED_HOSTS_ENV = 'METER_GATEWAY_HTTP_ALLOWED_HOSTS';

/** Why a browser request is refused, with the address the page was at (for the page's message). */
export interface OriginRefusal {
  reason: string;
  /** The page's address (`host[:port]`) as the browser named it, when known. */
  address?: string;
  /**
   * Whether the page was served under that address (the same origin as the request): only then
   * does naming the address in `http.allowed_hosts` let it write.
   */
  sameOrigin: boolean;
}

function bare(hostname: string): string {
  const lower = hostname.trim().toLowerCase().replace(/\.$/, '');
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.startsWith('::ffff:') && unbracketed.includes('.') ? unbracketed.slice(7) : unbracketed;
}

/** `localhost`, a `.localhost` name (RFC 6761 §6.3) or a loopback address (127.0.0.0/8, ::1). */
function isLoopback(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return name === '::1';
}

/** An authority (`host`, `host:port`, `[v6]:port`) as its bare host name and its port, if any. */
function splitAuthority(authority: string): { name: string; port: number | undefined } {
  const text = authority.trim();
  const match = /:(\d{1,5})$/.exec(text);
  if (!match || (text.startsWith('[') && !text.includes(']:')) || (!text.startsWith('[') && isIP(text) === 6))
    return { name: bare(text), port: undefined };
  return { name: bare(text.slice(0, -match[0].length)), port: Number(match[1]) };
}

/**
 * The entries of `http.allowed_hosts`: comma-separated names or addresses, each optionally with a
 * port (`nas.example.net`, `meter.example.net:8443`, `[fd00::5]:80`); without a port any port.
 */
export function allowedHostsOf(config: AppConfig): { name: string; port: number | undefined }[] {
  return config.http.allowed_hosts
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map(splitAuthority);
}

/**
 * Whether `name` is a name of this device: its configured host name or the machine's (and their
 * `.local` names, RFC 6762), a loopback name, the address the request arrived at, an address of
 * one of its interfaces, or an entry of `http.allowed_hosts` (with its port, if it has one).
 */
function isOwnName(
  name: string,
  port: number | undefined,
  request: IncomingMessage,
  config: AppConfig,
): boolean {
  if (isLoopback(name)) return true;
  for (const own of [bare(config.system.host_name), bare(osHostname()).split('.')[0] ?? '']) {
    if (own !== '' && (name === own || name === `${own}.local`)) return true;
  }
  if (name === bare(osHostname())) return true;
  if (request.socket.localAddress && name === bare(request.socket.localAddress)) return true;
  if (
    allowedHostsOf(config).some(
      (entry) => entry.name === name && (entry.port === undefined || entry.port === port),
    )
  )
    return true;
  return Object.values(networkInterfaces()).some((addresses) =>
    (addresses ?? []).some((address) => bare(address.address) === name),
  );
}

/**
 * Whether a page on the Internet cannot make a browser resolve `name` to this device (DNS
 * rebinding needs a name whose DNS answers the attacker controls): an IP address (no resolver at
 * all), a single-label name (the local resolver or hosts file), or a name under a suffix that
 * public DNS does not answer.
 */
function isUnrebindable(name: string): boolean {
  if (isIP(name) !== 0) return true;
  if (!name.includes('.')) return true;
  return PRIVATE_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/**
 * Whether a page at this name may use the device: one of its names, or a name no outsider can
 * rebind; or any name behind Home Assistant's ingress, whose requests come from the Supervisor's
 * address (a rebinding page talks to the device directly) for a user Home Assistant signed in,
 * also at a public name such as Home Assistant's remote access.
 */
function isTrustedName(
  name: string,
  port: number | undefined,
  request: IncomingMessage,
  config: AppConfig,
): boolean {
  return isUnrebindable(name) || isIngressRequest(request, config) || isOwnName(name, port, request, config);
}

/**
 * The scheme the browser used: http (the daemon serves no TLS) unless a TLS-terminating proxy
 * says `X-Forwarded-Proto: https`.
 */
function arrivalScheme(request: IncomingMessage): string {
  const forwarded = request.headers['x-forwarded-proto'];
  const proto = typeof forwarded === 'string' ? forwarded.split(',')[0]!.trim().toLowerCase() : 'http';
  return `${proto}:`;
}

/**
 * The addresses the browser may have sent the request to, with the scheme's default port filled
 * in: the Host header (RFC 9110 §7.2), or the socket's address without one; and the first
 * X-Forwarded-Host of a proxy in front (a page can set that header only on a request to its own
 * origin, and the name then passes the same check as the Host header's).
 */
function arrivalAddresses(
  request: IncomingMessage,
  scheme: string,
): { name: string; port: number | undefined }[] {
  const found: { name: string; port: number | undefined }[] = [];
  const withDefault = (authority: string) => {
    const parsed = splitAuthority(authority);
    return { name: parsed.name, port: parsed.port ?? DEFAULT_PORTS[scheme] };
  };
  const host = request.headers.host;
  if (typeof host === 'string' && host.trim() !== '') found.push(withDefault(host));
  else if (request.socket.localAddress)
    found.push({ name: bare(request.socket.localAddress), port: request.socket.localPort });
  const forwarded = request.headers['x-forwarded-host'];
  if (typeof forwarded === 'string' && forwarded.trim() !== '')
    found.push(withDefault(forwarded.split(',')[0]!));
  return found;
}

function display(name: string, port: number | undefined): string {
  const host = isIP(name) === 6 ? `[${name}]` : name;
  return port === undefined ? host : `${host}:${port}`;
}

/**
 * Why a browser request comes from a page that may not use the device, or undefined when it may
 * (docs/architecture.md#cross-site-requests). Files of the web interface are never refused (the
 * dispatcher does not ask for them). A request with an `Origin` (RFC 6454) must come from the
 * page's own origin: the scheme, host and port the request was sent to (its Host header, or a
 * proxy's X-Forwarded-Host), or an origin listed in `http.allowed_hosts`; a cross-site page can
 * set neither header, as custom headers need a preflight and the preflight is refused here. The
 * page's name must also be one that no outsider can rebind, or one of the device's names (DNS
 * rebinding: the attacker's page is then same-origin under the attacker's own name). A browser
 * request without Origin (same-origin reads, navigations) is held to the name check only, and
 * refused when it is an unsafe method marked cross-site (Sec-Fetch-Site), as a form post from a
 * page with a hidden origin can be. Requests that no browser sent (curl, apps) pass unchanged.
 */
export function originRefusal(request: IncomingMessage, config: AppConfig): OriginRefusal | undefined {
  const origin = request.headers.origin;
  const scheme = arrivalScheme(request);
  const arrivals = arrivalAddresses(request, scheme);
  // Every name the request carries: a same-origin page may add X-Forwarded-Host itself.
  const refuseName = (reason: string): OriginRefusal | undefined => {
    const address = arrivals.find((arrival) => !isTrustedName(arrival.name, arrival.port, request, config));
    if (!address) return undefined;
    return { reason, address: display(address.name, address.port), sameOrigin: true };
  };
  if (origin === undefined) {
    const site = request.headers['sec-fetch-site'];
    if (site === undefined) return undefined;
    if (site === 'cross-site' && !READ_METHODS.has(request.method ?? 'GET'))
      return { reason: 'cross-site request without Origin', sameOrigin: false };
    return refuseName('browser request to a name that may be rebound');
  }
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return { reason: `opaque origin ${origin.slice(0, 100)}`, sameOrigin: false };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { reason: `origin ${url.protocol} scheme`, sameOrigin: false };
  const name = bare(url.hostname);
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  const listed = allowedHostsOf(config).some(
    (entry) => entry.name === name && (entry.port === undefined || entry.port === port),
  );
  if (listed) return undefined;
  const foreign = `foreign origin ${url.origin.slice(0, 100)}`;
  if (url.protocol !== scheme) return { reason: foreign, sameOrigin: false };
  if (!arrivals.some((arrival) => arrival.name === name && arrival.port === port))
    return { reason: foreign, address: display(name, port), sameOrigin: false };
  if (isTrustedName(name, port, request, config)) return undefined;
  return {
    reason: `origin ${url.origin.slice(0, 100)} at a name that may be rebound`,
    address: display(name, port),
    sameOrigin: true,
  };
}
