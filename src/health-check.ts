#!/usr/bin/env node
/**
 * The container's HEALTHCHECK (docs/architecture.md#health): asks the daemon on this host for
 * GET /api/v1/health and exits 0 when healthy, 1 when an enabled output failed (named on stdout,
 * which Docker and Podman keep in the container's health log) or when the API does not answer.
 *   node dist/src/health-check.js [--port N]   (default: METER_GATEWAY_HTTP_PORT, else 8080)
 */
import { parseArgs } from 'node:util';

interface Health {
  status: string;
  failed?: { output: string; error: string }[];
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { port: { type: 'string' } }, strict: true });
  const port = values.port ?? process.env.METER_GATEWAY_HTTP_PORT ?? '8080';
  // got, the project's HTTP client, loaded only by this short-lived command.
  const { got } = await import('got');
  try {
    const response = await got(`http://127.0.0.1:${port}/api/v1/health`, {
      timeout: { request: 4000 },
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
    const failed = (health.failed ?? []).map((entry) => `${entry.output} (${entry.error})`);
    process.stdout.write(`unhealthy: output failed: ${failed.join('; ')}\n`);
    return 1;
  } catch (error) {
    process.stdout.write(`unhealthy: the API does not answer: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main();
