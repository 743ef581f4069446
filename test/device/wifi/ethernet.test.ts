import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWifiBackend } from '../../../src/device/wifi/backend.js';
import { ETHERNET_PROFILE } from '../../../src/device/wifi/nmcli-ethernet.js';
import type { WifiBackend } from '../../../src/device/wifi/wifi-backend.js';
import { registerEthernetRoutes } from '../../../src/http/routes/ethernet.js';
import { registerCoreRoutes } from '../../../src/http/server.js';
import { startHttpContext, type HttpTestContext } from '../../helpers/http-context.js';
import { responseProblems } from '../../http/openapi-check.js';
import { createFakeNmcli, terse, type FakeNmcli } from './fake-nmcli.js';
import { fakeInterface, linkOf, startNetwork } from './wifi-rig.js';
import { createNetworkOutput } from '../../../src/device/network/network-output.js';
import { runOutput } from '../../../src/output-runner.js';
import type { Service } from '../../../src/service.js';

const PATH = '/api/v1/eth/settings';
const DELETE_PROFILE = ['connection', 'delete', 'id', ETHERNET_PROFILE];
const ACTIVATE = ['--wait', '30', 'connection', 'up', 'id', ETHERNET_PROFILE];

interface EthRig {
  http: HttpTestContext;
  nmcli: FakeNmcli;
  backend: WifiBackend;
  sysDir: string;
  network: Service;
}

/** The API with the Ethernet routes and /api/v1/system over the Wi-Fi backend, a fake nmcli on PATH. */
async function startEthRig(env: Record<string, string> = {}): Promise<EthRig> {
  const nmcli = createFakeNmcli();
  const sysDir = mkdtempSync(join(tmpdir(), 'sys-class-net-'));
  let backend: WifiBackend | undefined;
  const http = await startHttpContext({
    env,
    routes: (router, ctx) => {
      backend = createWifiBackend(ctx, { pathEnv: nmcli.dir, sysClassNet: sysDir });
      registerCoreRoutes(router, ctx, { ethernetInfo: () => backend!.ethernetInfo() });
      registerEthernetRoutes(router, ctx);
    },
  });
  const network = runOutput(http.ctx, createNetworkOutput(http.ctx, backend!));
  const rig = { http, nmcli, backend: backend!, sysDir, network };
  await startNetwork(rig);
  return rig;
}

async function stopEthRig(rig: EthRig): Promise<void> {
  await rig.network.stop();
  await rig.backend.settle();
  await rig.http.close();
  rig.nmcli.remove();
  rmSync(rig.sysDir, { recursive: true, force: true });
}

async function call(rig: EthRig, method: string, body?: unknown) {
  const response = await fetch(`${rig.http.baseUrl}${PATH}`, {
    method,
    ...(body !== undefined
      ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }
      : {}),
  });
  const text = await response.text();
  const doc = (await (await fetch(`${rig.http.baseUrl}/api/v1/openapi.json`)).json()) as Parameters<
    typeof responseProblems
  >[0];
  const type = response.headers.get('content-type') ?? '';
  assert.deepEqual(responseProblems(doc, method, PATH, response.status, type, text), []);
  return { status: response.status, json: JSON.parse(text) as Record<string, unknown> };
}

const STATIC = {
  enable: true,
  static_ip: true,
  ip: '192.168.10.20',
  netmask: '255.255.255.0',
  gateway: '192.168.10.1',
  dns: '192.168.10.53',
};

