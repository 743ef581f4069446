import { test } from 'node:test';
import { cachedWifiInfo } from '../../../src/device/network/network-output.js';
import assert from 'node:assert/strict';
import { hexOf, terse } from './fake-nmcli.js';
import { DEVICES, linkOf, SCAN_FIELDS, scanLine, startRig, stopRig } from './wifi-rig.js';
import { waitFor } from '../../helpers/wait.js';

test('scan lists access points with colons, backslashes and non-ASCII SSIDs within the spec limits', async () => {
  const rig = await startRig(true, false);
  try {
    const output = [
      scanLine('AA:BB:CC:00:00:01', 'Cafe:Bar', 1, 80, 'WPA2', '40 MHz'),
      scanLine('AA:BB:CC:00:00:02', 'back\\slash\\:', 6, 70, 'WPA1 WPA2', '20 MHz'),
      scanLine('AA:BB:CC:00:00:03', 'Café ☕ Zürich', 11, 90, '', '20 MHz'),
      scanLine('AA:BB:CC:00:00:04', 'fünf-ghz', 36, 99, 'WPA2', '80 MHz'),
    ].join('\n');
    rig.nmcli.answer([{ prefix: ['-t', '-f', `${SCAN_FIELDS},BANDWIDTH`], stdout: `${output}\n` }]);
    const response = await fetch(`${rig.http.baseUrl}/api/v1/wifi/scan`);
    assert.equal(response.status, 200);
    const entries = (await response.json()) as Record<string, unknown>[];
    assert.deepEqual(entries, [
      {
        ssid: 'Café ☕ Zürich',
        bssid: 'AA:BB:CC:00:00:03',
        channel: 11,
        ht: '20',
        rssi: -46,
        signal: 90,
        auth_mode: 'open',
        pairwise_cipher: 'CCMP',
        group_cipher: 'CCMP',
      },
      {
        ssid: 'Cafe:Bar',
        bssid: 'AA:BB:CC:00:00:01',
        channel: 1,
        ht: '40+',
        rssi: -52,
        signal: 80,
        auth_mode: 'WPA2',
        pairwise_cipher: 'CCMP',
        group_cipher: 'CCMP',
      },
      {
        ssid: 'back\\slash\\:',
        bssid: 'AA:BB:CC:00:00:02',
        channel: 6,
        ht: '20',
        rssi: -58,
        signal: 70,
        auth_mode: 'WPA/WPA2',
        pairwise_cipher: 'CCMP',
        group_cipher: 'CCMP',
      },
    ]);
    assert.deepEqual(rig.nmcli.calls(), [
      ['-t', '-f', `${SCAN_FIELDS},BANDWIDTH`, 'device', 'wifi', 'list', '--rescan', 'auto'],
    ]);
  } finally {
    await stopRig(rig);
  }
});

test('scan falls back to the fields of NetworkManager before 1.44 when BANDWIDTH is refused', async () => {
  const rig = await startRig(true, false);
  try {
    rig.nmcli.answer([
      {
        prefix: ['-t', '-f', `${SCAN_FIELDS},BANDWIDTH`],
        stderr: "Error: invalid field 'BANDWIDTH'.\n",
        code: 2,
      },
      { prefix: ['-t', '-f', SCAN_FIELDS], stdout: `${scanLine('AA:BB:CC:00:00:09', 'old-nm', 3, 50)}\n` },
    ]);
    const entries = (await (await fetch(`${rig.http.baseUrl}/api/v1/wifi/scan`)).json()) as Record<
      string,
      unknown
    >[];
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.ssid, 'old-nm');
    assert.equal('ht' in entries[0]!, false);
    const second = await fetch(`${rig.http.baseUrl}/api/v1/wifi/scan`);
    assert.equal(second.status, 200);
    assert.deepEqual(
      rig.nmcli.calls().map((args) => args[2]),
      [`${SCAN_FIELDS},BANDWIDTH`, SCAN_FIELDS, SCAN_FIELDS],
    );
  } finally {
    await stopRig(rig);
  }
});

test('a failing nmcli scan answers 500 with the error body', async () => {
  const rig = await startRig(true, false);
  try {
    rig.nmcli.answer([{ prefix: ['-t'], stderr: 'Error: NetworkManager is not running.\n', code: 8 }]);
    const response = await fetch(`${rig.http.baseUrl}/api/v1/wifi/scan`);
    assert.equal(response.status, 500);
    const body = (await response.json()) as { error: string; message: string };
    assert.equal(body.error, 'internal_error');
    assert.match(body.message, /NetworkManager is not running/);
  } finally {
    await stopRig(rig);
  }
});

test('wifiInfo reports the connected access point and address from nmcli', async () => {
  const rig = await startRig(true, false);
  try {
    rig.nmcli.answer([
      { args: DEVICES, stdout: 'eth0:ethernet:unavailable:\nwlan0:wifi:connected:home\n' },
      {
        prefix: ['-t', '-f', 'ACTIVE,BSSID,SSID-HEX,SSID,CHAN,SIGNAL'],
        stdout: `${terse('no', 'AA:BB:CC:00:00:01', hexOf('other'), 'other', '1', '30')}\n${terse('yes', 'aa:bb:cc:00:00:02', hexOf('Zuhause:2'), 'Zuhause:2', '6', '75')}\n`,
      },
      { prefix: ['-t', '-f', 'IP4.ADDRESS'], stdout: 'IP4.ADDRESS[1]:192.168.1.44/24\n' },
    ]);
    assert.deepEqual(await rig.backend.wifiInfo(), {
      ssid: 'Zuhause:2',
      ip: '192.168.1.44',
      rssi: -55,
      signal: 75,
      bssid: 'AA:BB:CC:00:00:02',
      channel: 6,
    });
    const wifiList = rig.nmcli.calls().find((args) => args.includes('list'))!;
    assert.deepEqual(wifiList.slice(-4), ['--rescan', 'no', 'ifname', 'wlan0']);
  } finally {
    await stopRig(rig);
  }
});

test('the API reads the link facts the network output refreshed, without running nmcli per request', async () => {
  const rig = await startRig(true, false);
  const running = rig.network;
  try {
    rig.nmcli.answer([
      { args: DEVICES, stdout: 'wlan0:wifi:connected:home\n' },
      {
        prefix: ['-t', '-f', 'ACTIVE,BSSID,SSID-HEX,SSID,CHAN,SIGNAL'],
        stdout: `${terse('yes', 'aa:bb:cc:00:00:02', hexOf('home'), 'home', '6', '75')}\n`,
      },
      { prefix: ['-t', '-f', 'IP4.ADDRESS'], stdout: 'IP4.ADDRESS[1]:192.168.1.44/24\n' },
    ]);
    await running.start();
    await waitFor(
      'the link facts',
      () => linkOf(rig.http.ctx, 'wifi'),
      (s) => s?.info !== undefined,
    );
    rig.nmcli.clearCalls();
    for (let i = 0; i < 3; i++) {
      const info = await cachedWifiInfo(rig.http.ctx, rig.backend);
      assert.equal(info.ssid, 'home');
      assert.equal(info.ip, '192.168.1.44');
    }
    assert.deepEqual(rig.nmcli.calls(), [], 'served from the refreshed facts');
  } finally {
    await running.stop();
    await stopRig(rig);
  }
});
