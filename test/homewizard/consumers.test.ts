import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { registerCoreRoutes } from '../../src/http/server.js';
import { registerHomewizardRoutes } from '../../src/http/routes/homewizard.js';
import { homewizardAnswers, type ServedAnswers } from '../../src/http/routes/homewizard-answers.js';
import { HomewizardServer } from '../../src/http/routes/homewizard-server.js';
import { parseDsmrCapture } from '../../src/meter/dsmr/decoder.js';
import { crc16Arc } from '../../src/checksum/crc16.js';
import { crcHex } from '../../src/meter/dsmr/crc16-arc.js';
import { runOutput } from '../../src/output-runner.js';
import { valuesOf, type Reading } from '../../src/reading/reading.js';
import { startHttpContext, type HttpTestContext } from '../helpers/http-context.js';
import { freePort } from '../helpers/ports.js';

/**
 * The HomeWizard P1 personality driven by its consumers' own client code, every field they read
 * checked against /api/v1/report, with the password protection off and on, for a DSMR meter and for
 * an SDM630 Modbus meter:
 * - Home Assistant's HomeWizard integration through python-homewizard-energy's `HomeWizardEnergyV1`
 *   (v1/__init__.py): `GET /api`, `GET /api/v1/data`, `GET /api/v1/system` (the P1 supports it),
 *   `GET /api/v1/telegram`, `PUT /api/v1/identify` (the Identify button), each with the header
 *   `Content-Type: application/json` and no credentials; any status but 200 (and 404 for optional
 *   parts) fails the coordinator's update and leaves every entity unavailable.
 * - evcc's `meter/homewizard`: `GET /api/v1/data`, energy as the sum of `total_power_import_t1_kwh`
 *   .. `t4` (and export alike), power `active_power_w`, `active_power_l1_w` .., currents and voltages.
 */

