// The day-ahead price sensors on a real broker: Home Assistant configs of the import and export
// price (monetary, EUR/kWh) and their retained messages with the Nord Pool integration's
// raw_today / raw_tomorrow attribute shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMqttService } from '../../src/mqtt/publisher.js';
import { runOutput } from '../../src/output-runner.js';
import type { PriceSignal, QuarterPrice } from '../../src/price-signal.js';
import { retained, withBroker } from './discovery-peers.js';
import { mqttTestContext, publisherEnv, SYSTEM_ID, waitForStatus } from './mqtt-context.js';

const Q = 900_000;

/** Every quarter from the start of yesterday to the end of today (local), import i / 1000. */
function series(now: number): PriceSignal {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  const from = midnight.getTime();
  const to = new Date(midnight.getFullYear(), midnight.getMonth(), midnight.getDate() + 1).getTime();
  const at = (start: number): QuarterPrice => ({
    start,
    end: start + Q,
    import: (start - from) / Q / 1000,
    export: -0.001,
    estimated: false,
  });
  return {
    quarterAt: (time) => (time >= from && time < to ? at(time - ((time - from) % Q)) : undefined),
    quarters: (a, b) => {
      const out: QuarterPrice[] = [];
      for (let s = Math.max(from, a - ((a - from) % Q)); s < Math.min(b, to); s += Q)
        if (s + Q > a) out.push(at(s));
      return out;
    },
    onChange: () => () => undefined,
  };
}

test('price sensors: monetary EUR/kWh configs and retained messages with raw_today and raw_tomorrow', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const context = mqttTestContext(
    publisherEnv(broker.url, {
      METER_GATEWAY_MQTT_DISCOVERY_ENABLE: 'true',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_NAME: 'energy_charts',
      METER_GATEWAY_SERVICES_COSTS_SOURCE_ZONE: 'BE',
    }),
  );
  context.ctx.prices = series(context.ctx.now());
  const running = runOutput(context.ctx, createMqttService(context.ctx));
  t.after(async () => {
    await running.stop();
    context.close();
  });
  await running.start();
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  const topic = `meter-gateway/${SYSTEM_ID}/prices/import`;
  await subscriber.waitFor('import price message', (m) => m.topic === topic);
  await subscriber.waitFor(
    'export price config',
    (m) => m.topic === `homeassistant/sensor/${SYSTEM_ID}/price_export/config`,
  );
  const kept = await retained(broker, ['homeassistant/#', `meter-gateway/${SYSTEM_ID}/prices/#`]);
  const config = JSON.parse(
    kept.find((m) => m.topic === `homeassistant/sensor/${SYSTEM_ID}/price_import/config`)!.payload,
  ) as Record<string, unknown>;
  assert.equal(config.device_class, 'monetary');
  assert.equal(config.unit_of_measurement, 'EUR/kWh');
  assert.equal(config.state_topic, topic);
  assert.equal(config.json_attributes_topic, topic);
  const message = JSON.parse(kept.find((m) => m.topic === topic)!.payload) as {
    value: number;
    raw_today: Array<{ start: string; end: string; value: number }>;
    raw_tomorrow: unknown[];
  };
  assert.ok([92, 96, 100].includes(message.raw_today.length));
  assert.deepEqual(Object.keys(message.raw_today[0]!), ['start', 'end', 'value']);
  assert.equal(message.raw_today[1]!.value, 0.001);
  assert.equal(Date.parse(message.raw_today[0]!.end) - Date.parse(message.raw_today[0]!.start), Q);
  assert.deepEqual(message.raw_tomorrow, []);
  assert.equal(message.value, context.ctx.prices.quarterAt(context.ctx.now())!.import);
  const exported = JSON.parse(
    kept.find((m) => m.topic === `meter-gateway/${SYSTEM_ID}/prices/export`)!.payload,
  ) as { value: number };
  assert.equal(exported.value, -0.001);
});

test('a price source set at runtime announces the two sensors at once; switched off, their configs and messages are cleared', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const context = mqttTestContext(publisherEnv(broker.url, { METER_GATEWAY_MQTT_DISCOVERY_ENABLE: 'true' }));
  context.ctx.prices = series(context.ctx.now());
  const running = runOutput(context.ctx, createMqttService(context.ctx));
  t.after(async () => {
    await running.stop();
    context.close();
  });
  await running.start();
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  const configTopic = (direction: string) => `homeassistant/sensor/${SYSTEM_ID}/price_${direction}/config`;
  const priceTopic = `meter-gateway/${SYSTEM_ID}/prices/import`;
  // The gateway's own entities are announced, no price sensor yet.
  await subscriber.waitFor(
    'a gateway config',
    (m) => m.topic.startsWith(`homeassistant/`) && m.payload !== '',
  );
  const priceConfigs = async () =>
    (await retained(broker, ['homeassistant/#']))
      .filter((m) => m.topic.includes('/price_'))
      .map((m) => m.topic);
  assert.deepEqual(await priceConfigs(), []);
  // mode dynamic with a source, as the settings page writes it: announced without a reconnect.
  const enabled = subscriber.mark();
  assert.ok(
    context.ctx.config.apply(
      new Map<string, unknown>([
        ['services.costs.import.mode', 'dynamic'],
        ['services.costs.source.name', 'energy_charts'],
        ['services.costs.source.zone', 'BE'],
      ]),
    ).ok,
  );
  for (const direction of ['import', 'export'])
    await subscriber.waitFor(
      `the ${direction} price config`,
      (m) => m.topic === configTopic(direction) && m.payload !== '',
      enabled,
    );
  await subscriber.waitFor(
    'the import price message',
    (m) => m.topic === priceTopic && m.payload !== '',
    enabled,
  );
  assert.deepEqual((await priceConfigs()).sort(), [configTopic('export'), configTopic('import')]);
  assert.equal(context.ctx.services.get('mqtt')?.link, 'connected');
  // Switched off again: empty retained configs and price messages.
  const disabled = subscriber.mark();
  assert.ok(
    context.ctx.config.apply(
      new Map<string, unknown>([
        ['services.costs.import.mode', 'fixed'],
        ['services.costs.source.name', 'none'],
      ]),
    ).ok,
  );
  for (const direction of ['import', 'export'])
    await subscriber.waitFor(
      `the ${direction} price config cleared`,
      (m) => m.topic === configTopic(direction) && m.payload === '',
      disabled,
    );
  await subscriber.waitFor(
    'the import price cleared',
    (m) => m.topic === priceTopic && m.payload === '',
    disabled,
  );
  assert.deepEqual(await priceConfigs(), []);
  const kept = await retained(broker, [`meter-gateway/${SYSTEM_ID}/prices/#`]);
  assert.deepEqual(kept, []);
});
