import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ILLEGAL_DATA_ADDRESS, ILLEGAL_FUNCTION, type RegisterSpace } from '../../src/modbus/pdu.js';
import { METER_PROFILES } from '../../src/modbus-protocol/profiles/catalogue.js';
import { numericSerial } from '../../src/modbus-protocol/profiles/eastron.js';
import { gridValues, type GridSource } from '../../src/modbus-protocol/profiles/grid-values.js';
import { scaleFactorFor } from '../../src/modbus-protocol/profiles/sunspec.js';
import { BlockSpace } from '../../src/modbus/register-space.js';
import { withDerivedValues } from '../../src/reading/derive.js';
import { closeClient, connectClient, startSlave } from './clients.js';
import { syntheticReading } from './fixtures.js';

/**
 * The meter profiles, register by register, from the synthetic reading of ./fixtures.ts:
 * import 1.234 kW, export 0.412 kW (net 822 W), L1 +811 W, L2 -412 W, L3 +423 W, reactive
 * 0.317 - 0.052 kvar, 230.1 / 229.8 / 231.4 V, 3.62 / 1.87 / 1.93 A, PF 0.987, 1.301 kVA,
 * 1.8.0 = 35802.467 kWh and 2.8.0 = 3580.245 kWh (the store's tariff sums).
 */

const SYSTEM = { id: 'B827EB12A4F0', model: 'WW_Go_1.2', firmware: '2.1.7', bootId: 'b', bootTime: 0 };
const LINE = { unitId: 7, baudRate: 9600, parity: 'even', stopBits: 1 } as const;

function source(overrides: Partial<GridSource> = {}): GridSource {
  const reading = withDerivedValues(syntheticReading());
  return {
    reading,
    identity: reading.identity,
    system: SYSTEM,
    direction: 'import_positive',
    line: LINE,
    nominalFrequency: 50,
    ...overrides,
  };
}

function space(profile: keyof typeof METER_PROFILES, overrides: Partial<GridSource> = {}): RegisterSpace {
  const blocks = new BlockSpace(METER_PROFILES[profile]);
  blocks.rebuild(gridValues(source(overrides)));
  return blocks;
}

function words(space: RegisterSpace, table: 'holding' | 'input', start: number, quantity: number): Buffer {
  const bytes = space.read(table, start, quantity);
  assert.ok(Buffer.isBuffer(bytes), `read ${table} ${start}+${quantity}: exception ${String(bytes)}`);
  return bytes;
}

function float(space: RegisterSpace, table: 'holding' | 'input', address: number): number {
  return words(space, table, address, 2).readFloatBE(0);
}

const f = Math.fround;

