import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMeterReader, type RegisterClient } from '../../../src/meter/modbus/meter-reader.js';
import { ModbusMeterTransport } from '../../../src/meter/modbus/modbus-transport.js';
import { readingFromRegisters } from '../../../src/meter/modbus/to-reading.js';
import { parseSource, type ModbusSource } from '../../../src/meter/source.js';
import { parseDsmrCapture } from '../../../src/meter/dsmr/decoder.js';
import { crc16Arc } from '../../../src/checksum/crc16.js';
import { crcHex } from '../../../src/meter/dsmr/crc16-arc.js';
import { emDataStatus } from '../../../src/device/shelly/em-status.js';
import { METER_PROFILES } from '../../../src/modbus-protocol/profiles/catalogue.js';
import { gridValues } from '../../../src/modbus-protocol/profiles/grid-values.js';
import { BlockSpace } from '../../../src/modbus/register-space.js';
import { withDerivedValues } from '../../../src/reading/derive.js';
import type { Reading } from '../../../src/reading/reading.js';
import { syntheticReading } from '../../modbus/fixtures.js';
import { startSlave } from '../../modbus/clients.js';
import { waitFor } from '../../helpers/wait.js';

/**
 * An SDM630's per-phase active energies, Eastron "SDM630 Modbus Protocol" input registers 30347..30357
 * (PDU 0x015A..0x0165: L1, L2, L3 import kWh, then L1, L2, L3 export kWh, IEEE 754 floats high word
 * first), read by the Modbus meter source as OBIS 21/41/61.8.0 and 22/42/62.8.0 and served by the
 * Shelly Pro 3EM personality as `EMData` `a_total_act_energy` / `a_total_act_ret_energy` (b_, c_) in Wh.
 * A meter without them (a DSMR meter, an Eastron firmware without the range) leaves them null.
 */

const PHASE_ENERGIES = {
  '21.8.0': 4321.5,
  '41.8.0': 3210.25,
  '61.8.0': 2109.75,
  '22.8.0': 120.5,
  '42.8.0': 450.25,
  '62.8.0': 107.5,
};

/** The feeding meter of the simulated SDM630: the fixture reading with per-phase energies. */
function feeding(now: number): Reading {
  const reading = syntheticReading(now);
  const values = new Map(reading.values);
  for (const [obis, kwh] of Object.entries(PHASE_ENERGIES)) values.set(obis, { value: kwh, unit: 'kWh' });
  return { ...reading, values };
}

function tcpSource(port: number, profile = 'sdm630'): ModbusSource {
  return parseSource(`modbus-tcp://127.0.0.1:${port}?unit=1&profile=${profile}&interval=0.1`) as ModbusSource;
}

async function readOnce(
  source: ModbusSource,
): Promise<{ reading: Reading; transport: ModbusMeterTransport }> {
  const transport = new ModbusMeterTransport(source);
  const readings: Reading[] = [];
  transport.on('reading', (reading) => readings.push(reading));
  await transport.open();
  try {
    await waitFor('two readings', () => readings.length >= 2);
  } finally {
    await transport.close();
  }
  return { reading: readings[1]!, transport };
}

