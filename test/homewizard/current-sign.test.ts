import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataOf } from '../../src/device/homewizard/api-v1.js';
import { parseDsmrCapture } from '../../src/meter/dsmr/decoder.js';
import { crc16Arc } from '../../src/checksum/crc16.js';
import { crcHex } from '../../src/meter/dsmr/crc16-arc.js';
import { FLOAT_READ_MAPS } from '../../src/modbus-protocol/profiles/catalogue.js';
import { decodeFloats } from '../../src/modbus-protocol/profiles/float-points.js';
import { readingFromRegisters } from '../../src/meter/modbus/to-reading.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';

/**
 * The HomeWizard P1 personality's `active_current_lN_a` carries the sign of its phase's power (the
 * documented example: -4 A beside -676 W), by the one signed-current rule of src/reading/phases.ts,
 * applied once: a DSMR meter sends magnitudes (DSMR 5.0.2 §6.12, 1-0:31.7.0 in A), a meter that
 * signs its currents already must not have them flipped back to positive.
 */

const WIFI = { ssid: '' };

/** A DSMR 5 telegram: L1 exports 0.676 kW at 4 A, L2 and L3 import. */
function exportingTelegram(): Buffer {
  const body = [
    '/ISK5\\2M550E-1011',
    '',
    '1-3:0.2.8(50)',
    '0-0:1.0.0(261129081500W)',
    '1-0:1.8.1(009811.204*kWh)',
    '1-0:1.8.2(008923.308*kWh)',
    '1-0:2.8.1(001811.420*kWh)',
    '1-0:2.8.2(002291.457*kWh)',
    '0-0:96.14.0(0002)',
    '1-0:1.7.0(00.000*kW)',
    '1-0:2.7.0(00.176*kW)',
    '1-0:31.7.0(004*A)',
    '1-0:51.7.0(001*A)',
    '1-0:71.7.0(002*A)',
    '1-0:21.7.0(00.000*kW)',
    '1-0:41.7.0(00.200*kW)',
    '1-0:61.7.0(00.300*kW)',
    '1-0:22.7.0(00.676*kW)',
    '1-0:42.7.0(00.000*kW)',
    '1-0:62.7.0(00.000*kW)',
    '!',
  ].join('\r\n');
  const bytes = Buffer.from(body, 'latin1');
  return Buffer.concat([bytes, Buffer.from(`${crcHex(crc16Arc(bytes))}\r\n`, 'latin1')]);
}

test('DSMR meter (unsigned currents): the exporting phase has a negative current, the others positive', () => {
  const [result] = parseDsmrCapture(exportingTelegram(), 1000);
  assert.ok(result?.ok);
  const data = dataOf(result.reading, WIFI);
  assert.equal(data.active_power_l1_w, -676);
  assert.equal(data.active_current_l1_a, -4);
  assert.equal(data.active_current_l2_a, 1);
  assert.equal(data.active_current_l3_a, 2);
});

/** An SDM630 reading whose currents carry the sign of their phase's power, as a signing meter sends them. */
function signedSdm630(): Reading {
  return {
    receivedAt: 1000,
    protocol: 'MODBUS',
    identity: { vendor: 'Eastron', model: 'SDM630' },
    mbus: [],
    values: valuesOf({
      '1.7.0': [0, 'kW'],
      '2.7.0': [0.2, 'kW'],
      '21.7.0': [0, 'kW'],
      '22.7.0': [0.9, 'kW'],
      '41.7.0': [0.5, 'kW'],
      '42.7.0': [0, 'kW'],
      '61.7.0': [0.2, 'kW'],
      '62.7.0': [0, 'kW'],
      '31.7.0': [-3.9, 'A'],
      '51.7.0': [2.2, 'A'],
      '71.7.0': [0.9, 'A'],
    }),
  };
}

test('SDM630 with signed currents: the exporting phase stays negative, never flipped twice', () => {
  const data = dataOf(signedSdm630(), WIFI);
  assert.equal(data.active_power_l1_w, -900);
  assert.equal(data.active_current_l1_a, -3.9);
  assert.equal(data.active_current_l2_a, 2.2);
  assert.equal(data.active_current_l3_a, 0.9);
});

test('SDM630 read by the Modbus source: a negative phase power signs its current, whatever the register sign', () => {
  for (const register of [-3.9, 3.9]) {
    const bytes = Buffer.alloc(0x50 * 2);
    bytes.writeFloatBE(231, 0x0000 * 2);
    bytes.writeFloatBE(register, 0x0006 * 2); // 30007 phase 1 current
    bytes.writeFloatBE(-900, 0x000c * 2); // 30013 phase 1 power, exporting
    bytes.writeFloatBE(-900, 0x0034 * 2); // 30053 total system power
    bytes.writeFloatBE(12345.5, 0x0048 * 2);
    const measured = decodeFloats(FLOAT_READ_MAPS.sdm630.points, 0, bytes);
    const data = dataOf(readingFromRegisters(measured, { vendor: 'Eastron', model: 'SDM630' }, 1000), WIFI);
    assert.equal(data.active_power_l1_w, -900, `register ${register}`);
    assert.equal(data.active_current_l1_a, -3.9, `register ${register}`);
  }
});
