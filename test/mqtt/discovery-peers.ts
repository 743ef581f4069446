import { readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { PROC_NET_WIRELESS, wifiSignalOf } from '../../src/mqtt/ha-gateway-facts.js';
import { requireCommand } from '../helpers/environment.js';
import { createMqttService, type MqttService } from '../../src/mqtt/publisher.js';
import { startMosquitto, type MosquittoBroker } from './mosquitto-broker.js';
import {
  mqttTestContext,
  publisherEnv,
  SYSTEM_ID,
  waitForStatus,
  type MqttTestContext,
} from './mqtt-context.js';
import { TestSubscriber, type ReceivedMessage } from './test-subscriber.js';
import { runOutput } from '../../src/output-runner.js';
import type { VirtualClock } from '../helpers/virtual-clock.js';

/** Shared pieces of the discovery tests: topics, the keys dsmrReading announces, broker and gateway set-up. */
export const CONFIG_PREFIX = `homeassistant/sensor/${SYSTEM_ID}/`;
export const STATE = `meter-gateway/${SYSTEM_ID}/state`;
export const AVAILABILITY = `meter-gateway/${SYSTEM_ID}/availability`;
/**
 * The sensors: what dsmrReading sends (tariff energy with derived totals, power in and out with the
 * net power, L1 voltage and current, gas), the meter status and the gateway's diagnostics (Wi-Fi
 * signal only on a machine with Wi-Fi).
 */
export const DSMR_KEYS = [
  'current_l1',
  'energy_active_negative',
  'energy_active_negative_t1',
  'energy_active_negative_t2',
  'energy_active_positive',
  'energy_active_positive_t1',
  'energy_active_positive_t2',
  'firmware',
  'ip_address',
  'mbus_1',
  'meter_status',
  'power_active_negative',
  'power_active_net',
  'power_active_positive',
  'tariff',
  'uptime',
  'voltage_l1',
  ...(hasWifi() ? ['wifi_signal'] : []),
].sort();

/** Whether this machine has a Wi-Fi interface with a signal level (the gateway then announces it). */
function hasWifi(): boolean {
  try {
    return wifiSignalOf(readFileSync(PROC_NET_WIRELESS, 'utf8')) !== undefined;
  } catch {
    return false;
  }
}

export const keyOf = (message: ReceivedMessage, prefix = CONFIG_PREFIX): string | undefined =>
  message.topic.startsWith(prefix) && message.topic.endsWith('/config')
    ? message.topic.slice(prefix.length, -'/config'.length)
    : undefined;

export function configsIn(messages: readonly ReceivedMessage[], prefix = CONFIG_PREFIX): Map<string, string> {
  const configs = new Map<string, string>();
  for (const message of messages) {
    const key = keyOf(message, prefix);
    if (key !== undefined) configs.set(key, message.payload);
  }
  return configs;
}

/** The retained messages of the broker below `topics`, as a fresh client sees them. */
export async function retained(broker: MosquittoBroker, topics: string[]): Promise<ReceivedMessage[]> {
  const fresh = await TestSubscriber.connect(broker.url, topics);
  await fresh.sync();
  await fresh.close();
  return fresh.messages.filter((message) => message.retain);
}

export async function startGateway(
  t: TestContext,
  broker: MosquittoBroker,
  env: Record<string, string> = {},
  staleAfterMs?: number,
  clock?: VirtualClock,
) {
  const context: MqttTestContext = mqttTestContext(publisherEnv(broker.url, env), {
    ...(staleAfterMs !== undefined ? { staleAfterMs } : {}),
    ...(clock ? { clock } : {}),
  });
  const service: MqttService = createMqttService(context.ctx);
  const running = runOutput(context.ctx, service);
  t.after(async () => {
    // The broker may be gone by now: the link's end timeout must pass on the virtual clock too.
    await (clock ? clock.settle(running.stop(), 50) : running.stop());
    context.close();
  });
  await running.start();
  await waitForStatus(context.ctx, 'connected', (s) => s.link === 'connected');
  return { context, service };
}

export async function withBroker(
  t: TestContext,
): Promise<{ broker: MosquittoBroker; subscriber: TestSubscriber } | undefined> {
  if (!requireCommand(t, 'mosquitto')) return undefined;
  const broker = await startMosquitto();
  const subscriber = await TestSubscriber.connect(broker.url, [
    'homeassistant/#',
    'ha-test/#',
    'meter-gateway/#',
  ]);
  t.after(async () => {
    await subscriber.close();
    await broker.stop();
  });
  return { broker, subscriber };
}
