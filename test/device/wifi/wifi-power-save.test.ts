import { applied } from '../../helpers/config-writes.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STATION_PROFILE } from '../../../src/device/wifi/nmcli-backend.js';
import { assertPowerSaveAllowed } from '../../../src/http/routes/wifi.js';
import { HttpError } from '../../../src/http/errors.js';
import { DEVICES, fakeInterface, startRig, stopRig } from './wifi-rig.js';

test('power save is refused with 400 while an Ethernet link is up (nmcli device states)', async () => {
  const rig = await startRig();
  try {
    const cases: [string, boolean][] = [
      ['eth0:ethernet:connected:Wired connection 1\nwlan0:wifi:connected:home\n', true],
      ['eth0:ethernet:disconnected:\n', true],
      ['eth0:ethernet:connecting (getting IP configuration):Wired\n', true],
      ['eth0:ethernet:unavailable:\nwlan0:wifi:connected:home\n', false],
      ['lo:loopback:unmanaged:\n', false],
    ];
    for (const [devices, ethernetUp] of cases) {
      rig.nmcli.answer([{ args: DEVICES, stdout: devices }]);
      if (ethernetUp) {
        await assert.rejects(
          assertPowerSaveAllowed(rig.backend, true),
          (error: HttpError) => error.status === 400,
        );
      } else {
        await assertPowerSaveAllowed(rig.backend, true);
      }
      await assertPowerSaveAllowed(rig.backend, false);
    }
    fakeInterface(rig.sysDir, 'eth1', { type: '1', carrier: '1' }, ['device']);
    rig.nmcli.answer([{ args: DEVICES, stdout: 'eth1:ethernet:unmanaged:\n' }]);
    await assert.rejects(assertPowerSaveAllowed(rig.backend, true), HttpError);
  } finally {
    await stopRig(rig);
  }
});

test('the file backend finds a wired link in sysfs and ignores wireless, virtual and carrier-less interfaces', async () => {
  const rig = await startRig(false);
  try {
    fakeInterface(rig.sysDir, 'wlan0', { type: '1', carrier: '1' }, ['device', 'wireless']);
    fakeInterface(rig.sysDir, 'docker0', { type: '1', carrier: '1' });
    fakeInterface(rig.sysDir, 'lo', { type: '772', carrier: '1' });
    fakeInterface(rig.sysDir, 'eth0', { type: '1', carrier: '0' }, ['device']);
    assert.equal(await rig.backend.ethernetLinkUp(), false);
    await assertPowerSaveAllowed(rig.backend, true);
    writeFileSync(join(rig.sysDir, 'eth0', 'carrier'), '1\n');
    assert.equal(await rig.backend.ethernetLinkUp(), true);
    await assert.rejects(
      assertPowerSaveAllowed(rig.backend, true),
      (error: HttpError) => error.key === 'validation_failed',
    );
  } finally {
    await stopRig(rig);
  }
});

test('the network output applies power save changes to the active and own profiles and syncs at start', async () => {
  const rig = await startRig(true, false);
  const { ctx } = rig.http;
  try {
    rig.nmcli.answer([
      { args: DEVICES, stdout: 'wlan0:wifi:connected:preconfigured\n' },
      {
        args: ['-t', '-f', 'NAME', 'connection', 'show'],
        stdout: `preconfigured\n${STATION_PROFILE}\nWired connection 1\n`,
      },
    ]);
    const running = rig.network;
    await running.start();
    // stored settings say disabled: a leftover profile (after a restore) is removed. The first
    // link-facts refresh (terse `-t` queries: device status, the address) runs beside the start-up
    // sync and may come after it; only the changes are in order.
    const changes = rig.nmcli.calls().filter((args) => args[0] !== '-t');
    assert.deepEqual(changes.at(-1), ['connection', 'delete', 'id', STATION_PROFILE]);
    rig.nmcli.clearCalls();
    assert.deepEqual(await applied(ctx.config.apply(new Map([['system.power_save', true]]))), {
      ok: true,
      changed: ['system.power_save'],
      failed: [],
    });
    await rig.backend.settle();
    const modifies = rig.nmcli.calls().filter((args) => args[1] === 'modify');
    assert.deepEqual(modifies, [
      ['connection', 'modify', 'id', 'preconfigured', '802-11-wireless.powersave', '3'],
      ['connection', 'modify', 'id', STATION_PROFILE, '802-11-wireless.powersave', '3'],
    ]);
    assert.ok(
      rig.nmcli.calls().some((args) => args.join(' ') === '--wait 30 connection up id preconfigured'),
    );
    await running.stop();
    rig.nmcli.clearCalls();
    ctx.config.apply(new Map([['system.power_save', false]]));
    await rig.backend.settle();
    assert.deepEqual(rig.nmcli.calls(), [], 'no reaction after stop');
  } finally {
    await stopRig(rig);
  }
});
