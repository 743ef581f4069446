import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { registerProbeRoute, PROBE_PATH } from '../../../src/http/routes/probe.js';
import { PROBE_STEPS } from '../../../src/meter/probe/probe.js';
import { corpusDir, requireCommand, requireCorpus } from '../../helpers/environment.js';
import { startHttpContext } from '../../helpers/http-context.js';
import { FakeMeter } from '../transport/fake-meter.js';
import { ptyWithMeter } from './pty-meter.js';

async function probeApi(env: Record<string, string> = {}) {
  // One short listening step keeps the refusals and the NOT CONNECTED case fast.
  const steps = [{ ...PROBE_STEPS[0]!, durationMs: 3_000 }];
  const context = await startHttpContext({
    env,
    routes: (router, ctx) => registerProbeRoute(router, ctx, { steps }),
  });
  const post = async (body: unknown) => {
    const response = await fetch(`${context.baseUrl}${PROBE_PATH}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { context, post };
}

test('POST /api/v1/meter/probe finds a DSMR meter on a pty and answers the meter.source to use', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCorpus(t)) return;
  const telegram = readFileSync(join(corpusDir, 'dsmr', 'ndokter_v5.txt'));
  const pty = await ptyWithMeter(t, (path) => new FakeMeter(path, [telegram], 400));
  const { context, post } = await probeApi();
  try {
    const answer = await post({ device: pty.hostPath });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'OK');
    assert.equal(answer.body.protocol, 'dsmr');
    assert.equal(
      answer.body.source,
      `serial:${pty.hostPath}?protocol=dsmr&baud=115200&databits=8&parity=none`,
    );
    assert.equal((answer.body.steps as Array<{ outcome: string }>)[0]!.outcome, 'found');
  } finally {
    await context.close();
  }
});

test("the probe refuses the meter input's own port, also when named through a link, and bad bodies", async (t) => {
  if (!requireCommand(t, 'socat')) return;
  const pty = await ptyWithMeter(t);
  // The configured source names the pty itself; the request names the symbolic link to it.
  const { context, post } = await probeApi({
    METER_GATEWAY_METER_SOURCE: `serial:${realpathSync(pty.hostPath)}?protocol=dsmr`,
  });
  try {
    const refused = await post({ device: pty.hostPath });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error, 'conflict');
    for (const body of [{}, { device: '' }, { device: 'ttyUSB0' }, { device: 42 }]) {
      const invalid = await post(body);
      assert.equal(invalid.status, 400, JSON.stringify(body));
      assert.equal(invalid.body.error, 'validation_failed');
      assert.equal((invalid.body.details as { fields: Array<{ field: string }> }).fields[0]!.field, 'device');
    }
  } finally {
    await context.close();
  }
});

test('a device that cannot be opened is NOT CONNECTED with the reason', async () => {
  const { context, post } = await probeApi();
  try {
    const answer = await post({ device: '/dev/meter-gateway-no-such-port' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.status, 'NOT CONNECTED');
    assert.equal(typeof answer.body.error, 'string');
  } finally {
    await context.close();
  }
});
