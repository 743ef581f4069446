import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ETHERNET_PROFILE } from '../../../src/device/wifi/nmcli-ethernet.js';
import { STATION_PROFILE } from '../../../src/device/wifi/nmcli-backend.js';
import { registerBackupRoutes, settingsBackup } from '../../../src/http/routes/backup.js';
import { registerWifiRoutes } from '../../../src/http/routes/wifi.js';
import { startHttpContext } from '../../helpers/http-context.js';
import { createNetworkOutput } from '../../../src/device/network/network-output.js';
import { createWifiBackend } from '../../../src/device/wifi/backend.js';
import { runOutput } from '../../../src/output-runner.js';
import type { WifiBackend } from '../../../src/device/wifi/wifi-backend.js';
import { createFakeNmcli, hexOf, terse } from '../wifi/fake-nmcli.js';
import { DEVICES, linkOf, startNetwork } from '../wifi/wifi-rig.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../helpers/wait.js';

/** The backup routes and the network output over a fake nmcli: what a restore makes NetworkManager do. */
async function startRestoreRig() {
  const nmcli = createFakeNmcli();
  const sysDir = mkdtempSync(join(tmpdir(), 'sys-class-net-'));
  let backend: WifiBackend | undefined;
  const http = await startHttpContext({
    routes: (router, ctx) => {
      backend = createWifiBackend(ctx, { pathEnv: nmcli.dir, sysClassNet: sysDir });
      registerBackupRoutes(router, ctx);
      registerWifiRoutes(router, ctx, backend);
    },
  });
  const network = runOutput(http.ctx, createNetworkOutput(http.ctx, backend!));
  const rig = { http, nmcli, backend: backend!, network };
  return {
    ...rig,
    start: () => startNetwork(rig),
    async close() {
      await network.stop();
      await backend!.settle();
      await http.close();
      nmcli.remove();
      rmSync(sysDir, { recursive: true, force: true });
    },
  };
}

test('a restored backup that changes Wi-Fi and Ethernet is applied through the backend at once', async () => {
  const rig = await startRestoreRig();
  try {
    await rig.start();
    const backup = settingsBackup(rig.http.ctx, true);
    const settings = backup.settings as {
      wifi: { sta: Record<string, unknown> };
      eth: Record<string, unknown>;
    };
    settings.wifi.sta = { ...settings.wifi.sta, enable: true, name: 'restored-net', password: 'pass-word-1' };
    settings.eth = {
      ...settings.eth,
      static_ip: true,
      ip: '192.168.20.5',
      netmask: '255.255.255.0',
      gateway: '192.168.20.1',
      dns: '192.168.20.1',
    };
    rig.nmcli.answer([{ args: DEVICES, stdout: 'wlan0:wifi:disconnected:\neth0:ethernet:connected:\n' }]);
    const answer = await fetch(`${rig.http.baseUrl}/api/v1/backup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(backup),
    });
    assert.equal(answer.status, 200, await answer.text());
    await rig.backend.settle();
    const adds = rig.nmcli.calls().filter((args) => args[0] === 'connection' && args[1] === 'add');
    const station = adds.find((args) => args.includes(STATION_PROFILE));
    const wired = adds.find((args) => args.includes(ETHERNET_PROFILE));
    assert.ok(station, 'the station profile is added');
    assert.equal(station[station.indexOf('802-11-wireless.ssid') + 1], 'restored-net');
    assert.ok(wired, 'the wired profile is added');
    assert.deepEqual(wired.slice(wired.indexOf('ipv4.addresses'), wired.indexOf('ipv4.addresses') + 2), [
      'ipv4.addresses',
      '192.168.20.5/24',
    ]);
    assert.equal(rig.http.ctx.services.get('network')?.state, 'running');
  } finally {
    await rig.close();
  }
});

test('a backend that fails to apply a restored station: the restore answers 500 naming the network output, and says so in its state', async () => {
  const rig = await startRestoreRig();
  try {
    await rig.start();
    rig.nmcli.answer([{ prefix: ['connection', 'add'], stderr: 'Error: failed to add profile.\n', code: 2 }]);
    const backup = settingsBackup(rig.http.ctx, true);
    (backup.settings as { wifi: { sta: Record<string, unknown> } }).wifi.sta.enable = true;
    (backup.settings as { wifi: { sta: Record<string, unknown> } }).wifi.sta.name = 'another-net';
    const answer = await fetch(`${rig.http.baseUrl}/api/v1/backup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(backup),
    });
    assert.equal(answer.status, 500);
    const body = (await answer.json()) as { message: string; details: { saved: boolean } };
    assert.match(body.message, /not applied by: network/);
    assert.equal(body.details.saved, true);
    assert.equal(rig.http.ctx.config.config.wifi.sta.name, 'another-net', 'the restored value is stored');
    // Failed and retried by the runner (docs/architecture.md#output-contract).
    assert.equal(rig.http.ctx.services.get('network')?.state, 'retrying');
    assert.match(String(rig.http.ctx.services.get('network')?.error), /failed to add profile/);
  } finally {
    await rig.close();
  }
});

test("the backend's link-state reports keep the link facts the template's wifi.* variables read", async () => {
  const rig = await startRestoreRig();
  try {
    rig.nmcli.answer([
      { args: DEVICES, stdout: 'wlan0:wifi:connected:home\n' },
      {
        prefix: ['-t', '-f', 'ACTIVE,BSSID,SSID-HEX,SSID,CHAN,SIGNAL'],
        stdout: `${terse('yes', 'aa:bb:cc:00:00:02', hexOf('home'), 'home', '6', '75')}\n`,
      },
      { prefix: ['-t', '-f', 'IP4.ADDRESS'], stdout: 'IP4.ADDRESS[1]:192.168.1.44/24\n' },
    ]);
    await rig.start();
    const facts = () => Object.keys((linkOf(rig.http.ctx, 'wifi')?.info as object | undefined) ?? {});
    const before = facts();
    assert.ok(before.length >= 5, `link facts: ${before.join(', ')}`);
    // A station write makes the backend report new link states (connecting, connected ...).
    const put = await fetch(`${rig.http.baseUrl}/api/v1/wifi/sta/settings`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ enable: true, name: 'home', password: 'pass-word-1' }),
    });
    assert.equal(put.status, 200);
    await rig.backend.settle();
    await waitFor(
      'a state reported by the backend',
      () => linkOf(rig.http.ctx, 'wifi')?.link,
      (s) => s === 'connected',
    );
    assert.deepEqual(facts(), before, 'the facts stay until the next refresh replaces them');
  } finally {
    await rig.close();
  }
});
