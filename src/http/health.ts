import type { IncomingMessage } from 'node:http';
import type { AppContext, ServiceStatus } from '../context.js';
import { LISTENING_OUTPUTS, type OutputState } from '../contracts/outputs.js';

/**
 * Health of the process (docs/architecture.md#health): unhealthy while an enabled output that
 * serves clients on a port of its own could not open it (the Modbus TCP slave on a port it may not
 * bind, the RTU slave without its adapter, the raw telegram proxy). Links that retry by themselves
 * (MQTT broker, Wi-Fi) are no health failure: restarting the process mends none. The meter input
 * makes the process `degraded` while its latest reading is stale (meter.timeout), and unhealthy
 * once no reading came for `health.max_reading_age_s` (0: never): a gateway that serves nothing
 * measured for minutes is not healthy, whatever the reason.
 */

/** An output that does not run as configured: failed for good, or failed and retried by the runner. */
const FAILED_STATES: ReadonlySet<string> = new Set<OutputState>(['error', 'retrying']);

export const HEALTH_PATH = '/api/v1/health';

export interface HealthProblem {
  output: string;
  error: string;
}

export interface HealthView {
  status: 'ok' | 'degraded' | 'failing';
  failed: HealthProblem[];
  /** What makes the process degraded (still healthy for a container runtime). */
  degraded: HealthProblem[];
  /** Seconds since the latest valid meter reading (since the start while there was none). */
  reading_age_s: number;
}

/** The meter input as the health check sees it. */
export interface MeterFreshness {
  now: number;
  /** Time of the latest valid reading; undefined before the first. */
  lastReadingAt: number | undefined;
  /** Start of the process: the age of "no reading yet". */
  bootTime: number;
  /** The latest reading is stale (meter.timeout passed without a valid one). */
  stale: boolean;
  /** health.max_reading_age_s; 0: the reading age never makes the process unhealthy. */
  maxReadingAgeS: number;
}

export function healthOf(
  services: Readonly<Record<string, ServiceStatus>>,
  meter: MeterFreshness,
): HealthView {
  const failed: HealthProblem[] = LISTENING_OUTPUTS.filter((name) =>
    FAILED_STATES.has(services[name]?.state ?? ''),
  ).map((name) => ({
    output: name,
    error: String(services[name]!.error ?? services[name]!.reason ?? 'failed'),
  }));
  const degraded: HealthProblem[] = [];
  const age = Math.max(0, Math.floor((meter.now - (meter.lastReadingAt ?? meter.bootTime)) / 1000));
  const what =
    meter.lastReadingAt === undefined
      ? `no meter reading since the start ${age} s ago`
      : `no meter reading for ${age} s`;
  if (meter.maxReadingAgeS > 0 && age > meter.maxReadingAgeS)
    failed.push({ output: 'meter', error: `${what} (health.max_reading_age_s ${meter.maxReadingAgeS})` });
  else if (meter.stale) degraded.push({ output: 'meter', error: what });
  const status = failed.length > 0 ? 'failing' : degraded.length > 0 ? 'degraded' : 'ok';
  return { status, failed, degraded, reading_age_s: age };
}

/** The health of the daemon a context describes (its primary meter, services and settings). */
export function healthOfContext(ctx: AppContext): HealthView {
  return healthOf(ctx.services.snapshot(), {
    now: ctx.now(),
    lastReadingAt: ctx.store.lastReading?.receivedAt,
    bootTime: ctx.system.bootTime,
    stale: ctx.store.isStale(),
    maxReadingAgeS: ctx.config.config.health.max_reading_age_s,
  });
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
