// The fleet push targets as Home Assistant diagnostic sensors on a real broker: per target the
// state, backlog, last error and samples sent, read from one retained message; a removed target's
// configs and message are cleared (empty retained payloads).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PushOnMqtt } from '../../src/mqtt/ha-push.js';
import { createMqttService } from '../../src/mqtt/publisher.js';
import { runOutput } from '../../src/output-runner.js';
import type { PushStatus } from '../../src/push/push-client.js';
import { retained, withBroker } from './discovery-peers.js';
import { mqttTestContext, publisherEnv, SYSTEM_ID, waitForStatus } from './mqtt-context.js';

function target(id: string, state: PushStatus['state'], error: string | null): PushStatus {
  return {
    id,
    kind: 'remote_write',
    state,
    cursor: 1_790_000_100,
    backlog_quarters: 42,
    last_error: error,
    last_success: null,
    clock_skew_ms: null,
    counts: { sent: 1234, batches: 3, retried: 2, dropped_too_old: 0, dropped_rejected: 0 },
  };
}

test('push targets: diagnostic sensors per target, a removed target cleared', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  let targets = [target('fleet', 'backoff', 'HTTP 503: busy'), target('backup', 'idle', null)];
  const listeners = new Set<() => void>();
  const push: PushOnMqtt = {
    status: () => targets,
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const context = mqttTestContext(publisherEnv(broker.url, { METER_GATEWAY_MQTT_DISCOVERY_ENABLE: 'true' }));
  const running = runOutput(
    context.ctx,
    createMqttService(context.ctx, undefined, undefined, undefined, undefined, push),
  );
  t.after(async () => {
    await running.stop();
    context.close();
  });
  await running.start();
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  const config = (id: string, key: string) => `homeassistant/sensor/${SYSTEM_ID}/push_${id}_${key}/config`;
  const topic = (id: string) => `meter-gateway/${SYSTEM_ID}/push/${id}`;
  await subscriber.waitFor('fleet message', (m) => m.topic === topic('fleet'));
  await subscriber.waitFor('backup sent config', (m) => m.topic === config('backup', 'sent'));
  let kept = await retained(broker, ['homeassistant/#', `meter-gateway/${SYSTEM_ID}/push/#`]);
  const configOf = (id: string, key: string) =>
    JSON.parse(kept.find((m) => m.topic === config(id, key))!.payload) as Record<string, unknown>;
  for (const key of ['state', 'backlog', 'last_error', 'sent']) {
    const found = configOf('fleet', key);
    assert.equal(found.entity_category, 'diagnostic', key);
    assert.equal(found.state_topic, topic('fleet'), key);
  }
  assert.equal(configOf('fleet', 'state').device_class, 'enum');
  assert.ok((configOf('fleet', 'state').options as string[]).includes('clock_unsynced'));
  assert.equal(configOf('fleet', 'sent').state_class, 'total_increasing');
  const message = JSON.parse(kept.find((m) => m.topic === topic('fleet'))!.payload) as Record<
    string,
    unknown
  >;
  assert.equal(message.state, 'backoff');
  assert.equal(message.backlog_quarters, 42);
  assert.equal(message.last_error, 'HTTP 503: busy');
  assert.equal(message.sent, 1234);

  // The target "fleet" is removed from the settings: its configs and message are cleared.
  const since = subscriber.messages.length;
  targets = [target('backup', 'idle', null)];
  for (const listener of listeners) listener();
  await subscriber.waitFor(
    'fleet state config cleared',
    (m) => m.topic === config('fleet', 'state') && m.payload === '',
    since,
  );
  await subscriber.waitFor(
    'fleet message cleared',
    (m) => m.topic === topic('fleet') && m.payload === '',
    since,
  );
  kept = await retained(broker, ['homeassistant/#', `meter-gateway/${SYSTEM_ID}/push/#`]);
  assert.deepEqual(
    kept.filter((m) => m.topic.includes('push_fleet_') || m.topic === topic('fleet')).map((m) => m.topic),
    [],
  );
  assert.ok(kept.some((m) => m.topic === config('backup', 'state')));
});
