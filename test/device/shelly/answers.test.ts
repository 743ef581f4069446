import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valuesOf, type Reading } from '../../../src/reading/reading.js';
import { deriveValues } from '../../../src/reading/derive.js';
import { emDataStatus, emStatus } from '../../../src/device/shelly/em-status.js';
import { deviceInfo, shellyConfig, shellyStatus, sysStatus } from '../../../src/device/shelly/device.js';
import { ShellyRpc } from '../../../src/device/shelly/rpc.js';

function reading(entries: Record<string, [number, string]>): Reading {
  return { receivedAt: 0, protocol: 'DSMR', identity: {}, values: deriveValues(valuesOf(entries)), mbus: [] };
}

/** A three-phase DSMR reading: L1 and L3 import, L2 exports (PV on L2). */
const threePhase = reading({
  '1.8.1': [1000.123, 'kWh'],
  '1.8.2': [2000.5, 'kWh'],
  '2.8.1': [300.25, 'kWh'],
  '2.8.2': [400, 'kWh'],
  '1.7.0': [0.3, 'kW'],
  '2.7.0': [0, 'kW'],
  '21.7.0': [0.5, 'kW'],
  '22.7.0': [0, 'kW'],
  '41.7.0': [0, 'kW'],
  '42.7.0': [0.412, 'kW'],
  '61.7.0': [0.212, 'kW'],
  '62.7.0': [0, 'kW'],
  '31.7.0': [2.2, 'A'],
  '51.7.0': [1.8, 'A'],
  '71.7.0': [1, 'A'],
  '32.7.0': [230.12, 'V'],
  '52.7.0': [229.94, 'V'],
  '72.7.0': [231, 'V'],
});

const identity = { systemId: 'ECC9FF5C7F14', name: null };
const facts = {
  now: 1_700_000_000_500,
  uptimeSeconds: 3600.7,
  ramSize: 1000,
  ramFree: 500,
  localTime: '22:13',
};

test('EM.GetStatus: signed per-phase power (import positive), magnitudes of current, null for what the meter does not send', () => {
  assert.equal(
    JSON.stringify(emStatus(threePhase)),
    '{"id":0,"a_current":2.2,"a_voltage":230.1,"a_act_power":500,"a_aprt_power":null,"a_pf":null,"a_freq":null,' +
      '"b_current":1.8,"b_voltage":229.9,"b_act_power":-412,"b_aprt_power":null,"b_pf":null,"b_freq":null,' +
      '"c_current":1,"c_voltage":231,"c_act_power":212,"c_aprt_power":null,"c_pf":null,"c_freq":null,' +
      '"n_current":null,"total_current":5,"total_act_power":300,"total_aprt_power":null,"user_calibrated_phase":[]}',
  );
});

test('EM.GetStatus: apparent power, power factor and frequency when the meter sends them', () => {
  const full = reading({
    '21.7.0': [1.2345, 'kW'],
    '29.7.0': [1.4, 'kVA'],
    '33.7.0': [0.876, ''],
    '14.7.0': [49.98, 'Hz'],
    '31.7.0': [-5.1234, 'A'],
  });
  const status = emStatus(full);
  assert.equal(status.a_act_power, 1234.5);
  assert.equal(status.a_aprt_power, 1400);
  assert.equal(status.a_pf, 0.88);
  assert.equal(status.a_freq, 50);
  assert.equal(status.a_current, 5.123);
  assert.equal(status.total_act_power, 1234.5, 'without 1.7.0 the total is the phases sum');
  assert.equal(status.total_aprt_power, 1400);
  // A single-phase meter: phases b and c are answered as not measured, never as 0.
  for (const key of ['b_current', 'b_voltage', 'b_act_power', 'b_freq', 'c_act_power', 'c_freq']) {
    assert.equal(status[key], null, key);
  }
  assert.equal(status.errors, undefined);
});

