import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { registerBackupRoutes } from '../../src/http/routes/backup.js';
import { registerCoreRoutes } from '../../src/http/server.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';
import { send, sendJsonBody } from './http-client.js';

/*
 * Home Assistant add-on access: ingress requests signed in by Home Assistant, settings locked by
 * the add-on's options, and the local health check, on a real server with protection on.
 * The Supervisor's proxy address is 172.30.32.2 on a real system; here the "Supervisor" is
 * 127.0.0.2 (addon.ingress_proxy, a daemon-only key) and the attacker 127.0.0.1: two distinct
 * source addresses on the loopback network, no privileges needed.
 */

const PASSWORD = 'addon-pass';
const SUPERVISOR = '127.0.0.2';
const INGRESS_HEADERS = {
  'X-Ingress-Path': '/api/hassio_ingress/0123456789abcdef',
  'X-Remote-User-Id': 'f2a1',
  'X-Remote-User-Name': 'owner',
  'X-Remote-User-Display-Name': 'Owner',
};

async function withAddonServer(
  env: Record<string, string>,
  fn: (server: HttpTestContext) => Promise<void>,
): Promise<void> {
  const server = await startHttpContext({
    env: {
      METER_GATEWAY_SYSTEM_PROTECTION: 'true',
      METER_GATEWAY_SYSTEM_PASSWORD: PASSWORD,
      ...env,
    },
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      registerBackupRoutes(router, ctx);
    },
  });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** GET from a chosen local source address. */
function getFrom(
  port: number,
  localAddress: string,
  path: string,
  headers: Record<string, string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, localAddress, headers, agent: false },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

const ADDON = { METER_GATEWAY_ADDON_ENABLE: 'true', METER_GATEWAY_ADDON_INGRESS_PROXY: SUPERVISOR };

test('an ingress request from the Supervisor address needs no password; the same headers from elsewhere get 401', async () => {
  await withAddonServer(ADDON, async ({ port }) => {
    assert.equal(await getFrom(port, SUPERVISOR, '/api/v1/system', INGRESS_HEADERS), 200);
    // Forged ingress headers from another address: refused.
    assert.equal(await getFrom(port, '127.0.0.1', '/api/v1/system', INGRESS_HEADERS), 401);
    // The Supervisor's address without the ingress header (not the panel): the password applies.
    assert.equal(await getFrom(port, SUPERVISOR, '/api/v1/system', {}), 401);
  });
});

test('without addon.enable no request is trusted, whatever its address and headers', async () => {
  await withAddonServer(
    { METER_GATEWAY_ADDON_ENABLE: 'false', METER_GATEWAY_ADDON_INGRESS_PROXY: SUPERVISOR },
    async ({ port }) => {
      assert.equal(await getFrom(port, SUPERVISOR, '/api/v1/system', INGRESS_HEADERS), 401);
    },
  );
});

test("the default proxy address is the Supervisor's 172.30.32.2: loopback with ingress headers gets 401", async () => {
  await withAddonServer({ METER_GATEWAY_ADDON_ENABLE: 'true' }, async ({ ctx, port }) => {
    assert.equal(ctx.config.config.addon.ingress_proxy, '172.30.32.2');
    assert.equal(await getFrom(port, '127.0.0.1', '/api/v1/system', INGRESS_HEADERS), 401);
  });
});

test('a locked setting: its admin value wins, a write that changes it gets 409 naming it, others pass', async () => {
  await withAddonServer(
    {
      ...ADDON,
      METER_GATEWAY_ADDON_LOCKED: 'services.modbus.enable,services.modbus.port',
      METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'false',
    },
    async ({ baseUrl, port }) => {
      const auth = { Authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
      const refused = await sendJsonBody(
        baseUrl,
        'PUT',
        '/api/v1/settings',
        { services: { modbus: { enable: true, port: 1502 } } },
        auth,
      );
      assert.equal(refused.status, 409, refused.text);
      const body = refused.json();
      assert.equal(body.error, 'conflict');
      assert.deepEqual([...body.details.locked].sort(), ['services.modbus.enable', 'services.modbus.port']);
      assert.match(body.message, /add-on's options: services\.modbus\.enable, services\.modbus\.port/);
      // The same value is no change: accepted, as is an unlocked setting.
      const same = await sendJsonBody(
        baseUrl,
        'PUT',
        '/api/v1/settings',
        { services: { modbus: { enable: false } }, system: { name: 'kitchen' } },
        auth,
      );
      assert.equal(same.status, 200, same.text);
      const system = (await send(baseUrl, 'GET', '/api/v1/system', { headers: auth })).json();
      assert.equal(system.access.addon, true);
      assert.deepEqual(system.access.locked, ['services.modbus.enable', 'services.modbus.port']);
      assert.equal(await getFrom(port, SUPERVISOR, '/api/v1/settings', INGRESS_HEADERS), 200);
    },
  );
});

test('the health check answers from this host without a password; from elsewhere it needs one', async () => {
  await withAddonServer({}, async ({ baseUrl, port, ctx }) => {
    ctx.store.ingest(syntheticReading(ctx.now()));
    const healthy = await send(baseUrl, 'GET', '/api/v1/health');
    assert.equal(healthy.status, 200);
    assert.deepEqual(healthy.json(), { status: 'ok', failed: [], degraded: [], reading_age_s: 0 });
    ctx.services.set('modbus', { state: 'error', error: 'listen EACCES: permission denied 0.0.0.0:502' });
    const failing = await send(baseUrl, 'GET', '/api/v1/health');
    assert.equal(failing.status, 503);
    assert.deepEqual(failing.json().failed, [
      { output: 'modbus', error: 'listen EACCES: permission denied 0.0.0.0:502' },
    ]);
    // 127.0.0.2 is not this host's loopback address the check trusts (127.0.0.1, ::1).
    assert.equal(await getFrom(port, '127.0.0.2', '/api/v1/health', {}), 401);
    assert.equal((await send(baseUrl, 'GET', '/api/v1/system')).status, 401, 'only the health path is open');
  });
});

test('a backup restore leaves locked settings as the add-on options say and restores the rest', async () => {
  await withAddonServer(
    {
      ...ADDON,
      METER_GATEWAY_ADDON_LOCKED: 'services.modbus.enable',
      METER_GATEWAY_SERVICES_MODBUS_ENABLE: 'false',
    },
    async ({ baseUrl, ctx }) => {
      const auth = { Authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
      const restored = await sendJsonBody(
        baseUrl,
        'POST',
        '/api/v1/backup',
        {
          format: 'meter-gateway-settings',
          version: 1,
          settings: { system: { name: 'restored' }, services: { modbus: { enable: true } } },
        },
        auth,
      );
      assert.equal(restored.status, 200, restored.text);
      assert.equal(ctx.config.config.system.name, 'restored');
      assert.equal(ctx.config.config.services.modbus.enable, false, 'the locked setting stays');
    },
  );
});
