import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ActionsOutput } from '../../src/actions/actions-output.js';
import { createWifiBackend } from '../../src/device/wifi/backend.js';
import type { WifiBackend } from '../../src/device/wifi/wifi-backend.js';
import { registerActionsRoutes } from '../../src/http/routes/actions.js';
import { registerBackupRoutes } from '../../src/http/routes/backup.js';
import { registerEthernetRoutes } from '../../src/http/routes/ethernet.js';
import { registerMqttRoutes } from '../../src/http/routes/mqtt.js';
import { registerWifiRoutes } from '../../src/http/routes/wifi.js';
import { componentLogger } from '../../src/log.js';
import { createFakeNmcli, type FakeNmcli } from '../device/wifi/fake-nmcli.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';

/**
 * A restore (POST /api/v1/backup) runs the checks of every dedicated route, because they live once
 * in the config layer (docs/architecture.md#configuration): each hostile value is refused with the
 * route's status and error key, the field named, and nothing stored.
 */

interface Rig {
  http: HttpTestContext;
  nmcli: FakeNmcli;
  backend: WifiBackend;
  sysDir: string;
}

async function startRig(): Promise<Rig> {
  const nmcli = createFakeNmcli();
  const sysDir = mkdtempSync(join(tmpdir(), 'sys-class-net-'));
  let backend: WifiBackend | undefined;
  const http = await startHttpContext({
    routes: (router, ctx) => {
      backend = createWifiBackend(ctx, { pathEnv: nmcli.dir, sysClassNet: sysDir });
      registerWifiRoutes(router, ctx, backend);
      registerEthernetRoutes(router, ctx);
      registerMqttRoutes(router, ctx, { reconnectNow: () => undefined });
      registerActionsRoutes(router, ctx, new ActionsOutput(ctx, componentLogger(ctx.logger, 'actions')));
      registerBackupRoutes(router, ctx);
    },
  });
  return { http, nmcli, backend: backend!, sysDir };
}

async function stopRig(rig: Rig): Promise<void> {
  await rig.backend.settle();
  await rig.http.close();
  rig.nmcli.remove();
  rmSync(rig.sysDir, { recursive: true, force: true });
}

interface Answer {
  status: number;
  body: { error: string; details: { fields?: Array<{ field: string }>; issues?: Array<{ field: string }> } };
}

async function send(rig: Rig, method: string, path: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${rig.http.baseUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

function fieldsOf(answer: Answer): string[] {
  const list = answer.body.details.fields ?? answer.body.details.issues ?? [];
  return list.map((issue) => issue.field).sort();
}

/** Every file of the state directory and its bytes. */
function snapshot(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'base64')]));
}

function backupOf(settings: Record<string, unknown>): Record<string, unknown> {
  return { format: 'meter-gateway-settings', version: 1, settings };
}

interface Case {
  name: string;
  route: { method: string; path: string; body: unknown };
  /** The config section the route's body is rooted at (its fields are relative to it). */
  prefix: string;
  restore: Record<string, unknown>;
  /** Fields the route must name (relative to prefix). */
  fields: string[];
}

const STATIC = { ip: '192.168.1.10', netmask: '255.255.255.0', gateway: '10.0.0.1', dns: '1.1.1.1' };
const definition = (schedule: string) => ({
  actions: [{ id: 'pump', schedule, requests: [{ http: { url: 'http://127.0.0.1:9/on' } }] }],
});

