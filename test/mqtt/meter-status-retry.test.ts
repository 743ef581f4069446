import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MeterInput } from '../../src/meter/meter-input.js';
import { runOutput } from '../../src/output-runner.js';
import { VirtualRetries } from '../meter/transport/virtual-retries.js';
import { startGateway, withBroker } from './discovery-peers.js';
import { SYSTEM_ID } from './mqtt-context.js';

const METER_STATUS = `meter-gateway/${SYSTEM_ID}/meter_status`;

test('Home Assistant meter status of a missing adapter: no RECOGNITION per retry through 5 minutes of retries at the 30 s cap', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const dir = mkdtempSync(join(tmpdir(), 'mg-status-mqtt-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { context } = await startGateway(t, broker, {
    METER_GATEWAY_METER_SOURCE: `serial:${join(dir, 'no-such-adapter')}?protocol=auto`,
  });
  await subscriber.waitFor('the first meter status', (m) => m.topic === METER_STATUS);
  const retries = new VirtualRetries();
  const input = runOutput(context.ctx, new MeterInput(context.ctx, context.ctx.logger, retries.timer));
  t.after(() => input.stop());
  await input.start();
  await retries.run(5 * 60_000);
  await subscriber.sync();

  const payloads = subscriber.on(METER_STATUS).map((m) => m.payload);
  assert.ok(retries.delays.filter((delay) => delay === 30_000).length >= 3, 'the 30 s cap was reached');
  assert.ok(retries.delays.length >= 8, `${retries.delays.length} attempts`);
  // The first attempt may show its probe starting; the retries add nothing.
  assert.ok(payloads.length <= 3, `meter status messages: ${payloads.join(' -> ')}`);
  assert.equal(payloads.at(-1), 'NOT CONNECTED');
  assert.ok(!payloads.includes('OK'));
  assert.ok(payloads.filter((payload) => payload === 'RECOGNITION').length <= 1);
});