test('Ethernet static, then DHCP, then disabled: each applied through its own NetworkManager profile', async () => {
  const rig = await startEthRig();
  try {
    assert.deepEqual((await call(rig, 'GET')).json, {
      enable: true,
      static_ip: false,
      ip: '',
      netmask: '',
      gateway: '',
      dns: '',
    });
    const put = await call(rig, 'PUT', STATIC);
    assert.equal(put.status, 200);
    assert.deepEqual(put.json, STATIC);
    await rig.backend.settle();
    assert.deepEqual(rig.nmcli.calls(), [
      DELETE_PROFILE,
      [
        ...['connection', 'add', 'type', 'ethernet', 'con-name', ETHERNET_PROFILE, 'ifname', 'eth0'],
        ...['connection.autoconnect', 'yes', 'connection.autoconnect-priority', '100'],
        ...['ipv4.method', 'manual', 'ipv4.addresses', '192.168.10.20/24'],
        ...['ipv4.gateway', '192.168.10.1', 'ipv4.dns', '192.168.10.53'],
      ],
      ACTIVATE,
    ]);
    assert.equal(linkOf(rig.http.ctx, 'ethernet')?.link, 'connected');
    assert.match(readFileSync(join(rig.http.stateDir, 'wifi.json'), 'utf8'), /192\.168\.10\.20/);

    // PUT merges: only static_ip changes, the addresses stay stored.
    rig.nmcli.clearCalls();
    const dhcp = await call(rig, 'PUT', { static_ip: false });
    assert.deepEqual(dhcp.json, { ...STATIC, static_ip: false });
    await rig.backend.settle();
    const add = rig.nmcli.calls().find((args) => args[1] === 'add')!;
    assert.deepEqual(add.slice(-2), ['ipv4.method', 'auto']);
    assert.equal(add.includes('ipv4.addresses'), false);

    // Disabled: the profile goes and the interface is disconnected; a missing profile is no error.
    rig.nmcli.clearCalls();
    rig.nmcli.answer([{ args: DELETE_PROFILE, code: 10, stderr: 'Error: unknown connection' }]);
    const off = await call(rig, 'PUT', { enable: false });
    assert.equal(off.status, 200);
    await rig.backend.settle();
    assert.deepEqual(rig.nmcli.calls(), [DELETE_PROFILE, ['device', 'disconnect', 'eth0']]);
    assert.equal(linkOf(rig.http.ctx, 'ethernet')?.link, 'disabled');

    // POST replaces: what is not sent takes its default.
    rig.nmcli.clearCalls();
    const post = await call(rig, 'POST', { static_ip: false });
    assert.deepEqual(post.json, {
      enable: true,
      static_ip: false,
      ip: '',
      netmask: '',
      gateway: '',
      dns: '',
    });
  } finally {
    await stopEthRig(rig);
  }
});

test('the interface is a setting: network.ethernet_interface names it to NetworkManager', async () => {
  const rig = await startEthRig({ METER_GATEWAY_NETWORK_ETHERNET_INTERFACE: 'end0' });
  try {
    await call(rig, 'PUT', { enable: false });
    await rig.backend.settle();
    assert.deepEqual(rig.nmcli.calls().at(-1), ['device', 'disconnect', 'end0']);
  } finally {
    await stopEthRig(rig);
  }
});

