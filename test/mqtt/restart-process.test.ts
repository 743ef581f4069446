import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemonProcess, type ListeningDaemon } from '../helpers/daemon-process.js';
import { withBroker } from './discovery-peers.js';

test('restart button under a supervisor: a press ends the daemon for its restart; started again, it announces itself anew', async (t) => {
  const peers = await withBroker(t);
  if (!peers) return;
  const { broker, subscriber } = peers;
  const state = mkdtempSync(join(tmpdir(), 'mg-restart-'));
  const env = { METER_GATEWAY_MQTT_ENABLE: 'true', METER_GATEWAY_MQTT_URL: broker.url };
  const running: ListeningDaemon[] = [];
  t.after(async () => {
    for (const daemon of running) await daemon.stop();
    rmSync(state, { recursive: true, force: true });
  });
  const first = await startDaemonProcess(state, env);
  running.push(first);
  const button = await subscriber.waitFor('the restart button config', (m) =>
    /^homeassistant\/button\/[0-9A-F]{12}\/restart\/config$/.test(m.topic),
  );
  const { command_topic: command } = JSON.parse(button.payload) as { command_topic: string };
  const availability = command.replace(/\/restart$/, '/availability');
  await subscriber.waitFor('online', (m) => m.topic === availability && m.payload === 'online');

  const pressed = subscriber.mark();
  await subscriber.client.publishAsync(command, 'PRESS', { qos: 1 });
  const code = await first.exited;
  assert.equal(code, 0, 'a clean exit, for systemd (Restart=always) to start it again');
  assert.match(first.output(), /restart requested: restart pressed in Home Assistant/);
  // Entities unavailable while it restarts (its farewell before DISCONNECT).
  await subscriber.waitFor('offline', (m) => m.topic === availability && m.payload === 'offline', pressed);

  // The supervisor's part: start it again; it comes back with its entities available.
  const since = subscriber.mark();
  running.push(await startDaemonProcess(state, env));
  await subscriber.waitFor('the button config again', (m) => m.topic === button.topic, since);
  await subscriber.waitFor('online again', (m) => m.topic === availability && m.payload === 'online', since);
});
