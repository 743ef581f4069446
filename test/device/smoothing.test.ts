import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PowerSmoother } from '../../src/device/smoothing.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerHomewizardPersonality } from '../homewizard/homewizard-output.js';
import { registerShellyRoutes } from '../../src/http/routes/shelly.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';
import { send, sendJsonBody } from '../http/http-client.js';

const T0 = Date.UTC(2026, 0, 5, 12);

/** A reading `seconds` after T0 whose import power is 2.412 kW + step W and import energy + step Wh. */
const at = (seconds: number, step: number) => syntheticReading(T0 + seconds * 1000, step * 1000);

const power = (reading: ReturnType<typeof at>, key: string) => reading.values.get(key)?.value;

test('average: each power is the mean of the readings of the last N seconds; energies and volts stay', () => {
  const smoother = new PowerSmoother();
  const settings = { mode: 'average', seconds: 3 } as const;
  assert.equal(power(smoother.push(at(0, 0), settings), '1.7.0'), 2.412);
  assert.equal(power(smoother.push(at(1, 1), settings), '1.7.0'), 2.912);
  const third = smoother.push(at(2, 2), settings);
  assert.equal(power(third, '1.7.0'), 3.412);
  assert.equal(power(third, '1.8.1'), 9813.204, 'the newest energy, not an average');
  assert.equal(power(third, '32.7.0'), 231.4, 'voltage untouched');
  // At 3 s the reading of 0 s has left the 3 s window: mean of 1 s, 2 s and 3 s.
  assert.equal(power(smoother.push(at(3, 6), settings), '1.7.0'), 5.412);
  // Per-phase powers are averaged as well (constant here).
  assert.equal(power(third, '21.7.0'), 0.962);
});

test('hold: the powers of a reading are served for N seconds, energies always the newest', () => {
  const smoother = new PowerSmoother();
  const settings = { mode: 'hold', seconds: 2 } as const;
  const served = [0, 1, 2, 3, 4].map((s) => smoother.push(at(s, s), settings));
  assert.deepEqual(
    served.map((reading) => power(reading, '1.7.0')),
    [2.412, 2.412, 4.412, 4.412, 6.412],
  );
  assert.deepEqual(
    served.map((reading) => power(reading, '1.8.1')),
    [9811.204, 9812.204, 9813.204, 9814.204, 9815.204],
  );
});

test('off: the reading itself; a change of the settings starts a new window', () => {
  const smoother = new PowerSmoother();
  const reading = at(0, 0);
  assert.equal(smoother.push(reading, { mode: 'off', seconds: 5 }), reading);
  smoother.push(at(1, 10), { mode: 'average', seconds: 5 });
  assert.equal(power(smoother.push(at(2, 20), { mode: 'average', seconds: 10 }), '1.7.0'), 22.412);
});

async function withPersonalities(
  env: Record<string, string>,
  fn: (server: HttpTestContext) => Promise<void>,
): Promise<void> {
  const server = await startHttpContext({
    env: {
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_ENABLE: 'true',
      ...env,
    },
    clockFrozen: true,
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      registerHomewizardPersonality(router, ctx);
      registerShellyRoutes(router, ctx);
    },
  });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

test('the personalities serve the smoothed power of their own settings (environment overrides)', () =>
  withPersonalities(
    {
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_SMOOTHING_MODE: 'average',
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_SMOOTHING_SECONDS: '10',
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_SMOOTHING_MODE: 'hold',
      METER_GATEWAY_SERVICES_EMULATE_SHELLY_SMOOTHING_SECONDS: '10',
    },
    async ({ baseUrl, ctx, clock }) => {
      for (const step of [0, 1000, 2000]) {
        ctx.store.ingest(syntheticReading(clock.now(), step));
        clock.advance(1000);
      }
      const data = (await send(baseUrl, 'GET', '/api/v1/data')).json();
      assert.equal(data.active_power_w, 3412);
      assert.equal(data.total_power_import_t1_kwh, 9813.204);
      const em = (await send(baseUrl, 'GET', '/rpc/EM.GetStatus?id=0')).json();
      assert.equal(em.total_act_power, 2412, 'held since the first reading');
      const emData = (await send(baseUrl, 'GET', '/rpc/EMData.GetStatus?id=0')).json();
      assert.equal(emData.total_act, 9811204 + 2000 + 8923308, 'energies never held');
      // Requests do not move the average: the same bytes for the same reading.
      const again = await send(baseUrl, 'GET', '/api/v1/data');
      assert.equal(again.text, JSON.stringify(data));
    },
  ));

test('smoothing off (the default) serves each reading as it came', () =>
  withPersonalities({}, async ({ baseUrl, ctx, clock }) => {
    for (const step of [0, 1000, 2000]) {
      ctx.store.ingest(syntheticReading(clock.now(), step));
      clock.advance(1000);
    }
    assert.equal((await send(baseUrl, 'GET', '/api/v1/data')).json().active_power_w, 4412);
    assert.equal((await send(baseUrl, 'GET', '/rpc/EM.GetStatus?id=0')).json().total_act_power, 4412);
  }));

test('settings API: smoothing is stored, shown once set, and bad values are refused by name', () =>
  withPersonalities({}, async ({ baseUrl }) => {
    const before = (await send(baseUrl, 'GET', '/api/v1/settings')).json();
    assert.equal(before.services.emulate.homewizard.smoothing, undefined, 'default: not shown');
    const stored = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
      services: { emulate: { shelly: { smoothing: { mode: 'average', seconds: 4 } } } },
    });
    assert.equal(stored.status, 200, stored.text);
    const after = (await send(baseUrl, 'GET', '/api/v1/settings')).json();
    assert.deepEqual(after.services.emulate.shelly.smoothing, { mode: 'average', seconds: 4 });
    for (const bad of [{ mode: 'median' }, { seconds: 0 }, { seconds: 301 }]) {
      const refused = await sendJsonBody(baseUrl, 'PUT', '/api/v1/settings', {
        services: { emulate: { homewizard: { smoothing: bad } } },
      });
      assert.equal(refused.status, 400, JSON.stringify(bad));
      const key = Object.keys(bad)[0]!;
      assert.match(refused.text, new RegExp(`services\\.emulate\\.homewizard\\.smoothing\\.${key}`));
    }
  }));
