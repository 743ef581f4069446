import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type RequestListener } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseSource } from '../../src/meter/source.js';
import { corpusDir, requireCorpus } from '../helpers/environment.js';
import { startDaemonInProcess, type InProcessDaemon } from '../helpers/daemon-in-process.js';
import { waitFor } from '../helpers/wait.js';

// Stub answers written from the published documentation, not from this project's personality:
// HomeWizard api-documentation docs/v1/measurement.mdx (HWE-P1, 3-phase with gas and water meter)
// and Shelly's Gen2 documentation of EM.GetStatus / EMData.GetStatus (Pro 3EM, energies in Wh).
const HOMEWIZARD_DATA = {
  wifi_ssid: 'My Wi-Fi',
  wifi_strength: 100,
  smr_version: 50,
  meter_model: 'ISKRA  2M550T-101',
  unique_id: '00112233445566778899AABBCCDDEEFF',
  active_tariff: 2,
  total_power_import_kwh: 13779.338,
  total_power_import_t1_kwh: 10830.511,
  total_power_import_t2_kwh: 2948.827,
  total_power_export_kwh: 0,
  total_power_export_t1_kwh: 0,
  total_power_export_t2_kwh: 0,
  active_power_w: -543,
  active_power_l1_w: -676,
  active_power_l2_w: 133,
  active_power_l3_w: 0,
  active_current_l1_a: -4,
  total_gas_m3: 2569.646,
  gas_timestamp: 210606140010,
  external: [
    {
      unique_id: 'FFEEDDCCBBAA99887766554433221100',
      type: 'gas_meter',
      timestamp: 210606140010,
      value: 2569.646,
      unit: 'm3',
    },
    {
      unique_id: 'ABCDEF0123456789ABCDEF0123456789',
      type: 'water_meter',
      timestamp: 210606140015,
      value: 123.456,
      unit: 'm3',
    },
  ],
};
const SHELLY_EM = {
  id: 0,
  a_current: 4.029,
  a_voltage: 236.1,
  a_act_power: 951.2,
  a_aprt_power: 951.9,
  a_pf: 1,
  a_freq: 50,
  b_current: 4.027,
  b_voltage: 236.2,
  b_act_power: -400,
  b_aprt_power: 410,
  b_pf: -0.98,
  c_current: 0.025,
  c_voltage: 236.3,
  c_act_power: 0.2,
  c_aprt_power: 3.1,
  c_pf: 1,
  n_current: null,
  total_current: 8.081,
  total_act_power: 551.4,
  total_aprt_power: 1365,
  user_calibrated_phase: [],
};
const SHELLY_EMDATA = {
  id: 0,
  a_total_act_energy: 1075513.08,
  a_total_act_ret_energy: 0,
  b_total_act_energy: 1776542.72,
  b_total_act_ret_energy: 2000,
  c_total_act_energy: 0.01,
  c_total_act_ret_energy: 0,
  total_act: 2852055.81,
  total_act_ret: 2000,
};

async function stub(t: TestContext, listener: RequestListener): Promise<number> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

