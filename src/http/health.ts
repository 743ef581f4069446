import type { IncomingMessage } from 'node:http';
import type { ServiceStatus } from '../context.js';

/**
 * Health of the process (docs/architecture.md#health): unhealthy while an enabled output that
 * serves clients on a port of its own could not open it (the Modbus TCP slave on a port it may not
 * bind, the RTU slave without its adapter, the raw telegram proxy). Inputs and links that retry by
 * themselves (meter, MQTT broker, Wi-Fi) are no health failure: restarting the process mends none.
 */
const LISTENING_OUTPUTS = ['modbus', 'modbus_rtu', 'meter_proxy'];

export const HEALTH_PATH = '/api/v1/health';

export interface HealthView {
  status: 'ok' | 'failing';
  failed: { output: string; error: string }[];
}

export function healthOf(services: Readonly<Record<string, ServiceStatus>>): HealthView {
  const failed = LISTENING_OUTPUTS.filter((name) => services[name]?.state === 'error').map((name) => ({
    output: name,
    error: String(services[name]!.error ?? services[name]!.reason ?? 'failed'),
  }));
  return { status: failed.length === 0 ? 'ok' : 'failing', failed };
}

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}

/**
 * The health check answers without a password when asked from this host (the container's
 * HEALTHCHECK runs inside the container): it tells only which output failed and why.
 */
export function isLocalHealthCheck(request: IncomingMessage, path: string): boolean {
  return path === HEALTH_PATH && request.method === 'GET' && isLoopback(request.socket.remoteAddress);
}
