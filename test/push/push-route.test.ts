import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigStore } from '../../src/config/config-store.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerPushRoutes } from '../../src/http/routes/push.js';
import { runOutput } from '../../src/output-runner.js';
import { PushOutput } from '../../src/push/push-output.js';
import { startHttpContext } from '../helpers/http-context.js';
import { waitFor } from '../helpers/wait.js';
import { send, sendJsonBody } from '../http/http-client.js';

const TARGET = {
  id: 'fleet',
  kind: 'remote_write',
  // Nothing listens on port 9 of the loopback: the target retries.
  url: 'http://127.0.0.1:9/api/v1/write',
  site: 'home',
  extra_labels: { landlord: 'b12' },
  retention_days: 30,
};

test('services.push: written through the settings API with a write-only token, validated, shown by GET /api/v1/push', async () => {
  let push: PushOutput | undefined;
  const h = await startHttpContext({
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      push = new PushOutput(ctx, ctx.logger, { meters: () => [], quarters: () => Promise.resolve([]) });
      registerPushRoutes(router, push);
    },
  });
  const service = runOutput(h.ctx, push!);
  await service.start();
  try {
    const bad = await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', {
      services: { push: { targets: [{ ...TARGET, kind: 'carrier_pigeon', extra_labels: { meter: 'x' } }] } },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /kind: must be one of remote_write, influx_line, vm_import/);
    assert.match(bad.text, /extra_labels\.meter/);
    const good = await sendJsonBody(h.baseUrl, 'PUT', '/api/v1/settings', {
      services: { push: { targets: [TARGET], secrets: { fleet: { bearer_token: 'tok-123' } } } },
    });
    assert.equal(good.status, 200, good.text);
    const settings = await send(h.baseUrl, 'GET', '/api/v1/settings');
    assert.deepEqual(settings.json().services.push.targets, [TARGET]);
    assert.doesNotMatch(settings.text, /tok-123/);
    // The token is in the secrets file, not in the settings file.
    assert.doesNotMatch(readFileSync(join(h.stateDir, 'settings.json'), 'utf8'), /tok-123/);
    assert.match(readFileSync(join(h.stateDir, 'secrets.json'), 'utf8'), /tok-123/);
    const status = await waitFor(
      'the target to have tried once',
      async () =>
        (await send(h.baseUrl, 'GET', '/api/v1/push')).json() as {
          targets: Array<{ id: string; state: string; counts: { retried: number } }>;
        },
      (view) => view.targets[0]?.counts.retried === 1,
    );
    assert.equal(status.targets[0]!.id, 'fleet');
    assert.equal(status.targets[0]!.state, 'backoff');
  } finally {
    await service.stop();
    await h.close();
  }
});

test('services.push.targets from the environment (METER_GATEWAY_SERVICES_PUSH_TARGETS, JSON)', () => {
  const store = ConfigStore.load({ env: { METER_GATEWAY_SERVICES_PUSH_TARGETS: JSON.stringify([TARGET]) } });
  assert.deepEqual(store.config.services.push.targets, [TARGET]);
  assert.throws(
    () =>
      ConfigStore.load({
        env: { METER_GATEWAY_SERVICES_PUSH_TARGETS: JSON.stringify([{ ...TARGET, url: 'ftp://x' }]) },
      }),
    /url: must be an http/,
  );
});