const PASSWORD = 'Secret-123';
const AUTH = { Authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** A DSMR 5 telegram with an Iskra header, two tariffs and the power failure counters. */
function telegram(): Buffer {
  const body = [
    '/ISK5\\2M550E-1011',
    '',
    '1-3:0.2.8(50)',
    '0-0:1.0.0(261129081500W)',
    '0-0:96.1.1(4530303434303037333832323436303139)',
    '1-0:1.8.1(009811.204*kWh)',
    '1-0:1.8.2(008923.308*kWh)',
    '1-0:2.8.1(001811.420*kWh)',
    '1-0:2.8.2(002291.457*kWh)',
    '0-0:96.14.0(0002)',
    '1-0:1.7.0(02.412*kW)',
    '1-0:2.7.0(00.000*kW)',
    '0-0:96.7.21(00007)',
    '0-0:96.7.9(00002)',
    '1-0:32.7.0(231.4*V)',
    '1-0:52.7.0(229.8*V)',
    '1-0:72.7.0(232.1*V)',
    '1-0:31.7.0(004*A)',
    '1-0:51.7.0(003*A)',
    '1-0:71.7.0(003*A)',
    '1-0:21.7.0(00.962*kW)',
    '1-0:41.7.0(00.703*kW)',
    '1-0:61.7.0(00.747*kW)',
    '1-0:22.7.0(00.000*kW)',
    '1-0:42.7.0(00.000*kW)',
    '1-0:62.7.0(00.000*kW)',
    '!',
  ].join('\r\n');
  const bytes = Buffer.from(body, 'latin1');
  return Buffer.concat([bytes, Buffer.from(`${crcHex(crc16Arc(bytes))}\r\n`, 'latin1')]);
}

/** An SDM630 as the Modbus input reads it: totals without tariff registers, per-phase VA, PF, Hz. */
function sdm630Reading(receivedAt: number): Reading {
  return {
    receivedAt,
    protocol: 'MODBUS',
    identity: { vendor: 'Eastron', model: 'SDM630' },
    mbus: [],
    values: valuesOf({
      '1.8.0': [1520.25, 'kWh'],
      '2.8.0': [310.5, 'kWh'],
      '1.7.0': [1.2, 'kW'],
      '2.7.0': [0, 'kW'],
      '21.7.0': [0.4, 'kW'],
      '41.7.0': [0.5, 'kW'],
      '61.7.0': [0.3, 'kW'],
      '22.7.0': [0, 'kW'],
      '42.7.0': [0, 'kW'],
      '62.7.0': [0, 'kW'],
      '32.7.0': [230.1, 'V'],
      '52.7.0': [231.2, 'V'],
      '72.7.0': [229.9, 'V'],
      '31.7.0': [1.8, 'A'],
      '51.7.0': [2.2, 'A'],
      '71.7.0': [1.4, 'A'],
      '14.7.0': [50.01, 'Hz'],
    }),
  } as Reading;
}

interface Rig {
  http: HttpTestContext;
  own: HomewizardServer;
  ownUrl: string;
}

async function rig(t: TestContext, env: Record<string, string>): Promise<Rig> {
  const port = await freePort();
  let answers: ServedAnswers | undefined;
  const http = await startHttpContext({
    env: {
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
      METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_PORT: String(port),
      ...env,
    },
    meterInterface: 'P1',
    clockFrozen: true,
    routes: (router, ctx) => {
      registerCoreRoutes(router, ctx);
      answers = homewizardAnswers(ctx);
      registerHomewizardRoutes(router, ctx, answers);
    },
  });
  const own = new HomewizardServer(answers!, http.ctx.logger);
  const running = runOutput(http.ctx, own);
  await running.start();
  t.after(async () => {
    await running.stop();
    await http.close();
  });
  assert.equal(own.address(), port);
  return { http, own, ownUrl: `http://127.0.0.1:${port}` };
}

function feedDsmr(http: HttpTestContext): void {
  const bytes = telegram();
  http.ctx.store.receiveBytes(bytes);
  const [result] = parseDsmrCapture(bytes, http.clock.now());
  assert.ok(result?.ok, JSON.stringify(result));
  http.ctx.store.ingest(result.reading);
}

interface Report {
  instantaneous_power: { active: { positive: Record<string, number>; negative: Record<string, number> } };
  voltage: Record<string, number>;
  current: Record<string, number>;
  energy: { active: { positive: Record<string, number>; negative: Record<string, number> } };
}

async function report(baseUrl: string): Promise<Report> {
  const response = await fetch(`${baseUrl}/api/v1/report`, { headers: AUTH });
  assert.equal(response.status, 200);
  return ((await response.json()) as { report: Report }).report;
}

/** python-homewizard-energy's `HomeWizardEnergyV1.combined()` for a P1: what HA's coordinator fetches. */
async function homeAssistantPoll(baseUrl: string): Promise<{
  device: Record<string, unknown>;
  data: Record<string, number | string>;
  system: Record<string, unknown>;
}> {
  const get = async (path: string) => {
    const response = await fetch(`${baseUrl}/${path}`, { headers: JSON_HEADERS });
    assert.equal(response.status, 200, `${path}: ${response.status}`);
    return JSON.parse(await response.text()) as Record<string, never>;
  };
  const device = await get('api');
  assert.equal(device.product_type, 'HWE-P1');
  const data = await get('api/v1/data');
  const system = await get('api/v1/system');
  // A P1 has no state: 404, which the library takes for "not supported".
  const state = await fetch(`${baseUrl}/api/v1/state`, { headers: JSON_HEADERS });
  assert.equal(state.status, 404);
  const identify = await fetch(`${baseUrl}/api/v1/identify`, { method: 'PUT', headers: JSON_HEADERS });
  assert.equal(identify.status, 200);
  assert.deepEqual(await identify.json(), { identify: 'ok' });
  return { device, data, system };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

/** Every field Home Assistant and evcc read from /api/v1/data, against the report. */
function assertDataMatches(data: Record<string, number | string>, rep: Report): void {
  const power = rep.instantaneous_power.active;
  const net = (line: string) => round3((power.positive[line]! - power.negative[line]!) * 1000);
  assert.equal(data.active_power_w, net('total'));
  for (const n of [1, 2, 3]) {
    assert.equal(data[`active_power_l${n}_w`], net(`l${n}`));
    assert.equal(data[`active_voltage_l${n}_v`], rep.voltage[`l${n}`]);
    assert.equal(data[`active_current_l${n}_a`], rep.current[`l${n}`]);
  }
  const energy = rep.energy.active;
  assert.equal(data.total_power_import_kwh, energy.positive.total);
  assert.equal(data.total_power_export_kwh, energy.negative.total);
  // evcc: the sum of the tariff registers is the total.
  const sum = (direction: string) =>
    round3(
      [1, 2, 3, 4].reduce((total, t) => total + Number(data[`total_power_${direction}_t${t}_kwh`] ?? 0), 0),
    );
  assert.equal(sum('import'), energy.positive.total);
  assert.equal(sum('export'), energy.negative.total);
}

for (const protection of [false, true]) {
  const env: Record<string, string> = protection
    ? { METER_GATEWAY_SYSTEM_PROTECTION: 'true', METER_GATEWAY_SYSTEM_PASSWORD: PASSWORD }
    : {};
  const mode = protection ? 'protection on' : 'protection off';

  test(`Home Assistant and evcc read a DSMR meter through the personality's own port, ${mode}`, async (t) => {
    const { http, ownUrl } = await rig(t, env);
    feedDsmr(http);
    const { data, system } = await homeAssistantPoll(ownUrl);
    assert.deepEqual(system, { cloud_enabled: false });
    assertDataMatches(data, await report(http.baseUrl));
    assert.equal(data.meter_model, 'ISKRA 2M550E-1011');
    assert.equal(data.any_power_fail_count, 7);
    assert.equal(data.long_power_fail_count, 2);
    assert.equal(data.total_power_import_t1_kwh, 9811.204);
    const raw = await fetch(`${ownUrl}/api/v1/telegram`, { headers: JSON_HEADERS });
    assert.equal(raw.status, 200);
    assert.deepEqual(Buffer.from(await raw.arrayBuffer()), telegram());
    // The API's port: the whatwatt Go's /api/v1/system keeps its protection.
    const whatwatt = await fetch(`${http.baseUrl}/api/v1/system`);
    assert.equal(whatwatt.status, protection ? 401 : 200);
    if (!protection) assert.equal('cloud_enabled' in ((await whatwatt.json()) as object), false);
    // The personality's paths on the API's port stay open too.
    assert.equal((await fetch(`${http.baseUrl}/api/v1/data`)).status, 200);
    const identify = await fetch(`${http.baseUrl}/api/v1/identify`, { method: 'PUT' });
    assert.equal(identify.status, 200);
  });

  test(`Home Assistant and evcc read an SDM630 Modbus meter: t1 is the total, ${mode}`, async (t) => {
    const { http, ownUrl } = await rig(t, env);
    http.ctx.store.ingest(sdm630Reading(http.clock.now()));
    const { data } = await homeAssistantPoll(ownUrl);
    assertDataMatches(data, await report(http.baseUrl));
    assert.equal(data.total_power_import_t1_kwh, 1520.25);
    assert.equal(data.total_power_export_t1_kwh, 310.5);
    assert.equal(data.total_power_import_t2_kwh, undefined);
    assert.equal(data.active_frequency_hz, 50.01);
    assert.equal(data.meter_model, 'Eastron SDM630');
    assert.equal(data.any_power_fail_count, undefined);
    // Not DSMR: no telegram, HomeWizard's 404.
    assert.equal((await fetch(`${ownUrl}/api/v1/telegram`)).status, 404);
  });
}

test('the own port: PUT /api/v1/system changes nothing, unknown paths and methods get HomeWizard errors, big bodies 413', async (t) => {
  const { http, ownUrl } = await rig(t, {});
  feedDsmr(http);
  const put = await fetch(`${ownUrl}/api/v1/system`, {
    method: 'PUT',
    headers: JSON_HEADERS,
    body: '{"cloud_enabled":true}',
  });
  assert.deepEqual(await put.json(), { cloud_enabled: false });
  const unknown = await fetch(`${ownUrl}/api/v1/settings`);
  assert.equal(unknown.status, 404);
  assert.deepEqual(await unknown.json(), { error: { id: 404, description: 'Not found' } });
  assert.equal((await fetch(`${ownUrl}/api/v1/data`, { method: 'DELETE' })).status, 405);
  const big = await fetch(`${ownUrl}/api/v1/identify`, { method: 'PUT', body: 'x'.repeat(10_000) }).catch(
    () => undefined,
  );
  assert.ok(big === undefined || big.status === 413);
  assert.equal((await fetch(`${ownUrl}/api`)).status, 200);
  // Off: the output stops serving the meter (HomeWizard's 404 on the API's port) and closes its own port.
  const off = http.ctx.config.apply(new Map([['services.emulate.homewizard.enable', false]]));
  assert.ok(off.ok);
  assert.deepEqual(await off.settled, []);
  assert.equal((await fetch(`${http.baseUrl}/api`)).status, 404);
  await assert.rejects(fetch(`${ownUrl}/api`), 'the own port is closed');
});
