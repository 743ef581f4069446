// MQTT command bounds (docs/architecture.md#hostile-input) against a real mosquitto: a flood of
// settings commands is cut to the rate bucket (the clock is frozen, so exactly its burst passes),
// an oversized payload is dropped and counted, and the refusal is logged a handful of times only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMAND_GATE_LIMITS } from '../../src/mqtt/command-gate.js';
import { waitFor } from '../helpers/wait.js';
import { send } from '../http/http-client.js';
import { startPeakRig } from '../peak/outputs-rig.js';

const BASE = 'meter-gateway/A1B2C3D4E5F6/peak';

test('a flood of settings commands is cut to the rate limit; an oversized command is dropped and counted', async (t) => {
  const rig = await startPeakRig(t);
  if (!rig) return;
  const { client } = rig.subscriber;
  const { refusals } = rig.h.ctx;
  const flood = 500;
  for (let i = 0; i < flood; i++) void client.publish(`${BASE}/limit/set`, String(1 + i / 10), { qos: 0 });
  await client.publishAsync(`${BASE}/limit/set`, '7'.repeat(1024 * 1024), { qos: 1 });
  await waitFor(
    'every command refused or written',
    () => ({ rate: refusals.get('mqtt_command_rate'), oversized: refusals.get('mqtt_command_oversized') }),
    (seen) => seen.rate === flood - COMMAND_GATE_LIMITS.burst && seen.oversized === 1,
  );
  const written = rig.h.logLines.filter((line) => line.includes('peak guard limit command:'));
  assert.equal(written.length, COMMAND_GATE_LIMITS.burst);
  const refusedLines = rig.h.logLines.filter((line) => line.includes('refused: more than'));
  assert.ok(refusedLines.length >= 1 && refusedLines.length <= 4, refusedLines.join('\n'));
  const settings = (await send(rig.h.baseUrl, 'GET', '/api/v1/settings')).json() as {
    services: { peak_guard: { limit_kw: number } };
  };
  assert.equal(settings.services.peak_guard.limit_kw, 1 + (COMMAND_GATE_LIMITS.burst - 1) / 10);
  const metrics = rig.h.ctx.refusals.entries();
  assert.ok(metrics.some(([reason]) => reason === 'mqtt_command_oversized'));
});
