import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATION_PROFILE } from '../../../src/device/wifi/nmcli-backend.js';
import { DEVICES, linkOf, send, startRig, stopRig } from './wifi-rig.js';

test('PUT applies the station through a fresh NetworkManager profile, never returning the password', async () => {
  const rig = await startRig();
  try {
    rig.nmcli.answer([{ args: DEVICES, stdout: 'wlan0:wifi:disconnected:\neth0:ethernet:unavailable:\n' }]);
    const station = {
      enable: true,
      name: 'Café:Net\\1',
      password: 'correct horse',
      static_ip: true,
      ip: '192.168.7.20',
      netmask: '255.255.255.0',
      gateway: '192.168.7.1',
      dns: '192.168.7.1',
      max_power: 17.5,
    };
    const put = await send(rig, 'PUT', station);
    assert.equal(put.status, 200);
    const { password: _password, ...visible } = station;
    assert.deepEqual(put.json, { ...visible, password_len: 13, max_tx_power: 17.5 });
    await rig.backend.settle();
    assert.deepEqual(rig.nmcli.calls(), [
      ['connection', 'delete', 'id', STATION_PROFILE],
      DEVICES,
      [
        'connection',
        'add',
        'type',
        'wifi',
        'con-name',
        STATION_PROFILE,
        'ifname',
        'wlan0',
        '802-11-wireless.ssid',
        'Café:Net\\1',
        'connection.autoconnect',
        'yes',
        '802-11-wireless.powersave',
        '2',
        'wifi-sec.key-mgmt',
        'wpa-psk',
        'wifi-sec.psk',
        'correct horse',
        'ipv4.method',
        'manual',
        'ipv4.addresses',
        '192.168.7.20/24',
        'ipv4.gateway',
        '192.168.7.1',
        'ipv4.dns',
        '192.168.7.1',
      ],
      ['--wait', '30', 'connection', 'up', 'id', STATION_PROFILE],
    ]);
    assert.equal(linkOf(rig.http.ctx, 'wifi')?.link, 'connected');
    const get = await send(rig, 'GET');
    assert.deepEqual(get.json, put.json);
    assert.equal(JSON.stringify(get.json).includes('correct horse'), false);
    const wifiFile = readFileSync(join(rig.http.stateDir, 'wifi.json'), 'utf8');
    assert.equal(wifiFile.includes('correct horse'), false);
    assert.match(readFileSync(join(rig.http.stateDir, 'secrets.json'), 'utf8'), /correct horse/);

    rig.nmcli.clearCalls();
    const partial = await send(rig, 'PUT', { static_ip: false, password: '' });
    assert.equal(partial.status, 200);
    await rig.backend.settle();
    const add = rig.nmcli.calls().find((args) => args[1] === 'add')!;
    assert.equal(add.includes('wifi-sec.psk'), false, 'open network: no security setting');
    assert.deepEqual(add.slice(-2), ['ipv4.method', 'auto']);
    assert.equal(
      add[add.indexOf('802-11-wireless.ssid') + 1],
      'Café:Net\\1',
      'PUT merges over the stored name',
    );
  } finally {
    await stopRig(rig);
  }
});

test('POST replaces the station but keeps an unsent password; a failed activation shows in the service state', async () => {
  const rig = await startRig();
  try {
    rig.nmcli.answer([
      {
        prefix: ['--wait'],
        stderr: 'Error: Connection activation failed: No network with SSID found.\n',
        code: 4,
      },
    ]);
    assert.equal(
      (await send(rig, 'PUT', { enable: true, name: 'first', password: 'password1', max_power: 10 })).status,
      200,
    );
    const post = await send(rig, 'POST', { enable: true, name: 'second' });
    assert.equal(post.status, 200);
    assert.deepEqual(post.json, {
      enable: true,
      name: 'second',
      static_ip: false,
      ip: '',
      netmask: '',
      gateway: '',
      dns: '',
      max_power: 20,
      password_len: 9,
      max_tx_power: 20,
    });
    await rig.backend.settle();
    const wifiState = linkOf(rig.http.ctx, 'wifi');
    assert.equal(wifiState?.link, 'error');
    assert.match(String(wifiState?.error), /No network with SSID found/);
  } finally {
    await stopRig(rig);
  }
});

test('invalid station settings answer 400 naming the fields and change nothing', async () => {
  const rig = await startRig();
  try {
    const cases: [unknown, string[]][] = [
      [{ name: 'x'.repeat(33) }, ['name']],
      [{ enable: true, name: 'n', password: 'short' }, ['password']],
      [{ static_ip: true, ip: '10.0.0.5', netmask: '255.255.255.0', dns: '10.0.0.1' }, ['gateway']],
      [{ max_power: 3.25 }, ['max_power']],
      [{ mode: 'ap' }, ['mode']],
    ];
    for (const [body, fields] of cases) {
      const response = await send(rig, 'PUT', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      const error = response.json as { error: string; details: { fields: { field: string }[] } };
      assert.equal(error.error, 'validation_failed');
      assert.deepEqual(
        error.details.fields.map((issue) => issue.field),
        fields,
      );
    }
    assert.deepEqual(rig.nmcli.calls(), []);
    assert.throws(() => readFileSync(join(rig.http.stateDir, 'wifi.json')), { code: 'ENOENT' });
  } finally {
    await stopRig(rig);
  }
});

test('DELETE clears and disables the client: 204, profile deleted even when absent', async () => {
  const rig = await startRig();
  try {
    assert.equal((await send(rig, 'PUT', { enable: true, name: 'home', password: 'password1' })).status, 200);
    await rig.backend.settle();
    rig.nmcli.clearCalls();
    rig.nmcli.answer([
      {
        prefix: ['connection', 'delete'],
        stderr: "Error: unknown connection 'meter-gateway-sta'.\n",
        code: 10,
      },
    ]);
    const deleted = await send(rig, 'DELETE');
    assert.equal(deleted.status, 204);
    assert.deepEqual(rig.nmcli.calls(), [['connection', 'delete', 'id', STATION_PROFILE]]);
    const get = (await send(rig, 'GET')).json as Record<string, unknown>;
    assert.equal(get.enable, false);
    assert.equal(get.name, '');
    assert.equal(get.password_len, 0);
    assert.equal(linkOf(rig.http.ctx, 'wifi')?.link, 'disabled');
  } finally {
    await stopRig(rig);
  }
});

test('without nmcli the file backend stores settings and scans nothing', async () => {
  const rig = await startRig(false);
  try {
    assert.equal(rig.backend.kind, 'file');
    assert.deepEqual(await (await fetch(`${rig.http.baseUrl}/api/v1/wifi/scan`)).json(), []);
    assert.equal(
      (await send(rig, 'PUT', { enable: true, name: 'stored-only', password: 'password1' })).status,
      200,
    );
    assert.match(readFileSync(join(rig.http.stateDir, 'wifi.json'), 'utf8'), /stored-only/);
    assert.equal(linkOf(rig.http.ctx, 'wifi')?.link, 'configured');
    assert.deepEqual(rig.nmcli.calls(), []);
  } finally {
    await stopRig(rig);
  }
});
