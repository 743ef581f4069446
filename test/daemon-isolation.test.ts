import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../src/daemon.js';
import { linesLogger } from './helpers/log-lines.js';
import { waitFor } from './helpers/wait.js';

test('an output whose listeners throw is counted and logged; the daemon and the other outputs go on', async () => {
  const lines: string[] = [];
  const daemon = Daemon.create({
    stateDir: mkdtempSync(join(tmpdir(), 'mg-isolation-')),
    env: {
      METER_GATEWAY_HTTP_HOST: '127.0.0.1',
      METER_GATEWAY_HTTP_PORT: '0',
      METER_GATEWAY_SERVICES_BROADCAST: 'false',
      METER_GATEWAY_METER_SIMULATOR_INTERVAL: '0.1',
    },
    logger: linesLogger(lines, 'info'),
  });
  const { store, config, services } = daemon.context;
  let healthyReadings = 0;
  let healthyChanges = 0;
  store.subscribe('faulty', 'reading', () => {
    throw new Error('reading handler broke');
  });
  store.subscribe('healthy', 'reading', () => {
    healthyReadings += 1;
  });
  config.subscribe('faulty', 'change', () => {
    throw new Error('cannot apply');
  });
  // An output that fails while it reconciles, after the write has returned to the event loop.
  config.subscribe('lagging', 'change', async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    throw new Error('port in use');
  });
  config.subscribe('healthy', 'change', () => {
    healthyChanges += 1;
  });
  await daemon.start();
  try {
    await waitFor(
      'three readings past the faulty listener',
      () => healthyReadings,
      (n) => n >= 3,
    );
    assert.ok((store.failureCounts.get('faulty') ?? 0) >= 3);
    assert.ok(lines.some((line) => line.includes('faulty failed on reading: reading handler broke')));

    const http = services.get('http') as unknown as { port: number };
    const baseUrl = `http://127.0.0.1:${http.port}`;
    const put = await fetch(`${baseUrl}/api/v1/settings`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ services: { report_interval: 17 } }),
    });
    assert.equal(put.status, 500);
    const body = (await put.json()) as { error: string; message: string; details: Record<string, unknown> };
    assert.equal(body.error, 'internal_error');
    assert.match(body.message, /not applied by: faulty, lagging/);
    assert.deepEqual(body.details, {
      saved: true,
      failed: [
        { output: 'faulty', message: 'cannot apply' },
        { output: 'lagging', message: 'port in use' },
      ],
    });
    assert.equal(healthyChanges, 1, 'the change reached the outputs after the faulty one');
    assert.equal(config.config.services.report_interval, 17, 'the stored setting stays consistent');

    const system = (await (await fetch(`${baseUrl}/api/v1/system`)).json()) as {
      services: Record<string, { listener_errors?: number }>;
    };
    assert.ok((system.services.faulty?.listener_errors ?? 0) >= 4, JSON.stringify(system.services));
    const before = healthyReadings;
    await waitFor(
      'readings to go on after the failures',
      () => healthyReadings,
      (n) => n > before,
    );
  } finally {
    await daemon.stop();
  }
});