test('SDM630: FC 04 floats, high word first, W signed import +, currents unsigned, kWh', () => {
  const sdm = space('sdm630');
  // Byte-exact: 30001..30006 are the three voltages as big-endian IEEE 754 singles.
  const expected = Buffer.alloc(12);
  [230.1, 229.8, 231.4].forEach((v, k) => expected.writeFloatBE(v, 4 * k));
  assert.deepEqual(words(sdm, 'input', 0x0000, 6), expected);
  assert.equal(float(sdm, 'input', 0x0006), f(3.62));
  assert.equal(float(sdm, 'input', 0x0008), f(1.87));
  assert.equal(float(sdm, 'input', 0x000c), f(811));
  assert.equal(float(sdm, 'input', 0x000e), f(-412));
  assert.equal(float(sdm, 'input', 0x0010), f(423));
  assert.equal(float(sdm, 'input', 0x0018), f(201));
  assert.equal(float(sdm, 'input', 0x002a), f((230.1 + 229.8 + 231.4) / 3));
  assert.equal(float(sdm, 'input', 0x0030), f(3.62 + 1.87 + 1.93));
  assert.equal(float(sdm, 'input', 0x0034), f(822));
  assert.equal(float(sdm, 'input', 0x0038), f(1301));
  assert.equal(float(sdm, 'input', 0x003c), f(265));
  assert.equal(float(sdm, 'input', 0x003e), f(0.987));
  assert.equal(float(sdm, 'input', 0x0048), f(35802.467));
  assert.equal(float(sdm, 'input', 0x004a), f(3580.245));
  assert.equal(float(sdm, 'input', 0x0156), f(35802.467 + 3580.245));
  // Not measured by the grid meter: NaN, never a made-up number; the frequency is the nominal one.
  assert.equal(float(sdm, 'input', 0x0046), 50);
  assert.ok(Number.isNaN(float(sdm, 'input', 0x0012)), 'phase VA');
  // Set-up registers mirror the RTU line: 3P4W, even parity (1), node 7, 9600 baud (2).
  assert.equal(float(sdm, 'holding', 0x000a), 3);
  assert.equal(float(sdm, 'holding', 0x0012), 1);
  assert.equal(float(sdm, 'holding', 0x0014), 7);
  assert.equal(float(sdm, 'holding', 0x001c), 2);
  assert.equal(words(sdm, 'holding', 0xfc00, 2).readUInt32BE(0), 123456715);
  // Outside the map: illegal address; a read across the end of a block too.
  assert.equal(sdm.read('input', 0x017c, 4), ILLEGAL_DATA_ADDRESS);
  assert.equal(sdm.read('input', 0x2000, 2), ILLEGAL_DATA_ADDRESS);
  assert.equal(sdm.read('holding', 0x0100, 2), ILLEGAL_DATA_ADDRESS);
});

test('SDM630: export_positive flips every signed power, not the energy counters', () => {
  const sdm = space('sdm630', { direction: 'export_positive' });
  assert.equal(float(sdm, 'input', 0x0034), f(-822));
  assert.equal(float(sdm, 'input', 0x000e), f(412));
  assert.equal(float(sdm, 'input', 0x003c), f(-265));
  assert.equal(float(sdm, 'input', 0x0048), f(35802.467));
});

test('no data (stale or no meter yet): Eastron and Chint floats read NaN, set-up registers stay', () => {
  for (const profile of ['sdm630', 'sdm120', 'sdm72'] as const) {
    const sdm = space(profile, { reading: undefined });
    for (const address of [0x0000, 0x0006, 0x000c, 0x0046, 0x0048, 0x004a])
      assert.ok(Number.isNaN(float(sdm, 'input', address)), `${profile} ${address}`);
    assert.equal(float(sdm, 'holding', 0x0014), 7);
  }
  const dtsu = space('dtsu666', { reading: undefined });
  for (const address of [0x2006, 0x200c, 0x2012, 0x2044, 0x101e, 0x1028])
    assert.ok(Number.isNaN(float(dtsu, 'holding', address)), `dtsu666 ${address}`);
});

/** The values of a fresh reading, then of the same slave once the reading went stale. */
function staleAfterFresh(profile: keyof typeof METER_PROFILES): RegisterSpace {
  const blocks = new BlockSpace(METER_PROFILES[profile]);
  const fresh = gridValues(source());
  blocks.rebuild(fresh);
  blocks.rebuild(gridValues(source({ reading: undefined, previous: fresh })));
  return blocks;
}

test('stale: energy counters keep their last valid value, instantaneous values read no data', () => {
  for (const profile of ['sdm630', 'sdm120', 'sdm72'] as const) {
    const sdm = staleAfterFresh(profile);
    assert.equal(float(sdm, 'input', 0x0048), f(35802.467), profile);
    assert.equal(float(sdm, 'input', 0x004a), f(3580.245), profile);
    assert.equal(float(sdm, 'input', 0x0156), f(35802.467 + 3580.245), profile);
    assert.ok(Number.isNaN(float(sdm, 'input', 0x000c)), `${profile} power`);
  }
  const dtsu = staleAfterFresh('dtsu666');
  assert.equal(float(dtsu, 'holding', 0x101e), f(35802.467));
  assert.equal(float(dtsu, 'holding', 0x1028), f(3580.245));
  assert.ok(Number.isNaN(float(dtsu, 'holding', 0x2012)));
  const sun = words(staleAfterFresh('sunspec'), 'holding', 40072, 105);
  assert.equal(sun.readUInt32BE(44 * 2) * 10 ** sun.readInt16BE(52 * 2), 35802467);
  assert.equal(sun.readUInt32BE(36 * 2) * 10 ** sun.readInt16BE(52 * 2), 3580245);
  assert.equal(sun.readUInt16BE(16 * 2), 0x8000, 'W not implemented');
});

