import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createAppContext } from '../../../src/context.js';
import { registerConfigFormats } from '../../../src/config-formats.js';
import { startDaemon } from '../../helpers/daemon-process.js';
import { waitFor } from '../../helpers/wait.js';
import { createFakeNmcli } from './fake-nmcli.js';
import { DEVICES, send, startRig, stopRig } from './wifi-rig.js';

registerConfigFormats();

/**
 * Interface names never reach nmcli as an option: a name must start with a letter or digit, in the
 * config (network.ethernet_interface, from the admin file or the environment) and for the devices
 * NetworkManager itself reports.
 */

const HOSTILE = ['--help', '-h', '-', '.hidden', '_x', 'a b', 'eth0;reboot', 'x'.repeat(16)];
const FINE = ['eth0', 'end0', 'enp1s0', 'wlan0.100', 'br-lan', 'usb_0', '0eth'];

function loadWith(name: string): string | undefined {
  const stateDir = mkdtempSync(join(tmpdir(), 'meter-gateway-ifname-'));
  try {
    const ctx = createAppContext({ env: { METER_GATEWAY_NETWORK_ETHERNET_INTERFACE: name }, stateDir });
    ctx.store.close();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

test('the config refuses interface names that do not start with a letter or digit, naming the key', () => {
  for (const name of HOSTILE) {
    const refusal = loadWith(name);
    assert.ok(refusal !== undefined, `${JSON.stringify(name)} was accepted`);
    assert.match(refusal, /network\.ethernet_interface/, refusal);
  }
  for (const name of FINE) assert.equal(loadWith(name), undefined, name);
});

test('the daemon with network.ethernet_interface "--help" refuses to start and never runs nmcli with it', async () => {
  const nmcli = createFakeNmcli();
  const state = mkdtempSync(join(tmpdir(), 'meter-gateway-ifname-daemon-'));
  try {
    const daemon = startDaemon(state, {
      METER_GATEWAY_NETWORK_ETHERNET_INTERFACE: '--help',
      PATH: `${nmcli.dir}${delimiter}${process.env.PATH ?? ''}`,
    });
    // A daemon that starts listening took the name: stopped, and the test fails below.
    const listening = waitFor(
      'the daemon to listen or exit',
      daemon.output,
      (output) => /http: listening on/.test(output) || daemon.child.exitCode !== null,
    ).then(
      () => daemon.child.kill('SIGTERM'),
      () => undefined,
    );
    const code = await daemon.exited;
    await listening;
    assert.doesNotMatch(daemon.output(), /http: listening on/);
    assert.notEqual(code, 0, daemon.output());
    assert.match(daemon.output(), /network\.ethernet_interface/);
    for (const argv of nmcli.calls()) assert.ok(!argv.includes('--help'), JSON.stringify(argv));
  } finally {
    nmcli.remove();
    rmSync(state, { recursive: true, force: true });
  }
});

test('a device NetworkManager reports under a name starting with "-" is never passed back to nmcli', async () => {
  const rig = await startRig();
  try {
    rig.nmcli.answer([{ args: DEVICES, stdout: '--help:wifi:disconnected:\n-x:ethernet:connected:wired\n' }]);
    const reply = await send(rig, 'PUT', { enable: true, name: 'Net', password: 'correct horse' });
    await rig.backend.settle();
    const calls = rig.nmcli.calls();
    assert.ok(
      calls.some((argv) => argv.join(' ') === DEVICES.join(' ')),
      'the devices were listed',
    );
    for (const argv of calls) {
      const hostile = argv.filter((arg, i) => (arg === '--help' || arg === '-x') && i > 0);
      assert.deepEqual(hostile, [], JSON.stringify(argv));
    }
    // No usable Wi-Fi device: the settings are refused or stored without a device, never applied to "--help".
    assert.ok([200, 400, 409, 500, 503].includes(reply.status), String(reply.status));
  } finally {
    await stopRig(rig);
  }
});
