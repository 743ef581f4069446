import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { MeterInput } from '../../src/meter/meter-input.js';
import { runOutput } from '../../src/output-runner.js';
import { gatewayContributor, type GatewayFacts } from '../../src/mqtt/ha-gateway-entities.js';
import { reachableAddress, wifiSignalOf } from '../../src/mqtt/ha-gateway-facts.js';
import { gatewayTopics } from '../../src/mqtt/discovery.js';
import { corpusDir, requireCorpus } from '../helpers/environment.js';
import { waitFor } from '../helpers/wait.js';
import { retained, startGateway, STATE, withBroker } from './discovery-peers.js';
import { SYSTEM_ID } from './mqtt-context.js';

const DIAGNOSTICS = `meter-gateway/${SYSTEM_ID}/diagnostics`;
const RESTART = `meter-gateway/${SYSTEM_ID}/restart`;
const BUTTON_CONFIG = `homeassistant/button/${SYSTEM_ID}/restart/config`;
const sensorConfig = (key: string): string => `homeassistant/sensor/${SYSTEM_ID}/${key}/config`;

test('gateway diagnostics: IP address, uptime and firmware are diagnostic sensors of the gateway with retained states', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const { context } = await startGateway(t, broker);
  await subscriber.waitFor('diagnostics state', (m) => m.topic === DIAGNOSTICS);
  const [state] = await retained(broker, [DIAGNOSTICS]);
  assert.ok(state, 'the diagnostics state is retained');
  const values = JSON.parse(state.payload) as Record<string, unknown>;
  assert.equal(values.firmware, '9.8.7');
  assert.equal(typeof values.uptime, 'number');
  assert.ok((values.uptime as number) >= 0);
  assert.equal(values.ip_address, reachableAddress(context.ctx.config.config.http));
  assert.equal(values.ip_address, '127.0.0.1', 'the API host when it is a specific address');

  const kept = await retained(broker, ['homeassistant/#']);
  const config = (key: string): Record<string, unknown> => {
    const message = kept.find((m) => m.topic === sensorConfig(key));
    assert.ok(message, `config of ${key}`);
    return JSON.parse(message.payload) as Record<string, unknown>;
  };
  for (const key of ['ip_address', 'uptime', 'firmware', 'meter_status']) {
    const entity = config(key);
    assert.equal(entity.entity_category, 'diagnostic', key);
    assert.deepEqual((entity.device as { identifiers: string[] }).identifiers, [
      `meter-gateway-${SYSTEM_ID}`,
    ]);
    assert.equal(entity.unique_id, `meter-gateway-${SYSTEM_ID}-${key}`);
    assert.equal(entity.expire_after, 180, `${key} expires when the gateway stops re-sending it`);
  }
  assert.equal(config('ip_address').state_topic, DIAGNOSTICS);
  assert.equal(config('ip_address').value_template, "{{ value_json.ip_address | default('') }}");
  assert.equal(config('uptime').device_class, 'duration');
  assert.equal(config('uptime').unit_of_measurement, 's');
  assert.equal(config('meter_status').state_topic, `meter-gateway/${SYSTEM_ID}/meter_status`);
});

test('restart button: a press over MQTT restarts the daemon by the reboot path; a retained press and a second press within 60 s do not', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const { context } = await startGateway(t, broker);
  const restarts: string[] = [];
  context.ctx.requestRestart = (reason) => restarts.push(reason);

  const button = JSON.parse(
    (await subscriber.waitFor('restart button config', (m) => m.topic === BUTTON_CONFIG)).payload,
  ) as Record<string, unknown>;
  assert.equal(button.command_topic, RESTART);
  assert.equal(button.payload_press, 'PRESS');
  assert.equal(button.device_class, 'restart');
  assert.equal(button.entity_category, 'config');
  assert.deepEqual((button.device as { identifiers: string[] }).identifiers, [`meter-gateway-${SYSTEM_ID}`]);

  // A retained press (left by a misconfigured client) must not restart at every reconnect.
  await subscriber.client.publishAsync(RESTART, 'PRESS', { qos: 1, retain: true });
  await subscriber.client.publishAsync(RESTART, '', { qos: 1, retain: true });
  await subscriber.client.publishAsync(RESTART, 'something else', { qos: 1 });
  await subscriber.client.publishAsync(RESTART, 'PRESS', { qos: 1 });
  await waitFor(
    'the restart request',
    () => restarts.length,
    (count) => count > 0,
  );
  assert.deepEqual(restarts, ['restart pressed in Home Assistant']);

  await subscriber.client.publishAsync(RESTART, 'PRESS', { qos: 1 });
  await waitFor(
    'the refusal to be logged',
    () => context.logLines.join('\n'),
    (log) => /ignored, a restart was requested less than 60 s ago/.test(log),
  );
  assert.equal(restarts.length, 1, 'the second press was refused, not run');
});

