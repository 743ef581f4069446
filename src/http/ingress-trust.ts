import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../config/types.js';

/**
 * Requests through Home Assistant's ingress (docs/architecture.md#ingress-sign-in). Home Assistant
 * signs the user in and forwards the panel's requests to the Supervisor, which proxies them to the
 * add-on from its fixed address on the add-on network (172.30.32.2: the second host of the
 * Supervisor's 172.30.32.0/23 network) with X-Ingress-Path set; the Supervisor drops any
 * X-Remote-User-* the browser sent and sets them from the ingress session. Such a request is
 * trusted only while running as an add-on (addon.enable) and only from exactly that address:
 * the headers alone prove nothing, anyone can send them.
 */
export function isIngressRequest(request: IncomingMessage, config: AppConfig): boolean {
  if (!config.addon.enable) return false;
  if (typeof request.headers['x-ingress-path'] !== 'string') return false;
  const address = (request.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  return address === config.addon.ingress_proxy;
}

/** The Home Assistant user of an ingress request, for the log. */
export function ingressUser(request: IncomingMessage): string {
  const name = request.headers['x-remote-user-name'] ?? request.headers['x-remote-user-id'];
  return typeof name === 'string' ? name : 'unknown user';
}
