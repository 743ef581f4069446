import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOAT_READ_MAPS } from '../../../src/modbus-protocol/profiles/catalogue.js';
import { decodeFloats } from '../../../src/modbus-protocol/profiles/float-points.js';
import { readingFromRegisters } from '../../../src/meter/modbus/to-reading.js';
import { emDataStatus, emStatus } from '../../../src/device/shelly/em-status.js';

/**
 * An SDM630's per-phase apparent power (30019..30023), power factor (30031..30035) and frequency
 * (30071), Eastron "SDM630 Modbus Protocol" input registers, decoded into the Reading and from there
 * into the Shelly personality's `a_aprt_power`, `a_pf` and `a_freq` (null only where a meter has no
 * such quantity).
 */

/** The 80 input registers of the Eastron poll (30001..30080), IEEE 754 floats high word first. */
function registers(values: Record<number, number>): Buffer {
  const bytes = Buffer.alloc(0x50 * 2);
  for (const [address, value] of Object.entries(values)) bytes.writeFloatBE(value, Number(address) * 2);
  return bytes;
}

const SDM630 = {
  0x0000: 231.5,
  0x0002: 229.25,
  0x0004: 232,
  0x0006: 4.5,
  0x0008: 2.25,
  0x000a: 1.5,
  0x000c: 1000,
  0x000e: -250,
  0x0010: 300,
  0x0012: 1041.75, // VA L1
  0x0014: 515.5, // VA L2
  0x0016: 348, // VA L3
  0x001e: 0.96, // PF L1
  0x0020: -0.471, // PF L2
  0x0022: 0.862, // PF L3
  0x0034: 1050,
  0x0038: 1905.25,
  0x003e: 0.95,
  0x0046: 49.75, // Hz
  0x0048: 12345.5,
  0x004a: 678.25,
};

test('SDM630: per-phase VA, power factor and the frequency reach the reading and the Shelly EM status', () => {
  const map = FLOAT_READ_MAPS.sdm630;
  const measured = decodeFloats(map.points, 0, registers(SDM630));
  const reading = readingFromRegisters(measured, { vendor: 'Eastron', model: 'SDM630' }, 1000);
  const value = (obis: string) => reading.values.get(obis)?.value;
  assert.equal(value('29.7.0'), 1.04175);
  assert.equal(value('49.7.0'), 0.5155);
  assert.equal(value('69.7.0'), 0.348);
  assert.equal(value('33.7.0'), 0.96);
  assert.equal(value('53.7.0'), -0.471);
  assert.equal(value('73.7.0'), 0.862);
  assert.equal(value('14.7.0'), 49.75);
  const em = emStatus(reading);
  assert.equal(em.a_aprt_power, 1041.8);
  assert.equal(em.b_aprt_power, 515.5);
  assert.equal(em.c_aprt_power, 348);
  assert.equal(em.a_pf, 0.96);
  assert.equal(em.b_pf, -0.47);
  assert.equal(em.c_pf, 0.86);
  for (const letter of ['a', 'b', 'c']) assert.equal(em[`${letter}_freq`], 49.8);
  const data = emDataStatus(reading);
  assert.equal(data.total_act, 12345500);
  assert.equal(data.total_act_ret, 678250);
});

test('SDM630 registers a meter leaves at NaN stay absent: the Shelly fields are null, never 0', () => {
  const map = FLOAT_READ_MAPS.sdm630;
  const bytes = registers({ ...SDM630 });
  for (const address of [0x0012, 0x0014, 0x0016, 0x001e, 0x0020, 0x0022])
    bytes.writeFloatBE(NaN, address * 2);
  const reading = readingFromRegisters(decodeFloats(map.points, 0, bytes), {}, 1000);
  assert.equal(reading.values.has('29.7.0'), false);
  const em = emStatus(reading);
  assert.equal(em.a_aprt_power, null);
  assert.equal(em.a_pf, null);
  assert.equal(em.a_freq, 49.8);
});