test('frequency: nominal when the meter sends none, the meter own when it does, NaN when set to 0', () => {
  assert.equal(float(space('sdm630', { nominalFrequency: 60 }), 'input', 0x0046), 60);
  assert.ok(Number.isNaN(float(space('sdm630', { nominalFrequency: 0 }), 'input', 0x0046)));
  const reading = withDerivedValues(syntheticReading());
  const values = new Map(reading.values);
  values.set('14.7.0', { value: 49.98, unit: 'Hz' });
  const measured = space('dtsu666', { reading: { ...reading, values } });
  assert.equal(float(measured, 'holding', 0x2044), f(4998));
  const sun = words(space('sunspec'), 'holding', 40072, 105);
  assert.equal(sunspecValue(sun, 14, 15), 50);
});

test('SDM120: one phase: total power and energies, L1 voltage and current', () => {
  const sdm = space('sdm120');
  assert.equal(float(sdm, 'input', 0x0000), f(230.1));
  assert.equal(float(sdm, 'input', 0x0006), f(3.62));
  assert.equal(float(sdm, 'input', 0x000c), f(822));
  assert.equal(float(sdm, 'input', 0x0048), f(35802.467));
  assert.equal(float(sdm, 'holding', 0x000a), 1);
});

test('SDM72D-M-2 V1.1: net kWh at 30397, total import W at 31281, total export W at 31283', () => {
  const sdm = space('sdm72');
  assert.equal(float(sdm, 'input', 0x0034), f(822));
  // Byte-exact: 30397 (0x018C) is import - export kWh as a big-endian single.
  const net = Buffer.alloc(4);
  net.writeFloatBE(35802.467 - 3580.245);
  assert.deepEqual(words(sdm, 'input', 0x018c, 2), net);
  assert.equal(float(sdm, 'input', 0x0500), f(822));
  assert.equal(float(sdm, 'input', 0x0502), 0);
  assert.equal(sdm.read('input', 0x0504, 2), ILLEGAL_DATA_ADDRESS);
  const exporting = space('sdm72', { direction: 'export_positive' });
  assert.equal(float(exporting, 'input', 0x0500), 0);
  assert.equal(float(exporting, 'input', 0x0502), f(822));
});

test('SDM630 V1.8: the map runs to 30382 (0x017D), so a batch 04 014E x48 is answered', () => {
  const sdm = space('sdm630');
  const batch = words(sdm, 'input', 0x014e, 48);
  assert.equal(batch.readFloatBE((0x0156 - 0x014e) * 2), f(35802.467 + 3580.245));
  // Per-phase import kWh L1 (0x015A) .. total kvarh L3 (0x017C): not sent by the grid meter.
  for (let address = 0x015a; address <= 0x017c; address += 2)
    assert.ok(Number.isNaN(batch.readFloatBE((address - 0x014e) * 2)), `0x${address.toString(16)}`);
});

