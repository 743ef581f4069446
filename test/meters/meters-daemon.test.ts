import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startDaemonInProcess } from '../helpers/daemon-in-process.js';
import { requireCommand, requirePeer } from '../helpers/environment.js';
import { waitFor } from '../helpers/wait.js';
import { send } from '../http/http-client.js';
import { openStream, type SseStream } from '../http/sse-client.js';
import { tempDir } from '../meter/transport/meter-input-harness.js';
import { hasPymodbus } from '../modbus/rtu-rig.js';
import { Rs485Bus, unitValues } from './rs485-bus-rig.js';

/**
 * The daemon with several meters, as a user runs it: the simulated DSMR P1 meter as `main`, three
 * Eastron SDM630 meters (three independent pymodbus servers) on one RS485 bus, and two virtual
 * meters; everything checked through the HTTP API of the running process.
 */

interface MeterRow {
  id: string;
  status: string;
  last_reading: string | null;
  counters: Record<string, number>;
  power_in: number | null;
  power_out: number | null;
  energy_in: number | null;
  energy_out: number | null;
}

const round = (value: number) => Number(value.toPrecision(10));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of several shapes
async function json(baseUrl: string, path: string): Promise<any> {
  const reply = await send(baseUrl, 'GET', path);
  assert.equal(reply.status, 200, `${path}: ${reply.text}`);
  return reply.json();
}

/** Arrival times of a stream's `event: live` blocks. */
function arrivals(stream: SseStream): number[] {
  const at: number[] = [];
  stream.response.on('data', (text: string) => {
    if (text.includes('event: live')) at.push(Date.now());
  });
  return at;
}

