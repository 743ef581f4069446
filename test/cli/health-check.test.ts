import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startDaemonProcess } from '../helpers/daemon-process.js';
import { repoRoot } from '../helpers/environment.js';
import { waitFor } from '../helpers/wait.js';

/** A TCP port this test holds on 127.0.0.1, so the daemon cannot listen there. */
async function occupiedPort(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

interface SystemBody {
  services?: Record<string, { state: string }>;
  health: { status: string; failed: { output: string; error: string }[] };
}

/** The container's HEALTHCHECK command against the daemon on `port`. */
function healthCheck(port: number): { status: number | null; stdout: string } {
  const result = spawnSync(
    process.execPath,
    [join(repoRoot, 'dist', 'src', 'health-check.js'), '--port', String(port)],
    { encoding: 'utf8', timeout: 20_000 },
  );
  return { status: result.status, stdout: result.stdout };
}

test('a Modbus slave that cannot listen: /api/v1/system names it, the health command fails, then recovers', async (t) => {
  const holder = await occupiedPort();
  t.after(() => holder.close());
  const taken = (holder.address() as { port: number }).port;
  const state = mkdtempSync(join(tmpdir(), 'mg-health-'));
  const daemon = await startDaemonProcess(state, {
    METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'true',
    METER_GATEWAY_SERVICES_MODBUS_PORT: String(taken),
    METER_GATEWAY_MODBUS_TCP_HOST: '127.0.0.1',
  });
  t.after(() => daemon.stop());
  t.after(() => rmSync(state, { recursive: true, force: true }));
  const httpPort = Number(new URL(daemon.baseUrl).port);
  const systemOf = async () => (await (await fetch(`${daemon.baseUrl}/api/v1/system`)).json()) as SystemBody;

  const system = await waitFor(
    'the Modbus slave to report its failure',
    systemOf,
    (body) => body.services?.modbus?.state === 'retrying',
  );
  assert.equal(system.health.status, 'failing');
  assert.deepEqual(
    system.health.failed.map((entry) => entry.output),
    ['modbus'],
  );
  assert.match(system.health.failed[0]!.error, /EADDRINUSE/);

  const failing = healthCheck(httpPort);
  assert.equal(failing.status, 1);
  assert.match(failing.stdout, /^unhealthy: output failed: modbus \(.*EADDRINUSE.*\)$/m);

  // Moved to a port it can bind, the slave runs and the check passes again.
  const free = await occupiedPort();
  const freePort = (free.address() as { port: number }).port;
  await new Promise<void>((resolve) => free.close(() => resolve()));
  const put = await fetch(`${daemon.baseUrl}/api/v1/settings`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ services: { modbus: { port: freePort } } }),
  });
  assert.equal(put.status, 200, await put.text());
  await waitFor('the Modbus slave to run', systemOf, (body) => body.services?.modbus?.state === 'running');
  const healthy = healthCheck(httpPort);
  assert.equal(healthy.status, 0, healthy.stdout);
  assert.equal(healthy.stdout, 'healthy\n');
});

test('the health command fails when no daemon answers', () => {
  const result = healthCheck(1);
  assert.equal(result.status, 1);
  assert.match(result.stdout, /^unhealthy: the API does not answer/);
});

test('a silent meter: the health command says degraded, then unhealthy after health.max_reading_age_s', async (t) => {
  // A TCP meter source that accepts the connection and never sends a telegram.
  const silent = await occupiedPort();
  t.after(() => silent.close());
  const meterPort = (silent.address() as { port: number }).port;
  const state = mkdtempSync(join(tmpdir(), 'mg-health-meter-'));
  const daemon = await startDaemonProcess(state, {
    METER_GATEWAY_METER_SOURCE: `tcp://127.0.0.1:${meterPort}?protocol=dsmr`,
    METER_GATEWAY_METER_TIMEOUT: '1',
    METER_GATEWAY_HEALTH_MAX_READING_AGE_S: '4',
  });
  t.after(() => daemon.stop());
  t.after(() => rmSync(state, { recursive: true, force: true }));
  const httpPort = Number(new URL(daemon.baseUrl).port);
  const degraded = await waitFor(
    'the health command to say degraded',
    async () => healthCheck(httpPort),
    (result) => result.stdout.startsWith('healthy, degraded'),
    { intervalMs: 250 },
  );
  assert.equal(degraded.status, 0);
  assert.match(degraded.stdout, /^healthy, degraded: meter: no meter reading since the start \d+ s ago$/m);
  const failing = await waitFor(
    'the health command to fail',
    async () => healthCheck(httpPort),
    (result) => result.status === 1,
    { intervalMs: 250 },
  );
  assert.match(
    failing.stdout,
    /^unhealthy: meter: no meter reading since the start \d+ s ago \(health\.max_reading_age_s 4\)$/m,
  );
});
