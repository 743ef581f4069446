import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMqttService } from '../../src/mqtt/publisher.js';
import { runOutput } from '../../src/output-runner.js';
import { waitFor } from '../helpers/wait.js';
import { publisherEnv, waitForStatus } from '../mqtt/mqtt-context.js';
import { retained, withBroker } from '../mqtt/discovery-peers.js';
import { recordingServer, startActionsRig } from './rig.js';

const SYSTEM_ID = 'A1B2C3D4E5F6';
const BUTTON = `homeassistant/button/${SYSTEM_ID}/action_plug/config`;
const COMMAND = `meter-gateway/${SYSTEM_ID}/action/plug/press`;

test('each enabled action is a Home Assistant button; pressing it over mosquitto calls the action', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const target = await recordingServer(200);
  const rig = await startActionsRig({ env: publisherEnv(broker.url) });
  const mqtt = runOutput(
    rig.ctx,
    createMqttService(rig.ctx, (id) => void rig.actions.call(id, 'Home Assistant button')),
  );
  try {
    await mqtt.start();
    await waitForStatus(rig.ctx, 'connected', (status) => status.link === 'connected');
    const answer = await rig.post({
      actions: [
        { id: 'plug', requests: [{ http: { url: `${target.url}/plug/on`, method: 'POST' } }] },
        { id: 'off', enable: false, requests: [{ http: { url: `${target.url}/off` } }] },
      ],
    });
    assert.equal(answer.status, 200);
    const announced = await subscriber.waitFor('the button config', (message) => message.topic === BUTTON);
    const kept = await retained(broker, [`homeassistant/button/${SYSTEM_ID}/+/config`]);
    assert.deepEqual(
      kept.map((message) => message.topic).filter((topic) => topic.includes('/action_')),
      [BUTTON],
      'one retained button, none for the disabled action',
    );
    const config = JSON.parse(announced.payload) as Record<string, unknown>;
    assert.equal(config.command_topic, COMMAND);
    assert.equal(config.payload_press, 'PRESS');
    assert.equal(config.unique_id, `meter-gateway-${SYSTEM_ID}-action_plug`);
    assert.deepEqual((config.device as { identifiers: unknown }).identifiers, [`meter-gateway-${SYSTEM_ID}`]);

    await subscriber.client.publishAsync(COMMAND, 'PRESS');
    await waitFor(
      'the pressed action to reach the target',
      () => target.requests.length,
      (n) => n === 1,
    );
    assert.deepEqual([target.requests[0]!.method, target.requests[0]!.url], ['POST', '/plug/on']);
    await waitFor(
      'the press to be counted',
      () => rig.actions.runner.countersOf().plug?.ok,
      (ok) => ok === 1,
    );

    const mark = subscriber.mark();
    assert.equal((await fetch(`${rig.baseUrl}/api/v1/actions`, { method: 'DELETE' })).status, 204);
    const cleared = await subscriber.waitFor(
      'the button removed',
      (message) => message.topic === BUTTON,
      mark,
    );
    assert.equal(cleared.payload, '');
  } finally {
    await mqtt.stop();
    await rig.close();
    await target.close();
  }
});