test('invalid Ethernet settings are 400 with the field named, and nothing is stored or applied', async () => {
  const rig = await startEthRig();
  try {
    const cases: [Record<string, unknown>, string][] = [
      [{ enable: 'yes' }, 'enable'],
      [{ static_ip: 1 }, 'static_ip'],
      [{ ...STATIC, ip: '192.168.10.256' }, 'ip'],
      [{ ...STATIC, ip: '' }, 'ip'],
      [{ ...STATIC, ip: '192.168.10.0' }, 'ip'],
      [{ ...STATIC, netmask: '255.0.255.0' }, 'netmask'],
      [{ ...STATIC, netmask: '' }, 'netmask'],
      [{ ...STATIC, gateway: '192.168.11.1' }, 'gateway'],
      [{ ...STATIC, gateway: '192.168.10.20' }, 'gateway'],
      [{ ...STATIC, gateway: 'router' }, 'gateway'],
      [{ ...STATIC, dns: '' }, 'dns'],
      [{ ...STATIC, dns: '8.8.8' }, 'dns'],
      [{ mtu: 1500 }, 'mtu'],
    ];
    for (const [body, field] of cases) {
      const reply = await call(rig, 'PUT', body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.equal(reply.json.error, 'validation_failed');
      const fields = (reply.json.details as { fields: { field: string }[] }).fields.map((f) => f.field);
      assert.ok(fields.includes(field), `${JSON.stringify(body)}: ${fields.join()}`);
    }
    assert.deepEqual(rig.nmcli.calls(), [], 'nothing applied');
    assert.equal((await call(rig, 'GET')).json.static_ip, false, 'nothing stored');
  } finally {
    await stopEthRig(rig);
  }
});

test('/api/v1/system shows the wired link as NetworkManager reports it', async () => {
  const rig = await startEthRig();
  try {
    fakeInterface(rig.sysDir, 'eth0', { type: '1', carrier: '1', address: 'dc:a6:32:00:11:22' }, ['device']);
    rig.nmcli.answer([
      {
        prefix: [
          '-t',
          '-f',
          'GENERAL.HWADDR,GENERAL.STATE,IP4.ADDRESS,IP4.GATEWAY,IP4.DNS',
          'device',
          'show',
        ],
        stdout: [
          terse('GENERAL.HWADDR', 'DC:A6:32:00:11:22'),
          terse('GENERAL.STATE', '100 (connected)'),
          terse('IP4.ADDRESS[1]', '192.168.10.20/24'),
          terse('IP4.GATEWAY', '192.168.10.1'),
          terse('IP4.DNS[1]', '192.168.10.53'),
          terse('IP4.DNS[2]', '192.168.10.54'),
        ].join('\n'),
      },
    ]);
    const system = (await (await fetch(`${rig.http.baseUrl}/api/v1/system`)).json()) as Record<
      string,
      unknown
    >;
    assert.deepEqual(system.ethernet, {
      mac: 'DC:A6:32:00:11:22',
      status: 'Up',
      ip: '192.168.10.20',
      mask: '255.255.255.0',
      gateway: '192.168.10.1',
      dns: '192.168.10.53',
    });
    assert.deepEqual(rig.nmcli.calls().at(-1)?.slice(-1), ['eth0']);
  } finally {
    await stopEthRig(rig);
  }
});

test('a cable without link is Down', async () => {
  const rig = await startEthRig();
  try {
    rig.nmcli.answer([
      {
        prefix: ['-t', '-f', 'GENERAL.HWADDR,GENERAL.STATE,IP4.ADDRESS,IP4.GATEWAY,IP4.DNS'],
        stdout: `${terse('GENERAL.HWADDR', 'DC:A6:32:00:11:22')}\n${terse('GENERAL.STATE', '20 (unavailable)')}\n`,
      },
    ]);
    const system = (await (await fetch(`${rig.http.baseUrl}/api/v1/system`)).json()) as Record<
      string,
      unknown
    >;
    assert.deepEqual(system.ethernet, {
      mac: 'DC:A6:32:00:11:22',
      status: 'Down',
      ip: '',
      mask: '',
      gateway: '',
      dns: '',
    });
  } finally {
    await stopEthRig(rig);
  }
});

test('at start the wired connection follows the stored settings: defaults remove a leftover profile, others are applied', async () => {
  const rig = await startEthRig();
  try {
    const { ctx } = rig.http;
    const shown = {
      args: ['-t', '-f', 'NAME', 'connection', 'show'],
      stdout: `Wired connection 1\n${ETHERNET_PROFILE}\n`,
    };
    rig.nmcli.answer([shown]);
    await rig.backend.syncEthernetAtStart(ctx.config.config.eth, true);
    assert.deepEqual(
      rig.nmcli.calls(),
      [shown.args, DELETE_PROFILE],
      'after a restore the owned profile goes',
    );

    rig.nmcli.clearCalls();
    rig.nmcli.answer([{ args: shown.args, stdout: 'Wired connection 1\n' }]);
    await rig.backend.syncEthernetAtStart(ctx.config.config.eth, true);
    assert.deepEqual(rig.nmcli.calls(), [shown.args], "defaults leave the system's own connection alone");

    rig.nmcli.clearCalls();
    await rig.backend.syncEthernetAtStart({ ...STATIC }, false);
    await rig.backend.settle();
    const calls = rig.nmcli.calls();
    assert.deepEqual(calls[0], shown.args);
    assert.ok(
      calls.some((args) => args[1] === 'add' && args.includes('192.168.10.20/24')),
      'stored settings applied',
    );
    assert.deepEqual(calls.at(-1), ACTIVATE);
  } finally {
    await stopEthRig(rig);
  }
});