test(
  'main + three Modbus units on one bus + virtual meters: reports equal the peers, virtuals the arithmetic, a dead unit is NO DATA alone',
  { timeout: 120_000 },
  async (t) => {
    if (!requireCommand(t, 'socat') || !requirePeer(t, await hasPymodbus(), 'python3-pymodbus')) return;
    const bus = new Rs485Bus();
    await bus.start([1, 2, 3]);
    const state = tempDir('mg-meters-daemon-');
    const source = (unit: number) =>
      `modbus-rtu:${bus.hostPath}?unit=${unit}&profile=sdm630&baud=9600&interval=1`;
    const meters = [
      { id: 'pv', name: 'PV', role: 'pv', source: source(1), timeout: 3 },
      { id: 'ev', name: 'Wallbox', role: 'ev', source: source(2), timeout: 3 },
      { id: 'hp', name: 'Heat pump', role: 'heat_pump', source: source(3), timeout: 3 },
      { id: 'pv_minus_ev', name: 'PV - EV', role: 'other', expression: 'pv - ev' },
      { id: 'house', name: 'House', role: 'consumer', expression: 'main + 0.5 * hp' },
    ];
    const daemon = await startDaemonInProcess(state, { METER_GATEWAY_METERS: JSON.stringify(meters) });
    const streams: SseStream[] = [];
    t.after(async () => {
      for (const stream of streams) stream.close();
      await daemon.stop();
      await bus.stop();
      rmSync(state, { recursive: true, force: true });
    });
    const list = () => json(daemon.baseUrl, '/api/v1/meters') as Promise<MeterRow[]>;
    const rows = await waitFor(
      'every meter to be OK',
      list,
      (all) => all.length === 6 && all.every((row) => row.status === 'OK'),
    );
    assert.deepEqual(
      rows.map((row) => row.id),
      ['main', 'pv', 'ev', 'hp', 'pv_minus_ev', 'house'],
    );

    // Each Modbus meter's report holds what its peer serves (SDM630 input registers, W -> kW).
    for (const [id, unit] of [
      ['pv', 1],
      ['ev', 2],
      ['hp', 3],
    ] as const) {
      const served = unitValues(unit);
      const { report, meter } = await json(daemon.baseUrl, `/api/v1/meters/${id}/report`);
      assert.equal(meter.status, 'OK');
      assert.deepEqual(
        report.voltage,
        { l1: round(served[0x00]!), l2: round(served[0x02]!), l3: round(served[0x04]!) },
        id,
      );
      assert.deepEqual(
        report.current,
        { l1: round(served[0x06]!), l2: round(served[0x08]!), l3: round(served[0x0a]!) },
        id,
      );
      const power = report.instantaneous_power;
      assert.equal(power.active.positive.total, round(served[0x34]! / 1000), `${id} power`);
      assert.equal(power.active.positive.l1, round(served[0x0c]! / 1000), `${id} power L1`);
      assert.equal(power.active.negative.l2, round(-served[0x0e]! / 1000), `${id} export L2`);
      assert.equal(power.active.positive.l3, round(served[0x10]! / 1000), `${id} power L3`);
      assert.equal(power.apparent.total, round(served[0x38]! / 1000), `${id} apparent`);
      assert.equal(report.power_factor, round(served[0x3e]!), `${id} PF`);
      assert.equal(report.frequency, round(served[0x46]!), `${id} frequency (30071)`);
      assert.equal(report.energy.active.positive.total, round(served[0x48]!), `${id} import`);
      assert.equal(report.energy.active.negative.total, round(served[0x4a]!), `${id} export`);
    }
    // main answers exactly what the device's own /api/v1/report answers.
    const [own, viaMeters] = await Promise.all([
      send(daemon.baseUrl, 'GET', '/api/v1/report'),
      send(daemon.baseUrl, 'GET', '/api/v1/meters/main/report'),
    ]);
    assert.equal(JSON.parse(viaMeters.text).meter.interface, JSON.parse(own.text).meter.interface);

    // The virtual meters: the arithmetic of their terms, in one snapshot of every meter.
    const snapshot = new Map((await list()).map((row) => [row.id, row]));
    const netPower = (id: string) => snapshot.get(id)!.power_in! - snapshot.get(id)!.power_out!;
    const netEnergy = (id: string) => snapshot.get(id)!.energy_in! - snapshot.get(id)!.energy_out!;
    assert.ok(Math.abs(netPower('pv_minus_ev') - (netPower('pv') - netPower('ev'))) < 1e-9);
    assert.ok(Math.abs(netEnergy('pv_minus_ev') - (netEnergy('pv') - netEnergy('ev'))) < 1e-6);
    assert.ok(Math.abs(netPower('house') - (netPower('main') + 0.5 * netPower('hp'))) < 1e-9);
    assert.ok(Math.abs(netEnergy('house') - (netEnergy('main') + 0.5 * netEnergy('hp'))) < 1e-6);

    // Documented in the OpenAPI document, with the id as a path parameter.
    const openapi = await json(daemon.baseUrl, '/api/v1/openapi.json');
    for (const path of ['/api/v1/meters', '/api/v1/meters/{id}/report', '/api/v1/meters/{id}/live'])
      assert.ok(openapi.paths[path]?.get, `${path} documented`);
    assert.deepEqual(
      openapi.paths['/api/v1/meters/{id}/report'].get.parameters.map((p: { name: string; in: string }) => [
        p.name,
        p.in,
      ]),
      [['id', 'path']],
    );

    // Unknown meter: 404 naming the known ids.
    const unknown = await send(daemon.baseUrl, 'GET', '/api/v1/meters/nope/report');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json().details.known, ['main', 'pv', 'ev', 'hp', 'pv_minus_ev', 'house']);

    // Unit 2 loses power: only it and the virtual meter using it go NO DATA; the others keep 1 s.
    for (const id of ['pv', 'hp'])
      streams.push(await openStream(daemon.baseUrl, `/api/v1/meters/${id}/live`));
    const times = streams.map(arrivals);
    await bus.stopUnit(2);
    const from = times.map((at) => at.length);
    const after = await waitFor(
      'ev to be NO DATA',
      list,
      (all) => all.find((row) => row.id === 'ev')!.status === 'NO DATA',
    );
    assert.equal(after.find((row) => row.id === 'pv_minus_ev')!.status, 'NO DATA');
    // Nine more readings of each live meter since unit 2 stopped: their cadence is checked below.
    await waitFor(
      'nine readings of pv and hp since unit 2 stopped',
      () => times.map((at, k) => at.length - from[k]!),
      (counts) => counts.every((count) => count >= 9),
    );
    const status = new Map((await list()).map((row) => [row.id, row.status]));
    assert.deepEqual(Object.fromEntries(status), {
      main: 'OK',
      pv: 'OK',
      ev: 'NO DATA',
      hp: 'OK',
      pv_minus_ev: 'NO DATA',
      house: 'OK',
    });
    for (const [k, id] of ['pv', 'hp'].entries()) {
      const at = times[k]!.slice(Math.max(0, from[k]! - 1));
      const gaps = at.slice(1).map((time, i) => time - at[i]!);
      const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      console.log(
        `# ${id} live events with unit 2 dead: ${gaps.length} intervals, mean ${mean.toFixed(0)} ms, max ${Math.max(...gaps)} ms`,
      );
      assert.ok(gaps.length >= 8, `${id}: ${gaps.length} events`);
      assert.ok(mean < 1150, `${id} mean interval ${mean} ms`);
      assert.ok(Math.max(...gaps) < 2500, `${id} longest interval ${Math.max(...gaps)} ms`);
    }
    // Each meter's own counters: the dead unit's timeouts rise on it alone, its last reading time
    // stays that of its last answer; the units sharing the bus count no error.
    const counted = new Map((await list()).map((row) => [row.id, row]));
    const ev = counted.get('ev')!;
    assert.ok(ev.counters.timeouts! >= 2, `ev timeouts: ${ev.counters.timeouts}`);
    assert.ok(ev.last_reading !== null && Date.parse(ev.last_reading) < Date.now() - 3000, ev.last_reading!);
    for (const id of ['pv', 'hp']) {
      const row = counted.get(id)!;
      assert.deepEqual(
        { ...row.counters, frames_ok: 0 },
        { frames_ok: 0, crc_errors: 0, parse_errors: 0, overflows: 0, encryption_errors: 0, timeouts: 0 },
        id,
      );
      assert.ok(row.counters.frames_ok! > 8, `${id} frames ${row.counters.frames_ok}`);
      assert.ok(Date.parse(row.last_reading!) > Date.now() - 2500, `${id} last reading ${row.last_reading}`);
    }
    assert.match(
      JSON.stringify(openapi.paths['/api/v1/meters'].get),
      /"timeouts":\{"type":"integer"/,
      'the timeouts counter is documented',
    );
    const evReport = await json(daemon.baseUrl, '/api/v1/meters/ev/report');
    assert.equal(evReport.report.instantaneous_power, undefined, 'no old number passed off as current');
  },
);
