import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadingStore } from '../../src/reading/store.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { requireCommand } from '../helpers/environment.js';
import { mbpollRtu, startRig } from '../modbus/rtu-rig.js';
import { waitFor } from '../helpers/wait.js';
import { closeClient, connectClient, mbpoll, mbpollValues, startSlave } from '../modbus/clients.js';

/**
 * The Modbus TCP slave's unit-id map: unit n reads meter n with the same profile; an unmapped unit
 * id answers exception 0x0B (gateway target device failed to respond) unless the map has a `*`
 * entry; the default map (`{"*": "main"}`) reads the primary at every unit id as before.
 */

function reading(watts: number): Reading {
  return {
    receivedAt: Date.now(),
    protocol: 'MODBUS',
    identity: {},
    values: valuesOf({
      '1.7.0': [watts / 1000, 'kW'],
      '2.7.0': [0, 'kW'],
      '1.8.0': [watts, 'kWh'],
      '2.8.0': [1, 'kWh'],
    }),
    mbus: [],
  };
}

/** SDM630 30053 (PDU 0x34): total system power in W, a float (mbpoll reference 53). */
async function powerAt(port: number, unit: number): Promise<{ code: number; watts?: number; text: string }> {
  const { code, stdout, stderr } = await mbpoll([
    '-a',
    String(unit),
    '-B',
    '-t',
    '3:float',
    '-r',
    '53',
    '-c',
    '1',
    '127.0.0.1',
    '-p',
    String(port),
  ]);
  return { code, watts: mbpollValues(stdout).get(53), text: stdout + stderr };
}

test('unit 2 reads the second meter, unit 9 gets exception 0x0B, unit 1 the primary; a * entry serves the unmapped unit ids', async (t) => {
  if (!requireCommand(t, 'mbpoll')) return;
  const slave = await startSlave({
    env: {
      METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sdm630',
      METER_GATEWAY_METERS: JSON.stringify([{ id: 'pv', name: 'PV', role: 'pv', source: 'simulator' }]),
      METER_GATEWAY_SERVICES_MODBUS_UNITS: JSON.stringify({ '1': 'main', '2': 'pv' }),
    },
  });
  const pv = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485' });
  t.after(async () => {
    pv.close();
    await slave.stop();
  });
  slave.ctx.meters.add({
    id: 'pv',
    name: 'PV',
    role: 'pv',
    kind: 'polled',
    store: pv,
    source: () => 'simulator',
  });
  slave.ctx.store.ingest(reading(1234));
  pv.ingest(reading(-2500 * -1));
  assert.equal((await powerAt(slave.port, 1)).watts, 1234);
  assert.equal((await powerAt(slave.port, 2)).watts, 2500);
  const nine = await powerAt(slave.port, 9);
  assert.notEqual(nine.code, 0);
  // libmodbus's text of exception 0x0B; modbus-serial gives the code itself.
  assert.match(nine.text, /Target device failed to respond/);
  const client = await connectClient(slave.port, 9);
  await assert.rejects(
    client.readInputRegisters(52, 2),
    (error: { modbusCode?: number }) => error.modbusCode === 0x0b,
  );
  await closeClient(client);
  // A new reading of the second meter is served at once.
  pv.ingest(reading(777));
  assert.equal((await powerAt(slave.port, 2)).watts, 777);
  // A `*` entry names the meter of every other unit id.
  assert.equal(
    slave.ctx.config.apply(new Map([['services.modbus.units', { '1': 'main', '*': 'pv' }]])).ok,
    true,
  );
  assert.equal((await powerAt(slave.port, 9)).watts, 777);
  assert.equal((await powerAt(slave.port, 1)).watts, 1234);
  // A unit map naming a meter the configuration lacks is refused, naming the field.
  const refused = slave.ctx.config.apply(new Map([['services.modbus.units', { '1': 'main', '3': 'nope' }]]));
  assert.equal(refused.ok, false);
  assert.match(JSON.stringify(refused), /services\.modbus\.units.*unit 3 names unknown meter \\"nope\\"/);
});

test('the default map answers every unit id with the primary; a map set explicitly, even {"1": "main"} alone, answers 0x0B for the others', async (t) => {
  if (!requireCommand(t, 'mbpoll')) return;
  const slave = await startSlave({ env: { METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sdm630' } });
  t.after(() => slave.stop());
  assert.deepEqual(slave.ctx.config.config.services.modbus.units, { '*': 'main' });
  slave.ctx.store.ingest(reading(1234));
  // The device answers for any address (its spec): an existing client polling unit 9 or 247 reads on.
  for (const unit of [1, 9, 247]) assert.equal((await powerAt(slave.port, unit)).watts, 1234, `unit ${unit}`);
  assert.equal(slave.ctx.config.apply(new Map([['services.modbus.units', { '1': 'main' }]])).ok, true);
  assert.equal((await powerAt(slave.port, 1)).watts, 1234);
  const nine = await powerAt(slave.port, 9);
  assert.notEqual(nine.code, 0);
  assert.match(nine.text, /Target device failed to respond/);
  // A unit id outside 1..247 or a key that is no unit id is refused, naming the field.
  const refused = slave.ctx.config.apply(new Map([['services.modbus.units', { '0': 'main', x: 'main' }]]));
  assert.equal(refused.ok, false);
  assert.match(
    JSON.stringify(refused),
    /services\.modbus\.units.*0: a unit id must be 1\.\.247.*x: a unit id/,
  );
  // Back to the default: every unit id reads the primary again.
  assert.equal(slave.ctx.config.apply(new Map([['services.modbus.units', { '*': 'main' }]])).ok, true);
  assert.equal((await powerAt(slave.port, 9)).watts, 1234);
});

test('the RTU slave emulates the meter services.modbus_rtu.meter names, and follows a change to another', async (t) => {
  if (!requireCommand(t, 'socat') || !requireCommand(t, 'mbpoll')) return;
  const rig = await startRig(t, {
    METER_GATEWAY_SERVICES_MODBUS_RTU_PROFILE: 'sdm630',
    METER_GATEWAY_METERS: JSON.stringify([{ id: 'ev', name: 'EV', role: 'ev', source: 'simulator' }]),
    METER_GATEWAY_SERVICES_MODBUS_RTU_METER: 'ev',
  });
  const ev = new ReadingStore({ staleAfterMs: 60_000, meterInterface: 'RS485' });
  t.after(() => ev.close());
  rig.ctx.meters.add({
    id: 'ev',
    name: 'EV',
    role: 'ev',
    kind: 'polled',
    store: ev,
    source: () => 'simulator',
  });
  ev.ingest(reading(3300));
  rig.ctx.store.ingest(reading(1234));
  const read = async () => {
    await waitFor('the RTU slave to listen', () => rig.ctx.services.get('modbus_rtu')?.state === 'running');
    const { stdout } = await mbpollRtu(rig.pty.meterPath, ['-B', '-t', '3:float', '-r', '53', '-c', '1']);
    return mbpollValues(stdout).get(53);
  };
  assert.equal(await read(), 3300);
  assert.equal(rig.ctx.config.apply(new Map([['services.modbus_rtu.meter', 'main']])).ok, true);
  assert.equal(await waitFor('the primary served', read, (watts) => watts === 1234), 1234);
});