test('net power: the state of a replayed capture is import minus export, in kW like the other power sensors', async (t) => {
  if (!requireCorpus(t)) return;
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const capture = join(corpusDir, 'dsmr', 'ndokter_iskra_ie.txt');
  const { context } = await startGateway(t, broker, {
    METER_GATEWAY_METER_SOURCE: `file:${capture}?protocol=dsmr&interval=1&loop=true`,
  });
  const input = runOutput(context.ctx, new MeterInput(context.ctx, context.ctx.logger));
  t.after(() => input.stop());
  await input.start();
  const message = await subscriber.waitFor(
    'a state with the net power',
    (m) => m.topic === STATE && 'power_active_net' in (JSON.parse(m.payload) as object),
  );
  const state = JSON.parse(message.payload) as Record<string, number>;
  const values = context.ctx.store.latest!.values;
  const imported = values.get('1.7.0')!.value;
  const exported = values.get('2.7.0')!.value;
  assert.equal(imported, 0.17);
  assert.equal(exported, 0.27);
  assert.equal(state.power_active_net, -0.1, 'import minus export, without binary noise');
  assert.equal(state.power_active_net, Number((imported - exported).toFixed(9)));
  assert.equal(state.power_active_positive, imported);
  assert.equal(state.power_active_negative, exported);

  const configs = await retained(broker, [
    sensorConfig('power_active_net'),
    sensorConfig('power_active_positive'),
  ]);
  const net = JSON.parse(
    configs.find((m) => m.topic === sensorConfig('power_active_net'))!.payload,
  ) as Record<string, unknown>;
  const positive = JSON.parse(
    configs.find((m) => m.topic === sensorConfig('power_active_positive'))!.payload,
  ) as Record<string, unknown>;
  assert.equal(net.device_class, 'power');
  assert.equal(net.state_class, 'measurement');
  assert.equal(net.unit_of_measurement, positive.unit_of_measurement);
  assert.equal(net.unit_of_measurement, 'kW');
  assert.deepEqual(net.device, positive.device, 'on the meter device');
});

test('Wi-Fi signal: the level of /proc/net/wireless in dBm; announced only where there is Wi-Fi', () => {
  const wireless = [
    'Inter-| sta-|   Quality        |   Discarded packets               | Missed | WE',
    ' face | tus | link level noise |  nwid  crypt   frag  retry   misc | beacon | 22',
    ' wlan0: 0000   54.  -56.  -256        0      0      0      0     12        0',
  ].join('\n');
  assert.equal(wifiSignalOf(wireless), -56);
  assert.equal(wifiSignalOf(wireless.split('\n').slice(0, 2).join('\n')), undefined, 'no interface');
  assert.equal(wifiSignalOf(wireless.replace('-56.', '70.')), undefined, 'a level that is not dBm');

  let signal: number | undefined = -61;
  const facts: GatewayFacts = {
    ipAddress: () => '192.0.2.7',
    uptimeS: () => 5,
    wifiSignalDbm: () => signal,
    firmware: '1.0.0',
    restart: () => undefined,
  };
  const contribute = gatewayContributor(facts);
  const topics = gatewayTopics(SYSTEM_ID, 'homeassistant');
  const wifi = contribute(topics).find((c) => c.entity.key === 'wifi_signal');
  assert.ok(wifi);
  assert.equal(wifi.entity.deviceClass, 'signal_strength');
  assert.equal(wifi.entity.unit, 'dBm');
  assert.equal(wifi.entity.entityCategory, 'diagnostic');
  signal = undefined;
  assert.equal(
    contribute(topics).find((c) => c.entity.key === 'wifi_signal'),
    undefined,
    'no Wi-Fi, no entity',
  );
});
