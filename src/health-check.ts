#!/usr/bin/env node
/**
 * The container's HEALTHCHECK (docs/architecture.md#health): asks the daemon on this host for
 * GET /api/v1/health and exits 0 when healthy (`ok`, or `degraded`: the meter reading is stale,
 * said on stdout), 1 when an enabled output failed or no meter reading came for
 * health.max_reading_age_s (named on stdout, which Docker and Podman keep in the container's health
 * log) or when the API does not answer within 9 s (the image's HEALTHCHECK allows 10 s).
 *   node dist/src/health-check.js [--port N]   (default: METER_GATEWAY_HTTP_PORT, else 8080)
 */
import { parseArgs } from 'node:util';

interface Health {
  status: string;
  failed?: { output: string; error: string }[];
  degraded?: { output: string; error: string }[];
}

/** The problems in words: `output failed: modbus (listen EADDRINUSE ...)`, `meter: no meter reading for 42 s`. */
function described(entries: { output: string; error: string }[]): string {
  return entries
    .map((entry) =>
      entry.output === 'meter' ? `meter: ${entry.error}` : `output failed: ${entry.output} (${entry.error})`,
    )
    .join('; ');
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { port: { type: 'string' } }, strict: true });
  const port = values.port ?? process.env.METER_GATEWAY_HTTP_PORT ?? '8080';
  // got, the project's HTTP client, loaded only by this short-lived command.
  const { got } = await import('got');
  try {
    const response = await got(`http://127.0.0.1:${port}/api/v1/health`, {
      timeout: { request: 9000 },
      retry: { limit: 0 },
      throwHttpErrors: false,
    });
    if (response.statusCode !== 200 && response.statusCode !== 503) {
      process.stdout.write(`unhealthy: HTTP ${response.statusCode} from the health check\n`);
      return 1;
    }
    const health = JSON.parse(response.body) as Health;
    if (health.status === 'ok') {
      process.stdout.write('healthy\n');
      return 0;
    }
    if (health.status === 'degraded') {
      process.stdout.write(`healthy, degraded: ${described(health.degraded ?? [])}\n`);
      return 0;
    }
    process.stdout.write(`unhealthy: ${described(health.failed ?? [])}\n`);
    return 1;
  } catch (error) {
    process.stdout.write(`unhealthy: the API does not answer: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
