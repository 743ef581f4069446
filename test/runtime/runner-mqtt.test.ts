import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppContext, type AppContext, type ServiceStatus } from '../../src/context.js';
import { registerActionFormats } from '../../src/actions/config-formats.js';
import { registerExportLimiterConfig } from '../../src/export-limiter/config-formats.js';
import { registerMeterFormats } from '../../src/meter/config-formats.js';
import { registerModbusFormats } from '../../src/modbus/config-formats.js';
import { createMqttService } from '../../src/mqtt/publisher.js';
import { registerPeakConfig } from '../../src/peak/config-rules.js';
import { registerPushFormats } from '../../src/push/settings.js';
import { runOutput } from '../../src/output-runner.js';
import { applied } from '../helpers/config-writes.js';
import { requireCommand } from '../helpers/environment.js';
import { linesLogger } from '../helpers/log-lines.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait.js';
import { startMosquitto } from '../mqtt/mosquitto-broker.js';
import { startDaemon } from './runner-rig.js';

// The MQTT output run by the runner (docs/architecture.md#output-contract): options the client
// cannot use make its apply reject (a write names `mqtt`, the runner retries), the failure fields
// go with their cause; a broker that is away (at start or later) is the output's own trouble:
// `retrying` with the link's error while the link retries, `running` once it is back.

/** The fields of the line that say how the output runs (the counters that move left out). */
function shape(line: ServiceStatus | undefined): Record<string, unknown> {
  if (!line) return {};
  const { state, error, retry_in_ms, link, broker, discovery } = line;
  return Object.fromEntries(
    Object.entries({ state, error, retry_in_ms, link, broker, discovery }).filter(
      ([, value]) => value !== undefined,
    ),
  );
}

/** The line of an output connected to `url`, without failure fields. */
const connectedTo = (url: string) => ({ state: 'running', link: 'connected', broker: url, discovery: true });

function waitForLine(
  what: string,
  line: () => ServiceStatus | undefined,
  expected: Record<string, unknown>,
): Promise<unknown> {
  return waitFor(
    `mqtt line ${what}`,
    () => shape(line()),
    (seen) => JSON.stringify(seen) === JSON.stringify(expected),
    { deadlineMs: 15_000 },
  );
}

// Runs first in this file: the daemon test below registers the MQTT settings rules, which refuse
// such a URL on every writer; without them the link's own check is what the runner meets. The
// formats the configuration needs to load are registered, those rules are not.
test('MQTT: options the client cannot use fail the start, retrying; a write that fixes them runs it; a write it cannot take up fails naming mqtt; the record clears after the fix', async (t) => {
  if (!requireCommand(t, 'mosquitto')) return;
  const broker = await startMosquitto();
  t.after(() => broker.stop());
  for (const register of [
    registerModbusFormats,
    registerMeterFormats,
    registerActionFormats,
    registerPeakConfig,
    registerPushFormats,
    registerExportLimiterConfig,
  ])
    register();
  const stateDir = mkdtempSync(join(tmpdir(), 'mg-runner-mqtt-'));
  const ctx: AppContext = createAppContext({
    stateDir,
    logger: linesLogger([]),
    env: { METER_GATEWAY_MQTT_ENABLE: 'true', METER_GATEWAY_MQTT_URL: 'ftp://127.0.0.1' },
  });
  const output = runOutput(ctx, createMqttService(ctx));
  const line = () => ctx.services.get('mqtt');
  try {
    await output.start();
    const failed = line();
    assert.equal(failed?.state, 'retrying', JSON.stringify(failed));
    assert.match(String(failed?.error), /^url scheme/);
    assert.equal(typeof failed?.retry_in_ms, 'number');

    const fixed = await applied(ctx.config.apply(new Map([['mqtt.url', broker.url]])));
    assert.deepEqual(fixed.ok && fixed.failed, []);
    await waitForLine('connected after the fix', line, connectedTo(broker.url));

    const broken = await applied(ctx.config.apply(new Map([['mqtt.url', 'ftp://127.0.0.1']])));
    assert.ok(broken.ok);
    assert.deepEqual(
      broken.failed.map((failure) => failure.owner),
      ['mqtt'],
    );
    assert.equal(line()?.state, 'retrying');
    assert.match(String(line()?.error), /^url scheme/);
    assert.equal(line()?.link, undefined, 'no link while the options cannot be used');

    const again = await applied(ctx.config.apply(new Map([['mqtt.url', broker.url]])));
    assert.deepEqual(again.ok && again.failed, []);
    await waitForLine(
      'connected after the second fix, without the failure fields',
      line,
      connectedTo(broker.url),
    );
  } finally {
    await output.stop();
    ctx.store.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('MQTT through the daemon: a broker away at start is retrying until it comes; a broker that goes away is retrying, running again once it is back; a settings write moves the link', async (t) => {
  if (!requireCommand(t, 'mosquitto')) return;
  const port = await freePort();
  const url = `mqtt://127.0.0.1:${port}`;
  const run = await startDaemon({ METER_GATEWAY_MQTT_ENABLE: 'true', METER_GATEWAY_MQTT_URL: url });
  const brokers: Array<{ stop(): Promise<void> }> = [];
  try {
    const line = () => run.line('mqtt');
    await waitFor(
      'mqtt retrying while no broker listens',
      () => shape(line()),
      (seen) =>
        seen.state === 'retrying' && seen.link === 'disconnected' && /ECONNREFUSED/.test(String(seen.error)),
      { deadlineMs: 15_000 },
    );

    const broker = await startMosquitto({ port });
    brokers.push(broker);
    await waitForLine('connected once the broker is there', line, connectedTo(url));

    await broker.kill();
    await waitFor(
      'mqtt retrying while the broker is away',
      () => shape(line()),
      (seen) => seen.state === 'retrying' && seen.link === 'disconnected' && typeof seen.error === 'string',
      { deadlineMs: 15_000 },
    );
    await broker.start();
    await waitForLine('connected again once the broker is back', line, connectedTo(url));

    const other = await startMosquitto();
    brokers.push(other);
    const answer = await fetch(`${run.base}/api/v1/mqtt/settings`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: other.url }),
    });
    assert.equal(answer.status, 200, await answer.text());
    await waitForLine('connected to the broker the write names', line, connectedTo(other.url));
  } finally {
    await run.close();
    for (const broker of brokers) await broker.stop();
  }
});
