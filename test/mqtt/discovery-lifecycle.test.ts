import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dsmrReading, SYSTEM_ID, waitForStatus } from './mqtt-context.js';
import {
  AVAILABILITY,
  configsIn,
  DSMR_KEYS,
  retained,
  startGateway,
  STATE,
  withBroker,
} from './discovery-peers.js';
import { TestSubscriber } from './test-subscriber.js';

test('discovery: broker killed and restarted mid-stream; publisher resumes, discovery and availability restored', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const { context } = await startGateway(t, broker);
  context.ctx.store.ingest(dsmrReading(Date.now()));
  await subscriber.waitFor('online', (m) => m.topic === AVAILABILITY && m.payload === 'online');
  await subscriber.close();

  await broker.kill();
  const down = await waitForStatus(
    context.ctx,
    'disconnected',
    (s) => s.state === 'retrying' && s.retry_in_ms !== undefined,
  );
  assert.ok(
    Number(down.retry_in_ms) >= 500 && Number(down.retry_in_ms) <= 1000,
    `first retry after ${String(down.retry_in_ms)} ms`,
  );
  context.ctx.store.ingest(dsmrReading(Date.now() + 1000, 1));
  await waitForStatus(context.ctx, 'report queued', (s) => s.queued === 1);

  await broker.start();
  await waitForStatus(
    context.ctx,
    'reconnected',
    (s) => s.link === 'connected' && s.connects === 2 && s.queued === 0,
  );
  const kept = await retained(broker, ['homeassistant/#', 'meter-gateway/#']);
  assert.deepEqual([...configsIn(kept).keys()].sort(), DSMR_KEYS, 'configs re-sent to the empty broker');
  assert.deepEqual(
    kept.filter((m) => m.topic === AVAILABILITY).map((m) => m.payload),
    ['online'],
  );

  const after = await TestSubscriber.connect(broker.url, ['meter-gateway/#']);
  t.after(() => after.close());
  context.ctx.store.ingest(dsmrReading(Date.now() + 2000, 2));
  const report = await after.waitFor(
    'report after restart',
    (m) => m.topic === `meter-gateway/${SYSTEM_ID}/report`,
  );
  assert.equal(JSON.parse(report.payload).P_In, 4.412);
  await after.waitFor(
    'state after restart',
    (m) => m.topic === STATE && JSON.parse(m.payload).power_active_positive === 4.412,
  );
});

test('discovery: the last will marks entities offline when the gateway process dies', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const fixture = fileURLToPath(
    new URL(`./fixtures/gateway-process${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
  );
  const stateDir = mkdtempSync(join(tmpdir(), 'meter-gateway-mqtt-'));
  const args = [...(fixture.endsWith('.ts') ? ['--import', 'tsx'] : []), fixture, broker.url, stateDir];
  const gateway = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  t.after(() => {
    gateway.kill('SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  });
  await subscriber.waitFor('online', (m) => m.topic === AVAILABILITY && m.payload === 'online', 0, 30_000);
  const beforeKill = subscriber.mark();
  const exited = once(gateway, 'exit');
  gateway.kill('SIGKILL');
  await exited;
  const will = await subscriber.waitFor('last will', (m) => m.topic === AVAILABILITY, beforeKill);
  assert.equal(will.payload, 'offline');
  assert.deepEqual(
    (await retained(broker, [AVAILABILITY])).map((m) => m.payload),
    ['offline'],
    'the will is retained',
  );
});