test('DTSU666: FC 03 only, floats in the manual multiples (0.1 V, 0.001 A, 0.1 W)', () => {
  const dtsu = space('dtsu666');
  assert.equal(dtsu.read('input', 0x2000, 2), ILLEGAL_FUNCTION);
  assert.equal(float(dtsu, 'holding', 0x2006), f(2301));
  assert.equal(float(dtsu, 'holding', 0x2008), f(2298));
  assert.equal(float(dtsu, 'holding', 0x200c), f(3620));
  assert.equal(float(dtsu, 'holding', 0x2012), f(8220));
  assert.equal(float(dtsu, 'holding', 0x2014), f(8110));
  assert.equal(float(dtsu, 'holding', 0x2016), f(-4120));
  assert.equal(float(dtsu, 'holding', 0x201a), f(2650));
  assert.equal(float(dtsu, 'holding', 0x202a), f(987));
  // Byte-exact: 03 101E x12 (the Growatt's energy poll) is ImpEp, ImpEpA..C, NetImpEp, ExpEp.
  const energy = Buffer.alloc(24);
  [35802.467, NaN, NaN, NaN, NaN, 3580.245].forEach((v, k) => energy.writeFloatBE(v, 4 * k));
  assert.deepEqual(words(dtsu, 'holding', 0x101e, 12), energy);
  assert.equal(dtsu.read('holding', 0x401e, 2), ILLEGAL_DATA_ADDRESS);
  const setup = words(dtsu, 'holding', 0x0000, 0x30);
  assert.equal(setup.readInt16BE(0x0003 * 2), 0);
  assert.equal(setup.readInt16BE(0x0006 * 2), 1);
  assert.equal(setup.readInt16BE(0x0007 * 2), 10, 'UrAt in 0.1: ratio 1.0');
  // Table 11: 0x002C protocol (4 = E.1 for the even parity line), 0x002D bAud (3 = 9600), 0x002E Addr.
  assert.equal(setup.readInt16BE(0x002c * 2), 4);
  assert.equal(setup.readInt16BE(0x002d * 2), 3);
  assert.equal(setup.readInt16BE(0x002e * 2), 7);
});

/** Decodes a SunSpec model-203 value with its scale factor. */
function sunspecValue(model: Buffer, offset: number, sfOffset: number): number | undefined {
  const raw = model.readInt16BE(offset * 2);
  if (raw === -0x8000) return undefined;
  const sf = model.readInt16BE(sfOffset * 2);
  return sf < 0 ? raw / 10 ** -sf : raw * 10 ** sf;
}

test('SunSpec: SunS, model 1, model 203 with scale factors, end marker; no data = not implemented', () => {
  const sun = space('sunspec');
  const all = words(sun, 'holding', 40000, 125);
  const rest = words(sun, 'holding', 40125, 54);
  const image = Buffer.concat([all, rest]);
  assert.equal(image.subarray(0, 4).toString('latin1'), 'SunS');
  assert.equal(image.readUInt16BE(4), 1);
  assert.equal(image.readUInt16BE(6), 66);
  const model = image.subarray(2 * 72, 2 * (72 + 105));
  assert.equal(image.readUInt16BE(2 * 70), 203);
  assert.equal(image.readUInt16BE(2 * 71), 105);
  assert.equal(image.readUInt16BE(2 * 177), 0xffff);
  assert.equal(image.readUInt16BE(2 * 178), 0);
  assert.equal(sunspecValue(model, 16, 20), 822);
  assert.equal(sunspecValue(model, 18, 20), -412);
  assert.equal(sunspecValue(model, 6, 13), 230.1);
  assert.equal(sunspecValue(model, 1, 4), 3.62);
  assert.equal(sunspecValue(model, 31, 35), 98.7);
  assert.equal(sunspecValue(model, 14, 15), 50, 'Hz: the nominal frequency');
  const whSf = model.readInt16BE(52 * 2);
  assert.equal(model.readUInt32BE(44 * 2) * 10 ** whSf, 35802467);
  assert.equal(model.readUInt32BE(36 * 2) * 10 ** whSf, 3580245);
  assert.equal(sun.read('holding', 40170, 10), ILLEGAL_DATA_ADDRESS);
  assert.equal(sun.read('input', 40000, 2), ILLEGAL_FUNCTION);

  const stale = words(space('sunspec', { reading: undefined }), 'holding', 40072, 105);
  assert.equal(stale.readUInt16BE(16 * 2), 0x8000);
  assert.equal(stale.readUInt16BE(1 * 2), 0x8000);
  assert.equal(stale.readUInt32BE(44 * 2), 0, 'no reading yet: not accumulated');
});