test('SDM630 per-phase import and export kWh: read from 30347..30357, served as Shelly EMData in Wh', async (t) => {
  const slave = await startSlave({ env: { METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sdm630' } });
  t.after(() => slave.stop());
  slave.ctx.store.ingest(feeding(slave.ctx.now()));
  const { reading, transport } = await readOnce(tcpSource(slave.port));
  for (const [obis, kwh] of Object.entries(PHASE_ENERGIES)) {
    assert.equal(reading.values.get(obis)?.value, kwh, obis);
    assert.equal(reading.values.get(obis)?.unit, 'kWh', obis);
  }
  assert.equal(transport.counters.exceptions, 0);
  const data = emDataStatus(reading);
  assert.equal(data.a_total_act_energy, 4321500);
  assert.equal(data.b_total_act_energy, 3210250);
  assert.equal(data.c_total_act_energy, 2109750);
  assert.equal(data.a_total_act_ret_energy, 120500);
  assert.equal(data.b_total_act_ret_energy, 450250);
  assert.equal(data.c_total_act_ret_energy, 107500);
});

test('a meter without the per-phase range (exception 02) is read without it: EMData per phase null', async (t) => {
  // The SDM120 map ends at 30346 (0x015A): the SDM630 source's second request gets exception 02.
  const slave = await startSlave({ env: { METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sdm120' } });
  t.after(() => slave.stop());
  slave.ctx.store.ingest(feeding(slave.ctx.now()));
  const { reading, transport } = await readOnce(tcpSource(slave.port));
  assert.equal(transport.counters.exceptions, 0);
  assert.ok(reading.values.has('1.8.0'));
  for (const obis of Object.keys(PHASE_ENERGIES)) assert.equal(reading.values.has(obis), false, obis);
  const data = emDataStatus(reading);
  for (const letter of ['a', 'b', 'c']) {
    assert.equal(data[`${letter}_total_act_energy`], null);
    assert.equal(data[`${letter}_total_act_ret_energy`], null);
  }
  assert.equal(typeof data.total_act, 'number');
});

test('an optional range answered with an exception is not asked again; a timeout still fails the read', async () => {
  const asked: number[] = [];
  let failure: Error = Object.assign(new Error('Modbus exception 2: Illegal data address'), {
    modbusCode: 2,
  });
  const client: RegisterClient = {
    readInputRegisters(address, length) {
      asked.push(address);
      if (address === 0x015a) return Promise.reject(failure);
      return Promise.resolve({ buffer: Buffer.alloc(length * 2) });
    },
    readHoldingRegisters: () => Promise.reject(new Error('no holding registers')),
  };
  const reader = createMeterReader('sdm630');
  await reader.read(client);
  await reader.read(client);
  assert.deepEqual(asked, [0x0000, 0x015a, 0x0000]);

  failure = Object.assign(new Error('Timed out'), { errno: 'ETIMEDOUT' });
  await assert.rejects(createMeterReader('sdm630').read(client), /Timed out/);
});

test('a DSMR meter has no per-phase energies: EMData a_/b_/c_ energies null, the totals in Wh', () => {
  const body = [
    '/ISK5\\2M550E-1011',
    '',
    '1-3:0.2.8(50)',
    '0-0:1.0.0(261129081500W)',
    '1-0:1.8.1(009811.204*kWh)',
    '1-0:1.8.2(008923.308*kWh)',
    '1-0:2.8.1(001811.420*kWh)',
    '1-0:2.8.2(002291.457*kWh)',
    '1-0:1.7.0(00.412*kW)',
    '1-0:2.7.0(00.000*kW)',
    '!',
  ].join('\r\n');
  const bytes = Buffer.from(body, 'latin1');
  const telegram = Buffer.concat([bytes, Buffer.from(`${crcHex(crc16Arc(bytes))}\r\n`, 'latin1')]);
  const [result] = parseDsmrCapture(telegram, 1000);
  assert.ok(result?.ok, JSON.stringify(result));
  // The store derives the totals from the tariff registers (DSMR sends only t1, t2).
  const data = emDataStatus(withDerivedValues(result.reading));
  for (const letter of ['a', 'b', 'c']) {
    assert.equal(data[`${letter}_total_act_energy`], null);
    assert.equal(data[`${letter}_total_act_ret_energy`], null);
  }
  assert.equal(data.total_act, 18734512);
  assert.equal(data.total_act_ret, 4102877);
});

test('registers to a Reading: per-phase energies in kWh under their OBIS codes, absent when not decoded', () => {
  const reading = readingFromRegisters(
    { 'phaseImportEnergy.0': 10.5, 'phaseExportEnergy.2': 2.25, importEnergy: 12 },
    {},
    1,
  );
  assert.equal(reading.values.get('21.8.0')?.value, 10.5);
  assert.equal(reading.values.get('62.8.0')?.value, 2.25);
  assert.equal(reading.values.has('41.8.0'), false);
  assert.equal(reading.values.has('22.8.0'), false);
});

test('the SDM630 slave serves the per-phase kWh of the reading and keeps them while stale (counters)', () => {
  const system = { id: 'B827EB12A4F0', model: 'm', firmware: '1', bootId: 'b', bootTime: 0 };
  const space = new BlockSpace(METER_PROFILES.sdm630);
  const reading = feeding(1000);
  const fresh = gridValues({ reading, identity: {}, system, direction: 'import_positive' });
  const phaseKwh = (): number[] => {
    const bytes = space.read('input', 0x015a, 12);
    assert.ok(Buffer.isBuffer(bytes));
    return [0, 1, 2, 3, 4, 5].map((k) => bytes.readFloatBE(4 * k));
  };
  const expected = ['21.8.0', '41.8.0', '61.8.0', '22.8.0', '42.8.0', '62.8.0'].map(
    (obis) => PHASE_ENERGIES[obis as keyof typeof PHASE_ENERGIES],
  );
  space.rebuild(fresh);
  assert.deepEqual(phaseKwh(), expected);
  space.rebuild(
    gridValues({ reading: undefined, identity: {}, system, direction: 'import_positive', previous: fresh }),
  );
  assert.deepEqual(phaseKwh(), expected);
  // A meter without per-phase energies: NaN, the Eastron "no value".
  space.rebuild(
    gridValues({ reading: syntheticReading(1000), identity: {}, system, direction: 'import_positive' }),
  );
  assert.ok(phaseKwh().every((value) => Number.isNaN(value)));
});
