import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultClientId } from '../src/mqtt/connection-options.js';
import { readSystemId, resolveSystemId } from '../src/system-id.js';
import { startDaemonProcess } from './helpers/daemon-process.js';

const stateDir = () => mkdtempSync(join(tmpdir(), 'mg-system-id-'));

test('a new state directory gets a random id, kept in <state>/system-id across starts', () => {
  const dir = stateDir();
  const id = resolveSystemId('', dir);
  assert.match(id, /^[0-9A-F]{12}$/);
  assert.equal(parseInt(id.slice(0, 2), 16) & 0x03, 0x02, 'locally administered, unicast');
  assert.equal(readFileSync(join(dir, 'system-id'), 'utf8'), `${id}\n`);
  assert.equal(resolveSystemId('', dir), id, 'the same id at the next start');
  assert.notEqual(resolveSystemId('', stateDir()), id, 'another state directory, another id');
});

test('device.id wins; a state directory of an earlier version keeps its hardware-derived id', () => {
  assert.equal(resolveSystemId('A1B2C3D4E5F6', stateDir()), 'A1B2C3D4E5F6');
  const earlier = stateDir();
  writeFileSync(join(earlier, 'settings.json'), '{}');
  assert.equal(resolveSystemId('', earlier), readSystemId());
  const corrupt = stateDir();
  writeFileSync(join(corrupt, 'system-id'), 'not an id\n');
  assert.match(resolveSystemId('', corrupt), /^[0-9A-F]{12}$/);
});

test('two daemons on one host (two state directories) have different system ids and MQTT client ids', async (t) => {
  const first = await startDaemonProcess(stateDir());
  t.after(() => first.stop());
  const second = await startDaemonProcess(stateDir());
  t.after(() => second.stop());
  const ids = await Promise.all(
    [first, second].map(async (daemon) => {
      const system = (await (await fetch(`${daemon.baseUrl}/api/v1/system`)).json()) as {
        device: { id: string };
      };
      return system.device.id;
    }),
  );
  assert.notEqual(ids[0], ids[1]);
  // The MQTT client id that each would use with client_id left empty.
  assert.notEqual(defaultClientId(ids[0]!), defaultClientId(ids[1]!));
});
