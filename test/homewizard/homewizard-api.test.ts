import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { registerHomewizardPersonality } from './homewizard-output.js';
import { parseDsmrCapture } from '../../src/meter/dsmr/decoder.js';
import { serialOf } from '../../src/device/homewizard/api-v1.js';
import { corpusBytes } from '../helpers/environment.js';
import { startHttpContext, syntheticReading, type HttpTestContext } from '../helpers/http-context.js';

/** The corpus telegram with two M-Bus channels; undefined when the corpus is absent (skipped). */
function telegramOf(t: TestContext): Buffer | undefined {
  return corpusBytes(t, 'dsmr/ndokter_v5_two_mbus.txt');
}

async function rig(t: TestContext, env: Record<string, string> = {}): Promise<HttpTestContext> {
  const http = await startHttpContext({
    env: { METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true', ...env },
    meterInterface: 'P1',
    routes: registerHomewizardPersonality,
  });
  t.after(() => http.close());
  return http;
}

/** The corpus telegram as the meter input hands it on: raw bytes, then the decoded reading. */
function feed(http: HttpTestContext, telegram: Buffer): void {
  http.ctx.store.receiveBytes(telegram);
  const [result] = parseDsmrCapture(telegram, http.clock.now());
  assert.ok(result?.ok);
  http.ctx.store.ingest(result.reading);
}

test('GET /api answers the documented device information, the serial from the system id', async (t) => {
  const http = await rig(t);
  const response = await fetch(`${http.baseUrl}/api`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assert.equal(
    await response.text(),
    '{"product_type":"HWE-P1","product_name":"P1 Meter","serial":"a1b2c3d4e5f6","firmware_version":"0.1.0-test","api_version":"v1"}',
  );
  assert.match(serialOf('whatwatt_ABC123'), /^[0-9a-f]{12}$/);
});

test('GET /api/v1/data maps a DSMR 5 telegram with two M-Bus channels byte for byte', async (t) => {
  const TELEGRAM = telegramOf(t);
  if (!TELEGRAM) return;
  const http = await rig(t);
  feed(http, TELEGRAM);
  const text = await (await fetch(`${http.baseUrl}/api/v1/data`)).text();
  // 1-0:1.8.1 2130.115 + 1.8.2 245.467 kWh; 1-0:1.7.0 0.111 kW -> 111 W; L1 0.056, L3 0.055 kW;
  // sags 1/1/192, swells 1/1/1; power failures 0-0:96.7.21 5, 0-0:96.7.9 3; channel 1 has no
  // identifier (unused), channel 2 is the gas meter; the header /ISK5\2M550T-1012 as a P1 shows it.
  assert.equal(
    text,
    '{"wifi_ssid":"","smr_version":50,"meter_model":"ISKRA 2M550T-1012","unique_id":"4530303434303037333832323436303139",' +
      '"active_tariff":1,"total_power_import_kwh":2375.582,"total_power_import_t1_kwh":2130.115,' +
      '"total_power_import_t2_kwh":245.467,"total_power_export_kwh":0,"total_power_export_t1_kwh":0,' +
      '"total_power_export_t2_kwh":0,"active_power_w":111,"active_power_l1_w":56,"active_power_l2_w":0,' +
      '"active_power_l3_w":55,"active_voltage_l1_v":229.9,"active_voltage_l2_v":229.2,"active_voltage_l3_v":222.9,' +
      '"active_current_l1_a":0,"active_current_l2_a":0,"active_current_l3_a":1,"voltage_sag_l1_count":1,' +
      '"voltage_sag_l2_count":1,"voltage_sag_l3_count":192,"voltage_swell_l1_count":1,"voltage_swell_l2_count":1,' +
      '"voltage_swell_l3_count":1,"any_power_fail_count":5,"long_power_fail_count":3,' +
      '"total_gas_m3":246.138,"gas_timestamp":200426223001,' +
      '"gas_unique_id":"4730303339303031393336393930363139","external":[{"unique_id":"4730303339303031393336393930363139",' +
      '"type":"gas_meter","timestamp":200426223001,"value":246.138,"unit":"m3"}]}',
  );
});

test('export gives negative power and current signed like the phase power, as documented', async (t) => {
  const http = await rig(t);
  const reading = syntheticReading(http.clock.now());
  const values = new Map(reading.values);
  for (const key of ['1.7.0', '21.7.0', '41.7.0', '61.7.0']) values.set(key, { value: 0, unit: 'kW' });
  values.set('2.7.0', { value: 0.676, unit: 'kW' });
  values.set('22.7.0', { value: 0.676, unit: 'kW' });
  values.set('31.7.0', { value: 4, unit: 'A' });
  http.ctx.store.ingest({ ...reading, values });
  const data = (await (await fetch(`${http.baseUrl}/api/v1/data`)).json()) as Record<string, number>;
  assert.equal(data.active_power_w, -676);
  assert.equal(data.active_power_l1_w, -676);
  assert.equal(data.active_current_l1_a, -4);
});

test('GET /api/v1/telegram serves the last valid raw DSMR telegram unchanged', async (t) => {
  const TELEGRAM = telegramOf(t);
  if (!TELEGRAM) return;
  const http = await rig(t);
  assert.equal((await fetch(`${http.baseUrl}/api/v1/telegram`)).status, 404, 'no telegram yet');
  feed(http, TELEGRAM);
  const response = await fetch(`${http.baseUrl}/api/v1/telegram`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/plain');
  assert.deepEqual(
    Buffer.from(await response.arrayBuffer()),
    TELEGRAM.subarray(0, TELEGRAM.indexOf('!') + 7),
  );
  // A telegram with a broken CRC is rejected; the last valid one stays.
  http.ctx.store.receiveBytes(Buffer.from(TELEGRAM.toString('latin1').replace('!56DD', '!0000'), 'latin1'));
  const again = Buffer.from(await (await fetch(`${http.baseUrl}/api/v1/telegram`)).arrayBuffer());
  assert.match(again.toString('latin1'), /!56DD\r\n$/);
});

test('a non-DSMR meter has no telegram: 404 with the documented error object', async (t) => {
  const http = await rig(t);
  http.ctx.store.ingest({ ...syntheticReading(http.clock.now()), protocol: 'SML' });
  const response = await fetch(`${http.baseUrl}/api/v1/telegram`);
  assert.equal(response.status, 404);
  assert.deepEqual(await response.json(), { error: { id: 404, description: 'Not found' } });
});

test('a stale meter answers no measurement, never the old numbers', async (t) => {
  const TELEGRAM = telegramOf(t);
  if (!TELEGRAM) return;
  const http = await rig(t);
  feed(http, TELEGRAM);
  assert.ok('active_power_w' in ((await (await fetch(`${http.baseUrl}/api/v1/data`)).json()) as object));
  http.clock.advance(61_000);
  assert.equal(await (await fetch(`${http.baseUrl}/api/v1/data`)).text(), '{"wifi_ssid":""}');
  assert.equal((await fetch(`${http.baseUrl}/api/v1/telegram`)).status, 404);
});

test('off (the default) or naming an unknown meter: 404 and a refused setting', async (t) => {
  const http = await rig(t, { METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'false' });
  assert.equal((await fetch(`${http.baseUrl}/api`)).status, 404);
  const refused = http.ctx.config.apply(new Map([['services.emulate.homewizard.meter', 'nope']]));
  assert.equal(refused.ok, false);
  assert.match(JSON.stringify(refused), /services\.emulate\.homewizard\.meter.*unknown meter/);
  assert.equal(http.ctx.config.apply(new Map([['services.emulate.homewizard.enable', true]])).ok, true);
  assert.equal((await fetch(`${http.baseUrl}/api`)).status, 200);
});

// python-homewizard-energy (Home Assistant) reads an answer without wifi_ssid as API v2 and maps none
// of the v1 names; its ExternalDevice needs unique_id, value, unit and timestamp.
test('wifi_ssid is always sent (the station SSID on Wi-Fi) and external entries are complete', async (t) => {
  const http = await rig(t, { METER_GATEWAY_WIFI_STA_ENABLE: 'true', METER_GATEWAY_WIFI_STA_NAME: 'Home' });
  const reading = syntheticReading(http.clock.now());
  http.ctx.store.ingest({
    ...reading,
    mbus: [{ bus: 1, meterId: 'W1', deviceType: 7, cumulative: 12.5 }, ...reading.mbus],
  });
  const data = (await (await fetch(`${http.baseUrl}/api/v1/data`)).json()) as Record<string, unknown>;
  assert.equal(data.wifi_ssid, 'Home');
  const external = data.external as Array<Record<string, unknown>>;
  assert.ok(external.length > 0);
  for (const entry of external)
    for (const field of ['unique_id', 'type', 'timestamp', 'value', 'unit']) assert.ok(field in entry, field);
  assert.ok(!external.some((entry) => entry.type === 'water_meter'), 'no timestamp, no entry');
});