test('EM.GetStatus and EMData.GetStatus of a stale meter: nothing old, the power meter failure error', () => {
  assert.equal(
    JSON.stringify(emStatus(undefined)),
    '{"id":0,"a_current":null,"a_voltage":null,"a_act_power":null,"a_aprt_power":null,"a_pf":null,"a_freq":null,' +
      '"b_current":null,"b_voltage":null,"b_act_power":null,"b_aprt_power":null,"b_pf":null,"b_freq":null,' +
      '"c_current":null,"c_voltage":null,"c_act_power":null,"c_aprt_power":null,"c_pf":null,"c_freq":null,' +
      '"n_current":null,"total_current":null,"total_act_power":null,"total_aprt_power":null,' +
      '"user_calibrated_phase":[],"errors":["power_meter_failure"]}',
  );
  assert.deepEqual(emDataStatus(undefined).errors, ['power_meter_failure']);
  assert.equal(emDataStatus(undefined).total_act, null);
});

test('EMData.GetStatus: energies in Wh, totals from the tariff sum', () => {
  const perPhase = reading({ '21.8.0': [1.23456, 'kWh'], '22.8.0': [0.5, 'kWh'], '1.8.0': [10, 'kWh'] });
  assert.equal(
    JSON.stringify(emDataStatus(threePhase)),
    '{"id":0,"a_total_act_energy":null,"a_total_act_ret_energy":null,"b_total_act_energy":null,' +
      '"b_total_act_ret_energy":null,"c_total_act_energy":null,"c_total_act_ret_energy":null,' +
      '"total_act":3000623,"total_act_ret":700250}',
  );
  const data = emDataStatus(perPhase);
  assert.equal(data.a_total_act_energy, 1234.56);
  assert.equal(data.a_total_act_ret_energy, 500);
  assert.equal(data.total_act, 10000);
  assert.equal(data.total_act_ret, null);
});

test('Shelly.GetDeviceInfo: a Pro 3EM named from the system id', () => {
  assert.equal(
    JSON.stringify(deviceInfo(identity)),
    '{"name":null,"id":"shellypro3em-ecc9ff5c7f14","mac":"ECC9FF5C7F14","model":"SPEM-003CEBEU","gen":2,' +
      '"fw_id":"20241011-114451/1.4.4-g6d2a586","ver":"1.4.4","app":"Pro3EM","auth_en":false,"auth_domain":null,' +
      '"profile":"triphase"}',
  );
});

test('Sys.GetStatus and Shelly.GetStatus carry the live facts and the EM components', () => {
  assert.equal(
    JSON.stringify(sysStatus(identity, facts)),
    '{"mac":"ECC9FF5C7F14","restart_required":false,"time":"22:13","unixtime":1700000000,"uptime":3600,' +
      '"ram_size":1000,"ram_free":500,"fs_size":0,"fs_free":0,"cfg_rev":0,"kvs_rev":0,"schedule_rev":0,' +
      '"webhook_rev":0,"available_updates":{}}',
  );
  const status = shellyStatus(identity, facts, threePhase);
  assert.deepEqual(Object.keys(status), [
    'ble',
    'cloud',
    'em:0',
    'emdata:0',
    'eth',
    'modbus',
    'mqtt',
    'sys',
    'ws',
  ]);
  assert.deepEqual(status['em:0'], emStatus(threePhase));
  assert.deepEqual(status['emdata:0'], emDataStatus(threePhase));
  const config = shellyConfig(identity) as { sys: { device: { mac: string; profile: string } } };
  assert.equal(config.sys.device.mac, 'ECC9FF5C7F14');
  assert.equal(config.sys.device.profile, 'triphase');
});

test('the EM answers are built once per reading, not per request', () => {
  let current: Reading | undefined = threePhase;
  const rpc = new ShellyRpc({ reading: () => current, identity: () => identity, facts: () => facts });
  const first = rpc.call('EM.GetStatus', { id: 0 }) as { result: unknown };
  assert.equal((rpc.call('EM.GetStatus', { id: 0 }) as { result: unknown }).result, first.result);
  current = reading({ '1.7.0': [1, 'kW'] });
  const next = rpc.call('EM.GetStatus', { id: 0 }) as { result: { total_act_power: number } };
  assert.notEqual(next.result, first.result);
  assert.equal(next.result.total_act_power, 1000);
});