const CASES: Case[] = [
  {
    name: 'Ethernet static_ip without addresses',
    route: { method: 'PUT', path: '/api/v1/eth/settings', body: { static_ip: true } },
    prefix: 'eth.',
    restore: { eth: { static_ip: true } },
    fields: ['dns', 'gateway', 'ip', 'netmask'],
  },
  {
    name: 'Ethernet gateway outside the subnet',
    route: { method: 'PUT', path: '/api/v1/eth/settings', body: { static_ip: true, ...STATIC } },
    prefix: 'eth.',
    restore: { eth: { static_ip: true, ...STATIC } },
    fields: ['gateway'],
  },
  {
    name: 'Wi-Fi static_ip without addresses',
    route: { method: 'PUT', path: '/api/v1/wifi/sta/settings', body: { static_ip: true } },
    prefix: 'wifi.sta.',
    restore: { wifi: { sta: { static_ip: true } } },
    fields: ['dns', 'gateway', 'ip', 'netmask'],
  },
  {
    name: 'Wi-Fi gateway outside the subnet (the same check as Ethernet)',
    route: { method: 'PUT', path: '/api/v1/wifi/sta/settings', body: { static_ip: true, ...STATIC } },
    prefix: 'wifi.sta.',
    restore: { wifi: { sta: { static_ip: true, ...STATIC } } },
    fields: ['gateway'],
  },
  {
    name: 'Wi-Fi enabled without a network name',
    route: { method: 'PUT', path: '/api/v1/wifi/sta/settings', body: { enable: true } },
    prefix: 'wifi.sta.',
    restore: { wifi: { sta: { enable: true, name: '' } } },
    fields: ['name'],
  },
  {
    name: 'a cron expression node-cron refuses',
    route: { method: 'POST', path: '/api/v1/actions', body: definition('61 * * * *') },
    prefix: 'actions.definition.',
    restore: { actions: { definition: definition('61 * * * *') } },
    fields: ['actions[0].schedule'],
  },
  {
    name: 'an MQTT URL that is not mqtt:// or mqtts://',
    route: { method: 'PUT', path: '/api/v1/mqtt/settings', body: { url: 'javascript:alert(1)' } },
    prefix: 'mqtt.',
    restore: { mqtt: { url: 'javascript:alert(1)' } },
    fields: ['url'],
  },
  {
    name: 'MQTT enabled without a broker URL',
    route: { method: 'PUT', path: '/api/v1/mqtt/settings', body: { enable: true, url: '' } },
    prefix: 'mqtt.',
    restore: { mqtt: { enable: true, url: '' } },
    fields: ['url'],
  },
  {
    name: 'an MQTT topic with a wildcard',
    route: { method: 'PUT', path: '/api/v1/mqtt/settings', body: { publish: { topic: 'meter/#' } } },
    prefix: 'mqtt.',
    restore: { mqtt: { publish: { topic: 'meter/#' } } },
    fields: ['publish.topic'],
  },
  {
    name: 'an MQTT broker certificate that is not PEM',
    route: {
      method: 'PUT',
      path: '/api/v1/mqtt/settings',
      body: { broker: { certificate: 'not a certificate' } },
    },
    prefix: 'mqtt.',
    restore: { mqtt: { broker: { certificate: 'not a certificate' } } },
    fields: ['broker.certificate'],
  },
];

for (const item of CASES) {
  test(`restore refuses ${item.name} as its route does, storing nothing`, async () => {
    const rig = await startRig();
    try {
      const before = snapshot(rig.http.stateDir);
      const routed = await send(rig, item.route.method, item.route.path, item.route.body);
      assert.equal(routed.status, 400, JSON.stringify(routed.body));
      assert.equal(routed.body.error, 'validation_failed');
      assert.deepEqual(fieldsOf(routed), item.fields);

      const restored = await send(rig, 'POST', '/api/v1/backup', backupOf(item.restore));
      assert.equal(restored.status, routed.status, JSON.stringify(restored.body));
      assert.equal(restored.body.error, routed.body.error);
      assert.deepEqual(
        fieldsOf(restored),
        item.fields.map((field) => `${item.prefix}${field}`),
      );

      assert.deepEqual(snapshot(rig.http.stateDir), before, 'no state file changed');
      assert.deepEqual(rig.nmcli.calls(), [], 'no network backend call');
    } finally {
      await stopRig(rig);
    }
  });
}

test('a restore of valid static addresses on both interfaces is accepted', async () => {
  const rig = await startRig();
  try {
    const good = { ...STATIC, gateway: '192.168.1.1' };
    const restored = await send(
      rig,
      'POST',
      '/api/v1/backup',
      backupOf({ eth: { static_ip: true, ...good }, wifi: { sta: { static_ip: true, ...good } } }),
    );
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal(rig.http.ctx.config.config.eth.gateway, '192.168.1.1');
    assert.equal(rig.http.ctx.config.config.wifi.sta.gateway, '192.168.1.1');
  } finally {
    await stopRig(rig);
  }
});