async function daemon(t: TestContext, env: Record<string, string>): Promise<InProcessDaemon> {
  const state = mkdtempSync(join(tmpdir(), 'mg-dongle-'));
  const started = await startDaemonInProcess(state, env);
  t.after(async () => {
    await started.stop();
    rmSync(state, { recursive: true, force: true });
  });
  return started;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the report is read field by field
type Report = { report: Record<string, any>; meter: { status: string } };

async function reportOf(base: string, path = '/api/v1/report'): Promise<Report> {
  return waitFor(
    'a reading from the dongle',
    async () => (await (await fetch(`${base}${path}`)).json()) as Report,
    (body) => body.meter?.status === 'OK',
  );
}

test('source URIs: homewizard:// and shelly:// with port, interval and telegram mode', () => {
  assert.deepEqual(parseSource('homewizard://10.0.0.5'), {
    kind: 'homewizard',
    host: '10.0.0.5',
    port: 80,
    intervalMs: 1000,
    telegram: false,
  });
  assert.deepEqual(parseSource('homewizard://p1.local:8080?telegram=1&interval=0.5'), {
    kind: 'homewizard',
    host: 'p1.local',
    port: 8080,
    intervalMs: 500,
    telegram: true,
  });
  assert.deepEqual(parseSource('shelly://[fe80::1]:81'), {
    kind: 'shelly',
    host: 'fe80::1',
    port: 81,
    intervalMs: 1000,
  });
  assert.throws(() => parseSource('shelly://host?interval=0'), /interval must be/);
  assert.throws(() => parseSource('homewizard://host?telegram=yes'), /telegram must be/);
});

test('homewizard:// reads the documented /api/v1/data of an independent stub as the primary meter', async (t) => {
  const port = await stub(t, (request, response) => {
    response.writeHead(request.url === '/api/v1/data' ? 200 : 404, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(HOMEWIZARD_DATA));
  });
  const gateway = await daemon(t, { METER_GATEWAY_METER_SOURCE: `homewizard://127.0.0.1:${port}` });
  const { report } = await reportOf(gateway.baseUrl);
  assert.equal(report.energy.active.positive.t1, 10830.511);
  assert.equal(report.energy.active.positive.t2, 2948.827);
  assert.equal(report.instantaneous_power.active.negative.total, 0.543);
  assert.equal(report.instantaneous_power.active.positive.total, 0);
  assert.equal(report.tariff, 2);
  assert.deepEqual(
    report.volume.map((v: Record<string, unknown>) => [v.cumulative, v.date_time]),
    [
      [2569.646, '2021-06-06T14:00:10'],
      [123.456, '2021-06-06T14:00:15'],
    ],
  );
});

test('homewizard:// (data and telegram mode) reads a second gateway through its HomeWizard personality', async (t) => {
  if (!requireCorpus(t)) return;
  const capture = join(corpusDir, 'dsmr', 'ndokter_v5.txt');
  const upstream = await daemon(t, {
    METER_GATEWAY_METER_SOURCE: `file:${capture}?interval=0.5&loop=true&protocol=dsmr`,
    METER_GATEWAY_SERVICES_EMULATE_HOMEWIZARD_ENABLE: 'true',
  });
  const host = upstream.baseUrl.replace('http://', '');
  const gateway = await daemon(t, {
    METER_GATEWAY_METER_SOURCE: `homewizard://${host}`,
    METER_GATEWAY_METERS: JSON.stringify([
      { id: 'raw', name: 'Raw', role: 'grid', source: `homewizard://${host}?telegram=1` },
    ]),
  });
  const source = (await reportOf(upstream.baseUrl)).report;
  const viaData = (await reportOf(gateway.baseUrl)).report;
  assert.deepEqual(viaData.energy.active.positive, source.energy.active.positive);
  assert.equal(
    viaData.instantaneous_power.active.positive.total,
    source.instantaneous_power.active.positive.total,
  );
  // The telegram mode runs the raw telegram through the DSMR parser: every OBIS value, the meter identity.
  const viaTelegram = (await reportOf(gateway.baseUrl, '/api/v1/meters/raw/report')).report;
  assert.deepEqual(viaTelegram.energy, source.energy);
  assert.deepEqual(viaTelegram.voltage, source.voltage);
});

test('shelly:// reads EM.GetStatus and EMData.GetStatus of an independent stub, as a further meter', async (t) => {
  let failing = false;
  const port = await stub(t, (request, response) => {
    const body =
      request.url === '/rpc/EM.GetStatus?id=0'
        ? SHELLY_EM
        : request.url === '/rpc/EMData.GetStatus?id=0'
          ? SHELLY_EMDATA
          : undefined;
    response.writeHead(failing ? 500 : body ? 200 : 404, { 'Content-Type': 'application/json' });
    response.end(failing ? '{"code":-1}' : JSON.stringify(body ?? {}));
  });
  const gateway = await daemon(t, {
    METER_GATEWAY_METERS: JSON.stringify([
      // A 2 s timeout: the stale check below waits for it.
      { id: 'shelly', name: 'Shelly', role: 'grid', source: `shelly://127.0.0.1:${port}`, timeout: 2 },
    ]),
  });
  const { report } = await reportOf(gateway.baseUrl, '/api/v1/meters/shelly/report');
  assert.equal(report.instantaneous_power.active.positive.total, 0.5514);
  assert.equal(report.instantaneous_power.active.positive.l1, 0.9512);
  assert.equal(report.instantaneous_power.active.negative.l2, 0.4);
  assert.equal(report.energy.active.positive.total, 2852.05581);
  assert.equal(report.energy.active.negative.total, 2);
  assert.equal(report.voltage.l2, 236.2);
  assert.equal(report.current.l1, 4.029);
  // The dongle failing: counted as errors and the meter goes stale (no old numbers).
  failing = true;
  await waitFor(
    'the Shelly meter to go stale',
    async () => (await (await fetch(`${gateway.baseUrl}/api/v1/meters/shelly/report`)).json()) as Report,
    (body) => body.meter.status !== 'OK',
    { deadlineMs: 30_000 },
  );
});
