import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ingressPanelUrl } from '../../src/addon/options.js';
import { AVAILABILITY, configsIn, retained, startGateway, withBroker } from '../mqtt/discovery-peers.js';
import { dsmrReading } from '../mqtt/mqtt-context.js';

test('as an add-on, the gateway device in Home Assistant discovery links to the ingress panel', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const link = ingressPanelUrl('a0d7b954_meter_gateway');
  const { context } = await startGateway(t, broker, { METER_GATEWAY_MQTT_DISCOVERY_CONFIGURATION_URL: link });
  context.ctx.store.ingest(dsmrReading(Date.now()));
  await subscriber.waitFor('online', (m) => m.topic === AVAILABILITY && m.payload === 'online');
  const configs = configsIn(await retained(broker, ['homeassistant/#']));
  const gateway = JSON.parse(configs.get('meter_status')!) as { device: { configuration_url: string } };
  assert.equal(gateway.device.configuration_url, 'homeassistant://hassio/ingress/a0d7b954_meter_gateway');
});