test('SunSpec PF: 0.9996 is served as 99.96 % (PF_SF -2), not rounded to 100 %', () => {
  const reading = withDerivedValues(syntheticReading());
  const values = new Map(reading.values);
  values.set('13.7.0', { ...values.get('13.7.0')!, value: 0.9996 });
  const model = words(space('sunspec', { reading: { ...reading, values } }), 'holding', 40072, 105);
  assert.equal(model.readInt16BE(35 * 2), -2, 'PF_SF');
  assert.equal(model.readInt16BE(31 * 2), 9996);
  assert.equal(sunspecValue(model, 31, 35), 99.96);
});

test('SunSpec scale factors: the finest at which the group fits an int16', () => {
  assert.equal(scaleFactorFor([230.1, 229.8], -1), -1);
  assert.equal(scaleFactorFor([822, -412], 0), 0);
  assert.equal(scaleFactorFor([43_000, 14_000], 0), 1);
  assert.equal(scaleFactorFor([undefined, undefined], -2), -2);
  assert.equal(numericSerial('E0043007123456715'), 123456715);
  assert.equal(numericSerial(undefined), 0);
});

test('the TCP slave serves a SunSpec client walking the model chain from 40000', async (t) => {
  const slave = await startSlave({ env: { METER_GATEWAY_SERVICES_MODBUS_PROFILE: 'sunspec' } });
  t.after(() => slave.stop());
  slave.ctx.store.ingest(syntheticReading());
  const client = await connectClient(slave.port);
  t.after(() => closeClient(client));
  const marker = await client.readHoldingRegisters(40000, 2);
  assert.equal(marker.buffer.toString('latin1'), 'SunS');
  const models = new Map<number, Buffer>();
  let address = 40002;
  for (;;) {
    const [id, length] = (await client.readHoldingRegisters(address, 2)).data as [number, number];
    if (id === 0xffff) break;
    models.set(id, (await client.readHoldingRegisters(address + 2, length)).buffer);
    address += 2 + length;
  }
  assert.deepEqual([...models.keys()], [1, 203]);
  const common = models.get(1)!;
  assert.equal(common.subarray(0, 32).toString('latin1').replace(/\0+$/, ''), 'meter-gateway');
  assert.equal(common.subarray(32, 64).toString('latin1').replace(/\0+$/, ''), 'MT382-1000');
  const meter = models.get(203)!;
  assert.equal(sunspecValue(meter, 16, 20), 822);
  assert.equal(sunspecValue(meter, 17, 20), 811);
  // The whatwatt map's FC 04 table does not exist in this profile.
  await assert.rejects(client.readInputRegisters(0, 2), /Illegal function/i);
});

test('the TCP profile changes live; an unknown profile is rejected by the schema', async (t) => {
  const slave = await startSlave();
  t.after(() => slave.stop());
  slave.ctx.store.ingest(syntheticReading());
  const client = await connectClient(slave.port);
  t.after(() => closeClient(client));
  assert.equal((await client.readInputRegisters(1, 2)).buffer.readFloatBE(0), f(230.1));
  assert.ok(slave.ctx.config.apply(new Map([['services.modbus.profile', 'sdm630']])).ok);
  assert.equal((await client.readInputRegisters(0x0034, 2)).buffer.readFloatBE(0), f(822));
  const rejected = slave.ctx.config.apply(new Map([['services.modbus.profile', 'sdm999']]));
  assert.equal(rejected.ok, false);
  assert.equal(slave.ctx.config.config.services.modbus.profile, 'sdm630');
});
